//! Capture and replay: a stream requires isolation while its window is
//! open, records its launches instead of running them, and the graph
//! replays them with new inputs; the misuses of a window and their
//! errnos.

use weave::backend::{SchedulerStreamBackend, StreamFactory, WeaveBackend, WeaveStream};
use weave::{Buffer, Cause, Device, Errno, Graph, Stream, Task};

use crate::util::{device, expect_errno, finish, to_bytes, to_words, words, PAGE, WAIT};

tests!(
    "capture":
    isolation_during_window,
    window_misuse,
    host_write_dooms_window,
    replay_follows_inputs,
    failed_replay_then_good,
    replay_on_another_file,
    graph_limit_keeps_window,
    slot_mate_abandons_window,
);

fn backend_stream(dev: &Device) -> WeaveStream {
    WeaveBackend::new(dev).factory().create_stream().unwrap()
}

/// copy(a, b) then add(b, b, c), recorded on `s`.
fn record_double(s: &mut WeaveStream, a: &Buffer, b: &Buffer, c: &Buffer) -> Graph {
    s.begin_capture().unwrap();
    s.stream()
        .enqueue(&[
            Task::copy(a.read(..), b.write(..)),
            Task::add_u32(b.read(..), b.read(..), c.write(..)),
        ])
        .unwrap();
    let g = s.end_capture().unwrap();
    assert_eq!(g.tasks(), 2);
    g
}

/// requires_isolation is true from BEGIN to END, and only for the stream
/// in the window; the slot is isolated meanwhile; the window's launches
/// do not run, and other streams' work does.
fn isolation_during_window() {
    let dev = device();
    let (mut s, mut other) = (backend_stream(&dev), backend_stream(&dev));
    let (a, b) = (
        Buffer::new(&dev, PAGE).unwrap(),
        Buffer::new(&dev, PAGE).unwrap(),
    );
    assert!(!WeaveBackend::requires_isolation(&s));
    assert_eq!(s.stream().state().unwrap().isolated, 0);
    s.begin_capture().unwrap();
    assert!(WeaveBackend::requires_isolation(&s));
    assert!(!WeaveBackend::requires_isolation(&other));
    assert_eq!(s.stream().state().unwrap().isolated, 1);
    s.stream().enqueue(&[Task::fill(a.write(..), 8)]).unwrap();
    other
        .stream()
        .enqueue(&[Task::fill(b.write(..), 9)])
        .unwrap();
    finish(other.stream());
    assert!(words(&b).iter().all(|&w| w == 9));
    assert!(WeaveBackend::requires_isolation(&s));
    let g = s.end_capture().unwrap();
    assert!(!WeaveBackend::requires_isolation(&s));
    assert_eq!(s.stream().state().unwrap().isolated, 0);
    assert_eq!(g.tasks(), 1);
    // Recorded, not run.
    assert!(words(&a).iter().all(|&w| w == 0), "the window ran its fill");
    g.replay(other.stream()).unwrap();
    other.stream().wait(WAIT).unwrap();
    assert!(words(&a).iter().all(|&w| w == 8));
    assert!(other.take_errors().is_empty());
}

/// A second window on the slot is -EBUSY, as are FLUSH, WAIT and REPLAY
/// of the recording stream, and CHECK of a buffer it records; END with no
/// window is -EBADFD; ABORT with none is no error, and an aborted window
/// makes no graph.
fn window_misuse() {
    let dev = device();
    let mut s = backend_stream(&dev);
    let a = Buffer::new(&dev, PAGE).unwrap();
    expect_errno(s.end_capture(), Errno::BadState);
    s.abort_capture().unwrap();
    s.begin_capture().unwrap();
    s.stream().enqueue(&[Task::fill(a.write(..), 1)]).unwrap();
    expect_errno(s.begin_capture(), Errno::Busy);
    assert!(
        WeaveBackend::requires_isolation(&s),
        "a refused BEGIN ended the window"
    );
    expect_errno(s.stream().flush(), Errno::Busy);
    expect_errno(s.stream().wait(WAIT), Errno::Busy);
    expect_errno(a.check(..), Errno::Busy);
    let g = {
        let mut t = backend_stream(&dev);
        t.begin_capture().unwrap();
        t.stream().enqueue(&[Task::noop()]).unwrap();
        t.end_capture().unwrap()
    };
    expect_errno(g.replay(s.stream()), Errno::Busy);
    s.abort_capture().unwrap();
    assert!(!WeaveBackend::requires_isolation(&s));
    expect_errno(s.end_capture(), Errno::BadState);
    finish(s.stream());
    assert!(words(&a).iter().all(|&w| w == 0), "an aborted window ran");
    assert!(a.check(..).unwrap().is_clean());
}

