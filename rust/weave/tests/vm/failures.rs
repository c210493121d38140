//! Failure propagation and reports: a FAIL task taints what it should
//! have written, a task that reads it is skipped, and CHECK and READ
//! report the root and the skip; good work beside it runs.

use weave::{Buffer, Cause, Errno, Error, Kernel, Stream, Task, Timeout};

use crate::util::{device, expect_errno, finish, to_bytes, words, PAGE};

tests!(
    "failures":
    fail_taints_and_skips,
    skip_across_streams,
    write_clears_only_its_bytes,
    check_and_read_misuse,
    report_past_max_report_failures,
);

/// fail(a) then copy(a, b) on one stream, fill(c) beside them: a and b
/// carry the one failure, whose root is the fail task and whose skip is
/// the copy; c is good.
fn fail_taints_and_skips() {
    let dev = device();
    let buf = || Buffer::new(&dev, PAGE).unwrap();
    let (a, b, c) = (buf(), buf(), buf());
    let s = Stream::new(&dev).unwrap();
    let seq = s
        .enqueue(&[
            Task::fail(libc::EPROTO, [a.write(..)]).label(11),
            Task::copy(a.read(..), b.write(..)).label(12),
            Task::fill(c.write(..), 5).label(13),
        ])
        .unwrap();
    assert_eq!(seq, 3);
    finish(&s);

    assert!(c.check(..).unwrap().is_clean());
    assert_eq!(c.read_range(..).unwrap(), to_bytes(&[5; 1024]));

    let ra = a.check(..).unwrap();
    assert_eq!(ra.failures.len(), 1, "{:?}", ra);
    let f = &ra.failures[0];
    assert_eq!(f.error, Errno::Other(libc::EPROTO));
    assert_eq!(f.cause, Cause::Kernel);
    assert_eq!(f.root.kernel, Some(Kernel::Fail.raw()));
    let root = f.root.own.expect("the root is our own task");
    assert_eq!((root.stream, root.seqno, root.label), (s.handle(), 1, 11));
    assert!(!f.coarse);

    // b: the same failure, which skipped the copy.
    let rb = b.check(..).unwrap();
    assert_eq!(rb.failures.len(), 1, "{:?}", rb);
    let fb = &rb.failures[0];
    assert_eq!(fb.id, f.id);
    assert_eq!(fb.skips.len(), 1, "{:?}", fb);
    let skip = fb.skips[0].own.expect("the skip is our own task");
    assert_eq!((skip.stream, skip.seqno, skip.label), (s.handle(), 2, 12));
    assert_eq!(fb.skips[0].kernel, Some(Kernel::Copy.raw()));
    assert_eq!(fb.buffers, 2);
    let line = fb.to_string();
    assert!(line.contains("\"fail\""), "{}", line);
    assert!(line.contains("skipped \"copy\""), "{}", line);

    // READ: nothing copied, the report as the error.
    let mut out = [0xffu8; 16];
    match b.read_into(0, &mut out, Timeout::Poll) {
        Err(Error::Failed(r)) => {
            assert_eq!(r.failures.len(), 1);
            assert_eq!(r.failures[0].id, f.id);
            assert_eq!(r.failures[0].skips.len(), 1);
        }
        other => panic!("READ of a tainted range: {:?}", other),
    }
    assert_eq!(out, [0xffu8; 16], "READ copied tainted bytes");
    expect_errno(b.read_range(..), Errno::Io);
    // Reporting does not clear.
    assert_eq!(b.check(..).unwrap().failures.len(), 1);
}

/// The skip crosses streams: a fail on one stream, a copy of its output
/// on another, and an add of that copy on a third; the report of the
/// last names the root on the first stream and both skips.
fn skip_across_streams() {
    let dev = device();
    let buf = || Buffer::new(&dev, PAGE).unwrap();
    let (a, b, c) = (buf(), buf(), buf());
    let s: Vec<Stream> = (0..3).map(|_| Stream::new(&dev).unwrap()).collect();
    s[0].enqueue(&[Task::fail(libc::ENOEXEC, [a.write(..)]).label(1)])
        .unwrap();
    s[1].enqueue(&[Task::copy(a.read(..), b.write(..)).label(2)])
        .unwrap();
    s[2].enqueue(&[Task::add_u32(b.read(..), b.read(..), c.write(..)).label(3)])
        .unwrap();
    finish(&s[2]);
    for st in &s {
        finish(st);
    }
    let r = c.check(..).unwrap();
    assert_eq!(r.failures.len(), 1, "{:?}", r);
    let f = &r.failures[0];
    assert_eq!(f.error, Errno::Other(libc::ENOEXEC));
    assert_eq!(f.root.own.unwrap().stream, s[0].handle());
    let skips: Vec<_> = f
        .skips
        .iter()
        .map(|t| {
            let o = t.own.unwrap();
            (o.stream, o.label)
        })
        .collect();
    assert_eq!(skips, [(s[1].handle(), 2), (s[2].handle(), 3)]);
    assert_eq!(f.buffers, 3);
}

