//! Streams: a logical queue of tasks, destroyed on drop; enqueue, flush
//! and wait.

use weave_sys as sys;

use crate::device::Device;
use crate::error::{Errno, Error, Result};
use crate::ffi;
use crate::task::Task;
use crate::Timeout;

/// A stream's scheduling priority (`enum drm_weave_priority`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Priority {
    /// Runs after normal and high work.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Runs first; needs `CAP_SYS_NICE` (else `-EPERM`).
    High,
}

/// A stream's counters and state, as `DRM_IOCTL_WEAVE_STREAM_QUERY`
/// reports them (fields are documented in `weave-sys`).
pub type StreamState = sys::drm_weave_stream_query;

/// A stream's sequence number: the count of tasks enqueued on it so far.
pub type Seqno = u64;

/// A logical stream of a device file.  Dropping it destroys it: tasks
/// still queued are executed first, and the drop does not wait for them.
#[derive(Debug)]
pub struct Stream {
    device: Device,
    handle: u32,
}

impl Stream {
    /// Creates a stream of normal priority.
    pub fn new(device: &Device) -> Result<Stream> {
        Stream::with_priority(device, Priority::Normal)
    }

    /// Creates a stream of the given priority.
    pub fn with_priority(device: &Device, priority: Priority) -> Result<Stream> {
        let p = match priority {
            Priority::Low => sys::DRM_WEAVE_PRIORITY_LOW,
            Priority::Normal => sys::DRM_WEAVE_PRIORITY_NORMAL,
            Priority::High => sys::DRM_WEAVE_PRIORITY_HIGH,
        };
        let handle = ffi::stream_create(device.fd(), p)?;
        Ok(Stream {
            device: device.clone(),
            handle,
        })
    }

    /// The stream's handle in its device file.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// The device file of the stream.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Queues tasks, in order; either all or none.  Returns the stream's
    /// sequence number after the last one.  A task that binds a buffer of
    /// another device file is refused with `NotFound` (`-ENOENT`), as the
    /// kernel refuses a handle that names nothing in the file: its handle
    /// could name another buffer in this one.
    pub fn enqueue(&self, tasks: &[Task]) -> Result<Seqno> {
        self.check_buffers(tasks)?;
        ffi::enqueue(self.device.fd(), self.handle, false, tasks).map_err(|(_, e)| e)
    }

    /// Queues tasks and submits everything queued on the stream, in one
    /// call (ENQUEUE with `DRM_WEAVE_ENQUEUE_FLUSH`).  On
    /// `Err((seqno, InProgress))` the tasks were queued but not all
    /// submitted: do not enqueue them again; [`Stream::flush`].  Other
    /// errors queued nothing (their seqno is 0); a buffer of another
    /// device file is refused as [`Stream::enqueue`] refuses it.
    pub fn enqueue_flush(&self, tasks: &[Task]) -> std::result::Result<Seqno, (Seqno, Error)> {
        self.check_buffers(tasks).map_err(|e| (0, e))?;
        ffi::enqueue(self.device.fd(), self.handle, true, tasks)
    }

    /// `NotFound` unless every buffer the tasks bind is of this stream's
    /// device file.
    fn check_buffers(&self, tasks: &[Task]) -> Result<()> {
        let foreign = tasks
            .iter()
            .flat_map(Task::buffers)
            .any(|b| !b.device().same_file(&self.device));
        if foreign {
            return Err(Error::Os(Errno::NotFound));
        }
        Ok(())
    }

    /// Submits the stream's queued tasks; does not wait.
    pub fn flush(&self) -> Result<()> {
        ffi::flush(self.device.fd(), Some(self.handle))
    }

    /// Waits until everything flushed so far on the stream has completed.
    pub fn wait(&self, timeout: Timeout) -> Result<()> {
        ffi::wait(self.device.fd(), self.handle, None, timeout.deadline())
    }

    /// Waits until the stream's tasks up to `seqno` have completed (flush
    /// them first).
    pub fn wait_seqno(&self, seqno: Seqno, timeout: Timeout) -> Result<()> {
        ffi::wait(
            self.device.fd(),
            self.handle,
            Some(seqno),
            timeout.deadline(),
        )
    }

    /// The stream's counters and state.
    pub fn state(&self) -> Result<StreamState> {
        ffi::stream_query(self.device.fd(), self.handle)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = ffi::stream_destroy(self.device.fd(), self.handle);
    }
}
