//! Host tests of the safe crate that need no weave device: the tasks'
//! uAPI encodings, ranges and timeouts.  Buffers here are made-up handles
//! of a file that is not a device (/dev/null).

use weave_sys as sys;

use crate::device::Device;
use crate::task::resolve;
use crate::{Buffer, Kernel, Task, TaskKind, Timeout};

fn fake_device() -> Device {
    let f = std::fs::File::open("/dev/null").unwrap();
    Device::from_fd(f.into())
}

const R: u32 = sys::DRM_WEAVE_ACCESS_READ;
const W: u32 = sys::DRM_WEAVE_ACCESS_WRITE;

fn accesses(t: &Task) -> Vec<(u32, u32, u64, u64)> {
    t.raw_bindings()
        .iter()
        .map(|b| (b.handle, b.access, b.offset, b.size))
        .collect()
}

#[test]
fn kernels_have_their_uapi_numbers() {
    assert_eq!(Kernel::Noop.raw(), 0);
    assert_eq!(Kernel::Fill.raw(), 1);
    assert_eq!(Kernel::Copy.raw(), 2);
    assert_eq!(Kernel::AddU32.raw(), 3);
    assert_eq!(Kernel::Crc32c.raw(), 4);
    assert_eq!(Kernel::Delay.raw(), 5);
    assert_eq!(Kernel::Fail.raw(), 6);
}

#[test]
fn copy_reads_its_source_and_writes_its_destination() {
    let d = fake_device();
    let (a, b) = (Buffer::fake(&d, 1, 8192), Buffer::fake(&d, 2, 4096));
    let t = Task::copy(a.read(4096..), b.write(..));
    assert_eq!(accesses(&t), vec![(1, R, 4096, 4096), (2, W, 0, 4096)]);
    let raw = t.encode();
    assert_eq!(raw.type_, sys::DRM_WEAVE_TASK_LAUNCH);
    assert_eq!(raw.kernel, sys::DRM_WEAVE_KERNEL_COPY);
    assert_eq!(raw.bindings.count, 2);
    assert_eq!(
        raw.bindings.stride as usize,
        std::mem::size_of::<sys::drm_weave_binding>()
    );
    assert_eq!(raw.bindings.ptr, t.raw_bindings().as_ptr() as u64);
    assert_eq!((raw.uniforms, raw.uniforms_size, raw.data), (0, 0, 0));
}

#[test]
fn add_u32_binds_two_inputs_then_the_sum() {
    let d = fake_device();
    let (a, b, c) = (
        Buffer::fake(&d, 1, 64),
        Buffer::fake(&d, 2, 64),
        Buffer::fake(&d, 3, 64),
    );
    let t = Task::add_u32(a.read(0..16), b.read(16..32), c.write(0..=15));
    assert_eq!(
        accesses(&t),
        vec![(1, R, 0, 16), (2, R, 16, 16), (3, W, 0, 16)]
    );
    assert_eq!(t.kind(), TaskKind::Launch(Kernel::AddU32));
    assert_eq!(
        t.writes()
            .map(|(b, o, s)| (b.handle(), o, s))
            .collect::<Vec<_>>(),
        vec![(3, 0, 16)]
    );
}

#[test]
fn fill_and_fail_carry_their_word_as_uniforms() {
    let d = fake_device();
    let a = Buffer::fake(&d, 4, 4096);
    let f = Task::fill(a.write(..), 0xdead_beef);
    assert_eq!(f.uniforms(), 0xdead_beefu32.to_ne_bytes());
    let raw = f.encode();
    assert_eq!(raw.uniforms_size, 4);
    assert_eq!(raw.uniforms, f.uniforms().as_ptr() as u64);
    let x = Task::fail(libc::EINVAL, [a.write(0..4), a.write(8..12)]).label(7);
    assert_eq!(x.uniforms(), libc::EINVAL.to_ne_bytes());
    assert_eq!(accesses(&x), vec![(4, W, 0, 4), (4, W, 8, 4)]);
    assert_eq!(x.encode().label, 7);
    assert_eq!(x.encode().kernel, sys::DRM_WEAVE_KERNEL_FAIL);
}

#[test]
fn noop_and_delay_bind_nothing() {
    let n = Task::noop().encode();
    assert_eq!((n.kernel, n.bindings.count, n.bindings.ptr), (0, 0, 0));
    let t = Task::delay(250);
    assert_eq!(t.uniforms(), 250u32.to_ne_bytes());
    assert_eq!(t.encode().bindings.count, 0);
}

#[test]
fn host_write_takes_its_size_from_the_data() {
    let d = fake_device();
    let a = Buffer::fake(&d, 5, 4096);
    let t = Task::host_write(&a, 100, vec![1u8, 2, 3]);
    assert_eq!(accesses(&t), vec![(5, W, 100, 3)]);
    let raw = t.encode();
    assert_eq!(raw.type_, sys::DRM_WEAVE_TASK_HOST_WRITE);
    assert_eq!(raw.kernel, 0);
    assert_ne!(raw.data, 0);
    assert_eq!(t.kind(), TaskKind::HostWrite);
}

#[test]
fn the_generic_builder_keeps_order_and_access() {
    let d = fake_device();
    let (a, b) = (Buffer::fake(&d, 1, 4096), Buffer::fake(&d, 2, 4096));
    let t = Task::launch(Kernel::Fail)
        .reads(&a, 0..8)
        .reads_writes(&b, 8..16)
        .writes(&a, 16..24)
        .uniforms(&5i32.to_ne_bytes())
        .build();
    assert_eq!(
        accesses(&t),
        vec![(1, R, 0, 8), (2, R | W, 8, 8), (1, W, 16, 8)]
    );
    assert_eq!(t.uniforms(), 5i32.to_ne_bytes());
}

#[test]
fn ranges_resolve_against_the_buffer() {
    assert_eq!(resolve(.., 4096), (0, 4096));
    assert_eq!(resolve(10.., 4096), (10, 4086));
    assert_eq!(resolve(..=9, 4096), (0, 10));
    #[allow(clippy::reversed_empty_ranges)]
    let inverted = 8..4;
    assert_eq!(resolve(inverted, 4096), (8, 0));
    assert_eq!(resolve(0..u64::MAX, 4096), (0, u64::MAX));
}

#[test]
fn importing_a_live_handle_shares_the_buffer() {
    let d = fake_device();
    let a = Buffer::fake(&d, 9, 4096);
    let live = d.handles().get(&9).and_then(std::sync::Weak::upgrade);
    assert!(live.is_some());
    drop(live);
    drop(a);
    assert!(
        d.handles().get(&9).is_none(),
        "the last clone's drop forgets the handle"
    );
}

#[test]
fn timeouts_become_absolute_deadlines() {
    assert_eq!(Timeout::Poll.deadline(), 0);
    assert_eq!(Timeout::Forever.deadline(), i64::MAX);
    let soon = Timeout::After(std::time::Duration::from_secs(1)).deadline();
    let later = Timeout::After(std::time::Duration::from_secs(100)).deadline();
    assert!(soon > 0 && later > soon);
    assert_eq!(
        Timeout::After(std::time::Duration::MAX).deadline(),
        i64::MAX
    );
}