/// A good write clears exactly the bytes it writes: the rest of the range
/// still carries the failure, and READ of the cleared bytes succeeds.
fn write_clears_only_its_bytes() {
    let dev = device();
    let a = Buffer::new(&dev, PAGE).unwrap();
    let s = Stream::new(&dev).unwrap();
    s.enqueue(&[
        Task::fail(libc::EIO, [a.write(..)]),
        Task::fill(a.write(0..256), 0x77),
        Task::host_write(&a, 1024, vec![9u8; 512]),
    ])
    .unwrap();
    finish(&s);
    assert!(a.check(0..256).unwrap().is_clean());
    assert!(a.check(1024..1536).unwrap().is_clean());
    assert_eq!(a.check(256..1024).unwrap().failures.len(), 1);
    assert_eq!(a.check(..).unwrap().failures.len(), 1);
    assert_eq!(a.read_range(1024..1536).unwrap(), vec![9u8; 512]);
    assert!(words(&a)[..64].iter().all(|&w| w == 0x77));
    let r = a.check(1536..).unwrap();
    assert_eq!(r.failures[0].error, Errno::Io);
    expect_errno(a.read_range(200..300), Errno::Io);
    // A task that reads only good bytes runs.
    let b = Buffer::new(&dev, 512).unwrap();
    s.enqueue(&[Task::copy(a.read(1024..1536), b.write(0..512))])
        .unwrap();
    finish(&s);
    assert!(b.check(..).unwrap().is_clean());
    assert_eq!(b.read_range(0..512).unwrap(), vec![9u8; 512]);
}

/// CHECK and READ of a range outside the buffer, or empty, fail with
/// -EINVAL.
fn check_and_read_misuse() {
    let dev = device();
    let a = Buffer::new(&dev, PAGE).unwrap();
    expect_errno(a.check(0..PAGE + 1), Errno::InvalidArgument);
    expect_errno(a.check(16..16), Errno::InvalidArgument);
    expect_errno(a.read_range(PAGE - 4..PAGE + 4), Errno::InvalidArgument);
    let mut out = [0u8; 8];
    expect_errno(
        a.read_into(PAGE - 4, &mut out, Timeout::Poll),
        Errno::InvalidArgument,
    );
    assert!(a.check(..).unwrap().is_clean());
}

/// A range that carries more failures than a report holds
/// (max_report_failures, past which the kernel always says -ENOSPC): CHECK
/// and READ give the first max_report_failures of them, each a real
/// failure, in the order of the bytes, none made up, and count the rest
/// as omitted; a range within the bound has its whole report.
fn report_past_max_report_failures() {
    let dev = device();
    let info = dev.info().unwrap();
    let max = info.max_report_failures as u64;
    let n = max + 8;
    assert!(n * 4 <= 4 * PAGE && n < u64::from(info.max_live_failures));
    let a = Buffer::new(&dev, 4 * PAGE).unwrap();
    let s = Stream::new(&dev).unwrap();
    let tasks: Vec<Task> = (0..n)
        .map(|i| Task::fail(libc::EPROTO, [a.write(4 * i..4 * i + 4)]).label(i as u32 + 1))
        .collect();
    for batch in tasks.chunks(info.max_tasks_per_enqueue.min(64) as usize) {
        s.enqueue(batch).unwrap();
    }
    finish(&s);
    let check = |r: &weave::Report| {
        assert_eq!(r.failures.len() as u64, max);
        assert_eq!(u64::from(r.omitted), n - max);
        assert!(!r.is_clean());
        for (i, f) in r.failures.iter().enumerate() {
            assert_ne!(f.id.0, 0, "entry {} is not a failure", i);
            assert_eq!(f.root.own.map(|o| o.label), Some(i as u32 + 1));
        }
    };
    check(&a.check(..).unwrap());
    let whole = a.check(4 * (n - max)..).unwrap();
    assert_eq!(whole.failures.len() as u64, max);
    assert_eq!(whole.omitted, 0);
    assert_eq!(
        whole.failures[0].root.own.unwrap().label as u64,
        n - max + 1
    );
    match a.read_range(..) {
        Err(Error::Failed(r)) => check(&r),
        other => panic!("READ of a tainted range: {:?}", other.map(|v| v.len())),
    }
}
