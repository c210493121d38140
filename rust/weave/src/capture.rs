//! Graph capture: a stream's window (prepare, begin, end) sealed into a
//! graph that replays on any stream of the file, destroyed on drop.

use weave_sys as sys;

use crate::device::Device;
use crate::error::{Errno, Error, Result};
use crate::ffi;
use crate::stream::{Seqno, Stream};

/// A captured graph of launches.  Dropping it destroys it; replays still
/// in flight keep their buffers and complete.
#[derive(Debug)]
pub struct Graph {
    device: Device,
    handle: u32,
    tasks: u32,
}

impl Graph {
    /// The graph's handle in its device file.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// How many tasks the window recorded.
    pub fn tasks(&self) -> u32 {
        self.tasks
    }

    /// Queues and submits the graph's tasks on `stream`, in their recorded
    /// order; returns the sequence number of the last one.  A stream of
    /// another device file is refused with `NotFound` (`-ENOENT`): the
    /// graph's handle names nothing there, or another graph.
    pub fn replay(&self, stream: &Stream) -> Result<Seqno> {
        if !stream.device().same_file(&self.device) {
            return Err(Error::Os(Errno::NotFound));
        }
        ffi::replay(self.device.fd(), self.handle, stream.handle()).map_err(|(_, e)| e)
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        let _ = ffi::graph_destroy(self.device.fd(), self.handle);
    }
}

impl Stream {
    /// Opens a capture window on the stream's slot (PREPARE then BEGIN):
    /// from now the stream's launches are recorded, not run, and the slot
    /// is isolated until [`Stream::end_capture`] or
    /// [`Stream::abort_capture`].
    pub fn begin_capture(&self) -> Result<()> {
        ffi::capture(
            self.device().fd(),
            self.handle(),
            sys::DRM_WEAVE_CAPTURE_PREPARE,
        )
        .0?;
        let (r, _) = ffi::capture(
            self.device().fd(),
            self.handle(),
            sys::DRM_WEAVE_CAPTURE_BEGIN,
        );
        if r.is_err() {
            let _ = self.abort_capture();
        }
        r
    }

    /// Seals the recording into a graph and closes the window.
    pub fn end_capture(&self) -> Result<Graph> {
        let (r, out) = ffi::capture(
            self.device().fd(),
            self.handle(),
            sys::DRM_WEAVE_CAPTURE_END,
        );
        r?;
        Ok(Graph {
            device: self.device().clone(),
            handle: out.graph,
            tasks: out.ntasks,
        })
    }

    /// Closes the window without a graph.
    pub fn abort_capture(&self) -> Result<()> {
        let (r, _) = ffi::capture(
            self.device().fd(),
            self.handle(),
            sys::DRM_WEAVE_CAPTURE_ABORT,
        );
        r
    }
}
