//! The seed's trait, `SchedulerStreamBackend`, with `StreamFactory`,
//! `StreamMemory` and `ErrorGraph`, and its implementation over weave.
//!
//! A scheduler of logical streams (CubeCL's multi-stream scheduler is the
//! model) drives a backend through this trait alone: it makes backend
//! streams with the backend's [`StreamFactory`], hands each task to
//! [`SchedulerStreamBackend::enqueue`] on the stream it chose, calls
//! [`SchedulerStreamBackend::flush`] where streams must be ordered, and
//! falls back to running a stream's tasks on that stream alone while
//! [`SchedulerStreamBackend::requires_isolation`] says so.  Failures live
//! on bytes: the [`ErrorGraph`] records which failure spoiled which bytes
//! of which buffer, and the tasks it made the device skip.
//!
//! [`WeaveBackend`] implements it over weave: a backend stream is a weave
//! [`Stream`], a task a weave [`Task`], and the error graph is filled from
//! the kernel's own failure reports (CHECK), where the truth lives.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::ops::Range;

use crate::{Buffer, Device, Error, Failure, FailureId, Graph, Result, Stream, Task};

/// A backend that runs tasks on streams of its own.
///
/// Not dyn-compatible: its functions take streams, not `self`.
pub trait SchedulerStreamBackend {
    /// A unit of work: a kernel launch or a host write.
    type Task: Debug;
    /// A backend stream, which shows the memory its kernels see.
    type Stream: Debug + StreamMemory;
    /// What makes the backend's streams.
    type Factory: StreamFactory<Stream = Self::Stream>;

    /// Queues `task` on `stream`.  `failures` is the device's failure
    /// store: running a task reserves memory (staging, uniforms), and
    /// reserving is where a pool sheds the failures its slices carry.
    fn enqueue(task: Self::Task, stream: &mut Self::Stream, failures: &mut ErrorGraph);

    /// Submits what is queued on `stream`, so that other streams are
    /// ordered after it.
    fn flush(stream: &mut Self::Stream, failures: &mut ErrorGraph);

    /// The backend's stream factory.
    fn factory(&mut self) -> &mut Self::Factory;

    /// Whether `stream` must run its own tasks alone: none of them
    /// interleaved onto another stream, no other stream's onto it.  While
    /// a stream involved in an execution requires it, the scheduler takes
    /// the sequential path.  A graph capture holds it for its whole window.
    fn requires_isolation(_stream: &Self::Stream) -> bool {
        false
    }
}

/// Makes a backend's streams.
pub trait StreamFactory {
    /// The stream it makes.
    type Stream;
    /// Why it could not make one.
    type Error: Debug;

    /// Makes a new stream.
    fn create_stream(&mut self) -> std::result::Result<Self::Stream, Self::Error>;
}

/// A stream's view of the memory its kernels see: which failure a range
/// carries, tainting it, and marking it written.
pub trait StreamMemory {
    /// The backend's buffer.
    type Buffer;

    /// The failures on `range` of `buffer` now, recorded into `failures`;
    /// empty if every byte is good.
    fn failures_of(
        &mut self,
        buffer: &Self::Buffer,
        range: Range<u64>,
        failures: &mut ErrorGraph,
    ) -> Vec<FailureId>;

    /// Records that `failure` spoils `range` of `buffer`.
    fn taint(
        &mut self,
        buffer: &Self::Buffer,
        range: Range<u64>,
        failure: FailureId,
        failures: &mut ErrorGraph,
    );

    /// Records that `range` of `buffer` was written successfully: its
    /// bytes are good again.
    fn mark_written(&mut self, buffer: &Self::Buffer, range: Range<u64>, failures: &mut ErrorGraph);
}

/// A buffer as the error graph names it: a number the backend chooses
/// (weave's GEM handle).
pub type BufferKey = u64;

/// A failure's claim on bytes: `range` of buffer `buffer` carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The buffer.
    pub buffer: BufferKey,
    /// Its bytes.
    pub range: Range<u64>,
    /// The failure they carry.
    pub failure: FailureId,
}

/// The failure graph: failures by id (never reused), their claims on byte
/// ranges of buffers, and for each failure its root and the tasks it made
/// the device skip.
#[derive(Debug, Default)]
pub struct ErrorGraph {
    failures: BTreeMap<FailureId, Failure>,
    claims: Vec<Claim>,
}

impl ErrorGraph {
    /// An empty graph.
    pub fn new() -> ErrorGraph {
        ErrorGraph::default()
    }

    /// Records a failure (a newer report of the same id replaces the
    /// older: it has more skips).
    pub fn record(&mut self, failure: Failure) -> FailureId {
        let id = failure.id;
        self.failures.insert(id, failure);
        id
    }