/// A host write in a recording window is refused and dooms it: END fails
/// with -EIO, closes the window, and the write's destination carries a
/// failure of cause CAPTURE (-EBUSY).
fn host_write_dooms_window() {
    let dev = device();
    let mut s = backend_stream(&dev);
    let (a, b) = (
        Buffer::new(&dev, PAGE).unwrap(),
        Buffer::new(&dev, PAGE).unwrap(),
    );
    s.begin_capture().unwrap();
    s.stream()
        .enqueue(&[
            Task::fill(a.write(..), 4),
            Task::host_write(&b, 0, vec![1u8; 64]),
        ])
        .unwrap();
    expect_errno(s.end_capture(), Errno::Io);
    assert!(!WeaveBackend::requires_isolation(&s));
    finish(s.stream());
    let r = b.check(0..64).unwrap();
    assert_eq!(r.failures.len(), 1, "{:?}", r);
    assert_eq!(r.failures[0].cause, Cause::Capture);
    assert_eq!(r.failures[0].error, Errno::Busy);
    // What the doomed window recorded is tainted too.
    let ra = a.check(..).unwrap();
    assert_eq!(ra.failures.len(), 1, "{:?}", ra);
    assert_eq!(ra.failures[0].cause, Cause::Capture);
    // The stream works on.
    s.stream().enqueue(&[Task::fill(a.write(..), 6)]).unwrap();
    finish(s.stream());
    assert!(a.check(..).unwrap().is_clean());
}

/// The graph of copy(a, b), add(b, b, c) replayed after host writes of
/// new inputs: each replay computes from its own input, on the recording
/// stream and on another; the sequence numbers count the graph's tasks.
fn replay_follows_inputs() {
    let dev = device();
    let buf = || Buffer::new(&dev, PAGE).unwrap();
    let (a, b, c) = (buf(), buf(), buf());
    let mut s = backend_stream(&dev);
    let g = record_double(&mut s, &a, &b, &c);
    let other = Stream::new(&dev).unwrap();
    for round in 1..=4u32 {
        let on = if round % 2 == 0 { &other } else { s.stream() };
        let input: Vec<u32> = (0..1024).map(|i| i * round).collect();
        let before = on.state().unwrap().enqueued;
        on.enqueue(&[Task::host_write(&a, 0, to_bytes(&input))])
            .unwrap();
        let seq = g.replay(on).unwrap();
        assert_eq!(seq, before + 3);
        on.wait_seqno(seq, WAIT).unwrap();
        let want: Vec<u32> = input.iter().map(|x| x.wrapping_mul(2)).collect();
        assert_eq!(
            to_words(&c.read_range(..).unwrap()),
            want,
            "round {}",
            round
        );
    }
}

/// A replay whose input carries a failure taints what it writes and skips
/// its tasks; the next replay from a good input clears it.
fn failed_replay_then_good() {
    let dev = device();
    let buf = || Buffer::new(&dev, PAGE).unwrap();
    let (a, b, c) = (buf(), buf(), buf());
    let mut s = backend_stream(&dev);
    let g = record_double(&mut s, &a, &b, &c);
    let st = s.stream();
    st.enqueue(&[Task::fail(libc::EFAULT, [a.write(..)]).label(70)])
        .unwrap();
    g.replay(st).unwrap();
    st.wait(WAIT).unwrap();
    let r = c.check(..).unwrap();
    assert_eq!(r.failures.len(), 1, "{:?}", r);
    let f = &r.failures[0];
    assert_eq!(f.error, Errno::Fault);
    assert_eq!(f.root.own.unwrap().label, 70);
    assert_eq!(f.skips.len(), 2, "both replayed tasks skipped: {:?}", f);
    st.enqueue(&[Task::host_write(&a, 0, vec![3u8; PAGE as usize])])
        .unwrap();
    g.replay(st).unwrap();
    st.wait(WAIT).unwrap();
    assert!(c.check(..).unwrap().is_clean());
    assert!(b.check(..).unwrap().is_clean());
    assert_eq!(c.read_range(0..4).unwrap(), 0x0606_0606u32.to_ne_bytes());
}

