//! Ordering across streams by bytes: tasks on different streams that share
//! a buffer run in enqueue order, with no flush or wait between them; and
//! the errnos of malformed tasks.

use weave::{Buffer, Errno, Stream, Task, Timeout};

use crate::util::{device, expect_errno, finish, to_bytes, words, PAGE, WAIT};

tests!(
    "ordering":
    fill_then_copy_across_streams,
    chain_over_three_streams,
    write_after_read_across_streams,
    malformed_tasks_einval,
    buffer_of_another_file,
    wait_unflushed_etime,
    buffer_limits,
);

/// A fill on one stream, then a copy of it on another: the copy sees the
/// fill, though only the copy's stream is flushed and waited for.
fn fill_then_copy_across_streams() {
    let dev = device();
    let (a, b) = (
        Buffer::new(&dev, 4 * PAGE).unwrap(),
        Buffer::new(&dev, 4 * PAGE).unwrap(),
    );
    let (s1, s2) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    for round in 1..=4u32 {
        let pattern = 0x5eed_0000 | round;
        s1.enqueue(&[Task::fill(a.write(..), pattern)]).unwrap();
        s2.enqueue(&[Task::copy(a.read(..), b.write(..))]).unwrap();
        finish(&s2);
        assert!(
            words(&b).iter().all(|&w| w == pattern),
            "round {}: the copy ran before the fill",
            round
        );
    }
    // s1's fills were executed by s2's enqueues, never flushed by hand.
    let st = s1.state().unwrap();
    assert_eq!(st.enqueued, 4);
    assert_eq!(st.executed, 4);
}

/// fill(a) on s1, copy(a, b) on s2, add(a, b, c) on s3, crc(c) on s1:
/// each step sees the one before, across streams.
fn chain_over_three_streams() {
    let dev = device();
    let buf = |n| Buffer::new(&dev, n).unwrap();
    let (a, b, c, crc) = (buf(PAGE), buf(PAGE), buf(PAGE), buf(PAGE));
    let s: Vec<Stream> = (0..3).map(|_| Stream::new(&dev).unwrap()).collect();
    s[0].enqueue(&[Task::fill(a.write(..), 21)]).unwrap();
    s[1].enqueue(&[Task::copy(a.read(..), b.write(..))])
        .unwrap();
    s[2].enqueue(&[Task::add_u32(a.read(..), b.read(..), c.write(..))])
        .unwrap();
    s[0].enqueue(&[Task::crc32c(c.read(..), crc.write(0..4))])
        .unwrap();
    finish(&s[0]);
    let sum = vec![42u32; (PAGE / 4) as usize];
    assert_eq!(words(&c), sum);
    let want = crate::util::crc32c(&to_bytes(&sum));
    assert_eq!(words(&crc)[0], want);
    for st in &s {
        st.wait(WAIT).unwrap();
    }
}

/// A copy reads a on s1, then a fill overwrites a on s2: the copy still
/// sees the old bytes.
fn write_after_read_across_streams() {
    let dev = device();
    let (a, b) = (
        Buffer::new(&dev, PAGE).unwrap(),
        Buffer::new(&dev, PAGE).unwrap(),
    );
    let (s1, s2) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    s1.enqueue(&[Task::fill(a.write(..), 1)]).unwrap();
    finish(&s1);
    for round in 2..=5u32 {
        s1.enqueue(&[Task::copy(a.read(..), b.write(..))]).unwrap();
        s2.enqueue(&[Task::fill(a.write(..), round)]).unwrap();
        finish(&s2);
        finish(&s1);
        assert!(
            words(&b).iter().all(|&w| w == round - 1),
            "round {}: the copy saw the later fill",
            round
        );
        assert!(words(&a).iter().all(|&w| w == round));
    }
}

