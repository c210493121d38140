//! The seed's trait driven end to end over weave: a generic scheduler
//! client that knows only `SchedulerStreamBackend`, `StreamFactory` and
//! `StreamMemory`, run with `WeaveBackend`; the errors of its calls kept
//! on the streams.

use std::ops::Range;

use weave::backend::{
    ErrorGraph, SchedulerStreamBackend, StreamFactory, StreamMemory, WeaveBackend, WeaveStream,
};
use weave::{Buffer, Device, Errno, FailureId, Task};

use crate::util::{device, to_words, PAGE, WAIT};

tests!(
    "backend":
    trait_end_to_end,
    call_errors_kept,
);

/// What a scheduler does through the trait alone: makes `n` streams,
/// hands each task to the stream the plan names, taking the sequential
/// path (everything on the first stream) while a stream requires
/// isolation, and flushes every stream.
fn schedule<B: SchedulerStreamBackend>(
    backend: &mut B,
    streams: &mut Vec<B::Stream>,
    n: usize,
    plan: Vec<(usize, B::Task)>,
    failures: &mut ErrorGraph,
) {
    while streams.len() < n {
        streams.push(backend.factory().create_stream().expect("create a stream"));
    }
    let sequential = streams.iter().any(B::requires_isolation);
    for (i, task) in plan {
        let on = if sequential { 0 } else { i };
        B::enqueue(task, &mut streams[on], failures);
    }
    for s in streams.iter_mut() {
        B::flush(s, failures);
    }
}

/// What the client asks of the memory through the trait: the failures on
/// a range, recorded into the graph.
fn failures_on<S: StreamMemory<Buffer = Buffer>>(
    stream: &mut S,
    buffer: &Buffer,
    range: Range<u64>,
    failures: &mut ErrorGraph,
) -> Vec<FailureId> {
    stream.failures_of(buffer, range, failures)
}

fn wait_all(streams: &mut [WeaveStream]) {
    for s in streams {
        s.stream().wait(WAIT).unwrap();
        let errors = s.take_errors();
        assert!(errors.is_empty(), "{:?}", errors);
    }
}