/// A graph replays only on streams of its own file: another file's
/// stream is refused, though it has the same handle and its file a graph
/// of the same handle.
fn replay_on_another_file() {
    let (d1, d2) = (device(), device());
    let buf = |d| Buffer::new(d, PAGE).unwrap();
    let (a, b, c) = (buf(&d1), buf(&d1), buf(&d1));
    let mut s = backend_stream(&d1);
    let g = record_double(&mut s, &a, &b, &c);
    let (x, y, z) = (buf(&d2), buf(&d2), buf(&d2));
    let mut theirs = backend_stream(&d2);
    let their_graph = record_double(&mut theirs, &x, &y, &z);
    assert_eq!(theirs.stream().handle(), s.stream().handle());
    assert_eq!(their_graph.handle(), g.handle());
    let before = theirs.stream().state().unwrap().enqueued;
    expect_errno(g.replay(theirs.stream()), Errno::NotFound);
    assert_eq!(theirs.stream().state().unwrap().enqueued, before);
    finish(s.stream());
}

/// END of a file at max_graphs is -ENOSPC and leaves the window
/// recording: the stream still requires isolation, and END succeeds once
/// a graph is gone.
fn graph_limit_keeps_window() {
    let dev = device();
    let max = dev.info().unwrap().max_graphs;
    let mut s = backend_stream(&dev);
    let mut graphs = Vec::new();
    for _ in 0..max {
        s.begin_capture().unwrap();
        s.stream().enqueue(&[Task::noop()]).unwrap();
        graphs.push(s.end_capture().unwrap());
    }
    s.begin_capture().unwrap();
    s.stream().enqueue(&[Task::noop()]).unwrap();
    expect_errno(s.end_capture(), Errno::NoSpace);
    assert!(WeaveBackend::requires_isolation(&s));
    graphs.pop();
    let g = s.end_capture().unwrap();
    assert!(!WeaveBackend::requires_isolation(&s));
    g.replay(s.stream()).unwrap();
    s.stream().wait(WAIT).unwrap();
}

/// END by another stream of the window's slot (handles equal modulo
/// max_streams) abandons the window: -ECANCELED, no graph, the launches
/// never run; the owner's END then finds no window (-EBADFD) and its
/// isolation ends.
fn slot_mate_abandons_window() {
    let dev = device();
    let max = dev.info().unwrap().max_streams;
    let mut backend = WeaveBackend::new(&dev);
    let mut owner = backend.factory().create_stream().unwrap();
    let slot = owner.stream().handle() % max;
    let mut others = Vec::new();
    let mut mate = loop {
        let s = backend.factory().create_stream().unwrap();
        if s.stream().handle() % max == slot {
            break s;
        }
        others.push(s);
    };
    let a = Buffer::new(&dev, PAGE).unwrap();
    owner.begin_capture().unwrap();
    owner
        .stream()
        .enqueue(&[Task::fill(a.write(..), 5)])
        .unwrap();
    expect_errno(mate.end_capture(), Errno::Canceled);
    assert!(!WeaveBackend::requires_isolation(&mate));
    expect_errno(owner.end_capture(), Errno::BadState);
    assert!(!WeaveBackend::requires_isolation(&owner));
    finish(owner.stream());
    finish(mate.stream());
    assert!(words(&a).iter().all(|&w| w == 0), "an abandoned window ran");
    assert!(a.check(..).unwrap().is_clean(), "abandoning tainted");
}