/// Each malformed task is refused with -EINVAL, and nothing of the call
/// is queued.
fn malformed_tasks_einval() {
    let dev = device();
    let (a, b) = (
        Buffer::new(&dev, PAGE).unwrap(),
        Buffer::new(&dev, 2 * PAGE).unwrap(),
    );
    let s = Stream::new(&dev).unwrap();
    let bad = [
        ("a range past the end", Task::fill(a.write(0..PAGE + 4), 1)),
        ("an empty range", Task::fill(a.write(8..8), 1)),
        ("a fill not of whole words", Task::fill(a.write(0..6), 1)),
        (
            "a copy of unequal sizes",
            Task::copy(a.read(..), b.write(..)),
        ),
        (
            "a crc32c of 8 bytes",
            Task::crc32c(a.read(..), b.write(0..8)),
        ),
        (
            "an add whose sum overlaps an input askew",
            Task::add_u32(a.read(0..64), a.read(0..64), a.write(4..68)),
        ),
        ("a fail with errno 0", Task::fail(0, [a.write(..)])),
        ("a fail with errno 4096", Task::fail(4096, [a.write(..)])),
        ("a delay over 60 s", Task::delay(60_000_001)),
        (
            "a host write past the end",
            Task::host_write(&a, PAGE - 2, vec![1u8; 4]),
        ),
    ];
    for (what, task) in bad {
        let r = s.enqueue(&[Task::noop(), task]);
        assert!(
            matches!(&r, Err(e) if e.errno() == Errno::InvalidArgument),
            "{}: {:?}",
            what,
            r
        );
    }
    assert_eq!(
        s.state().unwrap().enqueued,
        0,
        "a refused call queued tasks"
    );
    expect_errno(s.enqueue(&[]), Errno::InvalidArgument);
}

/// A task that binds a buffer of another device file is refused: its
/// handle means nothing, or another buffer, in the stream's file.
fn buffer_of_another_file() {
    let (d1, d2) = (device(), device());
    let mine = Buffer::new(&d1, PAGE).unwrap();
    let theirs = Buffer::new(&d2, PAGE).unwrap();
    // Both files gave out their first handle: the same number.
    assert_eq!(mine.handle(), theirs.handle());
    let s = Stream::new(&d1).unwrap();
    expect_errno(
        s.enqueue(&[Task::fill(theirs.write(..), 9)]),
        Errno::NotFound,
    );
    expect_errno(
        s.enqueue(&[Task::copy(mine.read(..), theirs.write(..))]),
        Errno::NotFound,
    );
    expect_errno(
        s.enqueue_flush(&[Task::host_write(&theirs, 0, vec![1u8; 4])])
            .map_err(|(_, e)| e),
        Errno::NotFound,
    );
    finish(&s);
    assert!(
        words(&mine).iter().all(|&w| w == 0),
        "wrote the wrong buffer"
    );
    assert_eq!(s.state().unwrap().enqueued, 0);
}

/// Work enqueued and not flushed never completes: a poll of its seqno
/// fails with -ETIME, as does a short wait, until it is flushed; a seqno
/// past the stream's last is -EINVAL.
fn wait_unflushed_etime() {
    let dev = device();
    let a = Buffer::new(&dev, PAGE).unwrap();
    let s = Stream::new(&dev).unwrap();
    let seq = s.enqueue(&[Task::fill(a.write(..), 3)]).unwrap();
    assert_eq!(seq, 1);
    expect_errno(s.wait_seqno(seq, Timeout::Poll), Errno::TimerExpired);
    expect_errno(
        s.wait_seqno(seq, Timeout::After(std::time::Duration::from_millis(20))),
        Errno::TimerExpired,
    );
    expect_errno(s.wait_seqno(seq + 1, WAIT), Errno::InvalidArgument);
    s.flush().unwrap();
    s.wait_seqno(seq, WAIT).unwrap();
    assert_eq!(s.state().unwrap().completed, 1);
}

/// Buffers the device refuses: zero bytes (-EINVAL), over max_bo_size
/// (-E2BIG); a NO_MMAP buffer cannot be mapped (-EPERM); a mapping's
/// copies past its end are -EINVAL.
fn buffer_limits() {
    let dev = device();
    let info = dev.info().unwrap();
    expect_errno(Buffer::new(&dev, 0), Errno::InvalidArgument);
    expect_errno(Buffer::new(&dev, info.max_bo_size + 1), Errno::TooBig);
    let hidden = Buffer::new_unmappable(&dev, PAGE).unwrap();
    expect_errno(hidden.map(), Errno::PermissionDenied);
    // Still usable by tasks and READ.
    let s = Stream::new(&dev).unwrap();
    s.enqueue(&[Task::fill(hidden.write(..), 0xabcd)]).unwrap();
    finish(&s);
    assert_eq!(hidden.read_range(0..4).unwrap(), 0xabcdu32.to_ne_bytes());
    let a = Buffer::new(&dev, PAGE).unwrap();
    let mut map = a.map().unwrap();
    assert_eq!(map.len() as u64, PAGE);
    let mut out = [0u8; 4];
    expect_errno(
        map.read(PAGE as usize - 2, &mut out),
        Errno::InvalidArgument,
    );
    expect_errno(map.write(PAGE as usize, &[1]), Errno::InvalidArgument);
    map.write(PAGE as usize - 4, &[7, 7, 7, 7]).unwrap();
    assert_eq!(a.read_range(PAGE - 4..).unwrap(), vec![7u8; 4]);
}
