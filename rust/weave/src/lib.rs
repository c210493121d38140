//! Safe Rust API for weave, the kernel's multi-stream GPU task scheduler.
//!
//! weave is a DRM render node: buffers are GEM objects, tasks (launches of
//! built-in kernels, host writes) go to logical streams, the kernel orders
//! them across streams by the bytes they share, and failures live on bytes:
//! a failed task taints what it should have written, and tasks that read
//! tainted bytes are skipped.  This crate wraps libweave with owned types:
//!
//! - [`Device`]: an open device file;
//! - [`Buffer`]: a buffer, closed when its last clone drops, read with
//!   [`Buffer::read_range`], mapped, shared as a dma-buf;
//! - [`Stream`]: a stream, destroyed on drop, that takes [`Task`]s;
//! - [`Error`]: every errno of the uAPI as an [`Errno`], and failure
//!   [`Report`]s as values.
//!
//! ```no_run
//! use weave::{Buffer, Device, Stream, Task, Timeout};
//!
//! let dev = Device::open(0)?;
//! let (a, b) = (Buffer::new(&dev, 4096)?, Buffer::new(&dev, 4096)?);
//! let s = Stream::new(&dev)?;
//! s.enqueue(&[
//!     Task::fill(a.write(..), 7),
//!     Task::copy(a.read(..), b.write(..)),
//! ])?;
//! s.flush()?;
//! s.wait(Timeout::Forever)?;
//! assert_eq!(b.read_range(0..4)?, 7u32.to_ne_bytes());
//! # Ok::<(), weave::Error>(())
//! ```
//!
//! The seed's `SchedulerStreamBackend` trait and its implementation over
//! weave are in [`backend`].
#![deny(missing_docs, unsafe_code)]

pub mod backend;
mod buffer;
mod capture;
mod device;
mod error;
mod failure;
mod ffi;
mod stream;
mod task;

pub use buffer::{Buffer, Mapping};
pub use capture::Graph;
pub use device::{ClientUsage, Device, DeviceInfo, MemoryUsage};
pub use error::{Errno, Error, Result};
pub use failure::{Cause, FailedTask, Failure, FailureId, Report, TaskOrigin};
pub use stream::{Priority, Seqno, Stream, StreamState};
pub use task::{Kernel, Launch, Read, ReadWrite, Task, TaskKind, Write};

use std::time::Duration;

/// How long a wait may last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// Do not wait: poll.
    Poll,
    /// Wait until done (a fatal signal still ends it).
    Forever,
    /// Wait at most this long from now.
    After(Duration),
}

impl Timeout {
    /// The absolute `CLOCK_MONOTONIC` deadline in nanoseconds, as the
    /// uAPI takes it.
    pub(crate) fn deadline(self) -> i64 {
        match self {
            Timeout::Poll => 0,
            Timeout::Forever => i64::MAX,
            Timeout::After(d) => ffi::timeout_ns(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
        }
    }
}

#[cfg(test)]
mod tests;