    /// Records that `range` of `buffer` carries `failure`.
    pub fn claim(&mut self, buffer: BufferKey, range: Range<u64>, failure: FailureId) {
        let c = Claim {
            buffer,
            range,
            failure,
        };
        if !self.claims.contains(&c) {
            self.claims.push(c);
        }
    }

    /// Forgets the claims on `range` of `buffer`: those bytes are good.
    /// A claim that sticks out of the range keeps its other bytes.
    pub fn clear(&mut self, buffer: BufferKey, range: Range<u64>) {
        let mut kept = Vec::with_capacity(self.claims.len());
        for c in self.claims.drain(..) {
            if c.buffer != buffer || c.range.end <= range.start || c.range.start >= range.end {
                kept.push(c);
                continue;
            }
            if c.range.start < range.start {
                kept.push(Claim {
                    range: c.range.start..range.start,
                    ..c.clone()
                });
            }
            if c.range.end > range.end {
                kept.push(Claim {
                    range: range.end..c.range.end,
                    ..c
                });
            }
        }
        self.claims = kept;
    }

    /// The failures that claim bytes of `range` of `buffer`, by id.
    pub fn failures_on(&self, buffer: BufferKey, range: Range<u64>) -> Vec<FailureId> {
        let mut ids: Vec<_> = self
            .claims
            .iter()
            .filter(|c| {
                c.buffer == buffer && c.range.start < range.end && range.start < c.range.end
            })
            .map(|c| c.failure)
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// A recorded failure.
    pub fn failure(&self, id: FailureId) -> Option<&Failure> {
        self.failures.get(&id)
    }

    /// Every recorded failure, by id.
    pub fn failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.values()
    }

    /// Every claim.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty() && self.claims.is_empty()
    }
}

/// weave as a stream backend.
#[derive(Debug)]
pub struct WeaveBackend {
    factory: WeaveStreamFactory,
}

impl WeaveBackend {
    /// A backend over an open device.
    pub fn new(device: &Device) -> WeaveBackend {
        WeaveBackend {
            factory: WeaveStreamFactory {
                device: device.clone(),
            },
        }
    }
}

/// Makes weave streams on a device.
#[derive(Debug)]
pub struct WeaveStreamFactory {
    device: Device,
}

impl StreamFactory for WeaveStreamFactory {
    type Stream = WeaveStream;
    type Error = Error;

    fn create_stream(&mut self) -> Result<WeaveStream> {
        Ok(WeaveStream {
            stream: Stream::new(&self.device)?,
            capturing: false,
            errors: Vec::new(),
        })
    }
}

/// A weave stream as a backend stream.  Calls of the trait return nothing,
/// so the errors of their ioctls are kept here: [`WeaveStream::take_errors`].
#[derive(Debug)]
pub struct WeaveStream {
    stream: Stream,
    capturing: bool,
    errors: Vec<Error>,
}

impl WeaveStream {
    /// The weave stream.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The errors of the trait's calls on this stream since the last take,
    /// oldest first.
    pub fn take_errors(&mut self) -> Vec<Error> {
        std::mem::take(&mut self.errors)
    }

    /// Opens a capture window: the stream requires isolation until it ends.
    pub fn begin_capture(&mut self) -> Result<()> {
        self.stream.begin_capture()?;
        self.capturing = true;
        Ok(())
    }

    /// Closes the window, if any, without a graph; the isolation ends
    /// with it.  Open and close windows through these calls, not through
    /// [`WeaveStream::stream`], or `requires_isolation` will not know.
    pub fn abort_capture(&mut self) -> Result<()> {
        self.stream.abort_capture()?;
        self.capturing = false;
        Ok(())
    }

    /// Ends the window with a graph; the isolation ends with it.
    pub fn end_capture(&mut self) -> Result<Graph> {
        let g = self.stream.end_capture();
        // END closes the window whether or not it made a graph, except
        // when it found the file at max_graphs (-ENOSPC): it records on.
        if !matches!(&g, Err(e) if e.errno() == crate::Errno::NoSpace) {
            self.capturing = false;
        }
        g
    }
}

impl StreamMemory for WeaveStream {
    type Buffer = Buffer;

    /// Asks the kernel (CHECK) and records its report: the failures and
    /// their claims on the range.
    fn failures_of(
        &mut self,
        buffer: &Buffer,
        range: Range<u64>,
        failures: &mut ErrorGraph,
    ) -> Vec<FailureId> {
        let key = u64::from(buffer.handle());
        match buffer.check(range.clone()) {
            Ok(report) => {
                failures.clear(key, range.clone());
                let ids: Vec<_> = report
                    .failures
                    .into_iter()
                    .map(|f| failures.record(f))
                    .collect();
                for &id in &ids {
                    failures.claim(key, range.clone(), id);
                }
                ids
            }
            Err(e) => {
                self.errors.push(e);
                failures.failures_on(key, range)
            }
        }
    }