/// Three streams sharing buffers; a failure followed from its root to the
/// bytes it spoiled and the task it skipped, in the error graph; a window
/// on one stream sends the next batch down the sequential path; a good
/// write clears the graph's claims.
fn trait_end_to_end() {
    let dev: Device = device();
    let mut backend = WeaveBackend::new(&dev);
    let mut streams = Vec::new();
    let mut graph = ErrorGraph::new();
    let buf = || Buffer::new(&dev, PAGE).unwrap();
    let (a, b, c, bad, spoiled) = (buf(), buf(), buf(), buf(), buf());

    // Stage 1: a chain across streams, and a failing branch beside it.
    let plan = vec![
        (0, Task::fill(a.write(..), 10)),
        (1, Task::copy(a.read(..), b.write(..))),
        (2, Task::add_u32(a.read(..), b.read(..), c.write(..))),
        (1, Task::fail(libc::ENOLINK, [bad.write(0..256)]).label(401)),
        (
            2,
            Task::copy(bad.read(0..256), spoiled.write(512..768)).label(402),
        ),
    ];
    schedule(&mut backend, &mut streams, 3, plan, &mut graph);
    wait_all(&mut streams);
    assert_eq!(to_words(&c.read_range(..).unwrap()), vec![20; 1024]);

    let s0 = &mut streams[0];
    assert!(failures_on(s0, &c, 0..PAGE, &mut graph).is_empty());
    let ids = failures_on(s0, &spoiled, 0..PAGE, &mut graph);
    assert_eq!(ids.len(), 1);
    let f = graph.failure(ids[0]).expect("recorded").clone();
    assert_eq!(f.error, Errno::Other(libc::ENOLINK));
    assert_eq!(f.root.own.unwrap().label, 401);
    assert_eq!(f.skips.len(), 1);
    assert_eq!(f.skips[0].own.unwrap().label, 402);
    assert_eq!(
        failures_on(s0, &bad, 0..PAGE, &mut graph),
        ids,
        "the root's bytes carry the same failure"
    );
    // The bytes outside what was spoiled are good, for the kernel and the
    // graph alike.
    assert!(failures_on(s0, &spoiled, 0..512, &mut graph).is_empty());
    assert_eq!(graph.failures_on(u64::from(bad.handle()), 0..PAGE), ids);

    // Stage 2: a window on stream 2; the next batch goes sequential.
    streams[2].begin_capture().unwrap();
    assert!(WeaveBackend::requires_isolation(&streams[2]));
    let plan = vec![
        (1, Task::host_write(&bad, 0, vec![1u8; 256])),
        (2, Task::copy(bad.read(0..256), spoiled.write(512..768))),
    ];
    schedule(&mut backend, &mut streams, 3, plan, &mut graph);
    let g = streams[2].end_capture().unwrap();
    assert_eq!(g.tasks(), 0, "the sequential path put work in the window");
    assert!(!WeaveBackend::requires_isolation(&streams[2]));
    wait_all(&mut streams);
    let s0 = &mut streams[0];
    assert!(failures_on(s0, &spoiled, 0..PAGE, &mut graph).is_empty());
    assert!(failures_on(s0, &bad, 0..PAGE, &mut graph).is_empty());
    assert!(graph.claims().is_empty(), "{:?}", graph.claims());
    assert_eq!(spoiled.read_range(512..768).unwrap(), vec![1u8; 256]);
    // The graph keeps what it learnt of the failure.
    assert!(graph.failure(ids[0]).is_some());
    // Marking bytes written through the trait forgets their claims.
    s0.taint(&a, 0..64, ids[0], &mut graph);
    assert_eq!(graph.failures_on(u64::from(a.handle()), 0..PAGE), ids);
    s0.mark_written(&a, 0..64, &mut graph);
    assert!(graph.claims().is_empty());
}

/// The trait's calls return nothing: refused enqueues (-EINVAL for a
/// range past the end, -ENOENT for another file's buffer) are kept on the
/// stream, in order, and taken once; a flush of a recording stream is no
/// error (the kernel's -EBUSY is not passed on) and runs nothing; a CHECK
/// that fails keeps its error and answers from the graph.
fn call_errors_kept() {
    let dev = device();
    let mut backend = WeaveBackend::new(&dev);
    let mut graph = ErrorGraph::new();
    let mut s = backend.factory().create_stream().unwrap();
    let a = Buffer::new(&dev, PAGE).unwrap();
    let theirs = Buffer::new(&device(), PAGE).unwrap();
    WeaveBackend::enqueue(Task::fill(a.write(0..PAGE + 4), 1), &mut s, &mut graph);
    WeaveBackend::enqueue(Task::fill(theirs.write(..), 1), &mut s, &mut graph);
    s.begin_capture().unwrap();
    WeaveBackend::enqueue(Task::fill(a.write(..), 2), &mut s, &mut graph);
    WeaveBackend::flush(&mut s, &mut graph);
    let g = s.end_capture().unwrap();
    assert_eq!(g.tasks(), 1);
    let errors: Vec<Errno> = s.take_errors().iter().map(|e| e.errno()).collect();
    assert_eq!(errors, [Errno::InvalidArgument, Errno::NotFound]);
    assert!(s.take_errors().is_empty());
    assert_eq!(a.read_range(0..4).unwrap(), [0; 4], "the window's fill ran");
    graph.claim(u64::from(a.handle()), 0..8, FailureId(99));
    let ids = s.failures_of(&a, 0..PAGE + 1, &mut graph);
    assert_eq!(ids, [FailureId(99)]);
    let errors: Vec<Errno> = s.take_errors().iter().map(|e| e.errno()).collect();
    assert_eq!(errors, [Errno::InvalidArgument]);
    WeaveBackend::flush(&mut s, &mut graph);
    s.stream().wait(WAIT).unwrap();
    assert!(s.take_errors().is_empty());
}