    /// The kernel taints bytes itself; this records the claim in the graph.
    fn taint(
        &mut self,
        buffer: &Buffer,
        range: Range<u64>,
        failure: FailureId,
        failures: &mut ErrorGraph,
    ) {
        failures.claim(u64::from(buffer.handle()), range, failure);
    }

    /// The kernel clears bytes a task writes; this forgets the claims.
    fn mark_written(&mut self, buffer: &Buffer, range: Range<u64>, failures: &mut ErrorGraph) {
        failures.clear(u64::from(buffer.handle()), range);
    }
}

impl SchedulerStreamBackend for WeaveBackend {
    type Task = Task;
    type Stream = WeaveStream;
    type Factory = WeaveStreamFactory;

    /// Queues the task (ENQUEUE).  The kernel orders it against other
    /// streams by the bytes it binds, and taints and skips by bytes; the
    /// graph learns of failures when a range is asked about
    /// ([`StreamMemory::failures_of`]).
    fn enqueue(task: Task, stream: &mut WeaveStream, _failures: &mut ErrorGraph) {
        if let Err(e) = stream.stream.enqueue(std::slice::from_ref(&task)) {
            stream.errors.push(e);
        }
    }

    /// Submits the stream's queued tasks (FLUSH).  A stream in its capture
    /// window has nothing to submit: its launches are recorded, not run,
    /// and the kernel refuses its FLUSH (`-EBUSY`); flushing it is no
    /// error, so a scheduler may flush all its streams whatever their
    /// isolation.
    fn flush(stream: &mut WeaveStream, _failures: &mut ErrorGraph) {
        if stream.capturing {
            return;
        }
        if let Err(e) = stream.stream.flush() {
            stream.errors.push(e);
        }
    }

    fn factory(&mut self) -> &mut WeaveStreamFactory {
        &mut self.factory
    }

    /// True while the stream is in a capture window: from
    /// [`WeaveStream::begin_capture`] until its
    /// [`WeaveStream::end_capture`] or [`WeaveStream::abort_capture`]
    /// returns (but END's `NoSpace`, after which the window records on).
    /// A window that another stream of the slot abandoned counts until
    /// then, as nothing tells the owner before its own END (`BadState`).
    fn requires_isolation(stream: &WeaveStream) -> bool {
        stream.capturing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_keeps_the_bytes_outside_the_range() {
        let mut g = ErrorGraph::new();
        g.claim(1, 0..100, FailureId(7));
        g.claim(2, 0..100, FailureId(8));
        g.clear(1, 40..60);
        assert_eq!(g.failures_on(1, 40..60), vec![]);
        assert_eq!(g.failures_on(1, 0..41), vec![FailureId(7)]);
        assert_eq!(g.failures_on(1, 59..61), vec![FailureId(7)]);
        assert_eq!(g.failures_on(2, 50..51), vec![FailureId(8)]);
        assert_eq!(g.claims().len(), 3);
    }

    #[test]
    fn failures_on_reports_each_id_once_in_order() {
        let mut g = ErrorGraph::new();
        g.claim(1, 0..10, FailureId(9));
        g.claim(1, 20..30, FailureId(3));
        g.claim(1, 20..30, FailureId(3));
        g.claim(1, 25..40, FailureId(9));
        assert_eq!(g.failures_on(1, 0..100), vec![FailureId(3), FailureId(9)]);
        assert_eq!(g.failures_on(1, 10..20), vec![]);
        assert_eq!(g.claims().len(), 3);
        assert!(!g.is_empty());
    }

    #[test]
    fn isolation_is_off_by_default() {
        #[derive(Debug)]
        struct S;
        impl StreamMemory for S {
            type Buffer = ();
            fn failures_of(&mut self, _: &(), _: Range<u64>, _: &mut ErrorGraph) -> Vec<FailureId> {
                Vec::new()
            }
            fn taint(&mut self, _: &(), _: Range<u64>, _: FailureId, _: &mut ErrorGraph) {}
            fn mark_written(&mut self, _: &(), _: Range<u64>, _: &mut ErrorGraph) {}
        }
        struct F;
        impl StreamFactory for F {
            type Stream = S;
            type Error = ();
            fn create_stream(&mut self) -> std::result::Result<S, ()> {
                Ok(S)
            }
        }
        struct B(F);
        impl SchedulerStreamBackend for B {
            type Task = u32;
            type Stream = S;
            type Factory = F;
            fn enqueue(_: u32, _: &mut S, _: &mut ErrorGraph) {}
            fn flush(_: &mut S, _: &mut ErrorGraph) {}
            fn factory(&mut self) -> &mut F {
                &mut self.0
            }
        }
        let mut b = B(F);
        let s = b.factory().create_stream().unwrap();
        assert!(!B::requires_isolation(&s));
    }
}
