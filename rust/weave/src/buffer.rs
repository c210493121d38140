//! Buffers: GEM objects whose handle is closed when the last clone drops,
//! read, written, mapped, and shared as dma-buf file descriptors.

use std::fmt;
use std::ops::RangeBounds;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::{Arc, Weak};

use weave_sys as sys;

use crate::device::Device;
use crate::error::{Errno, Error, Result};
use crate::failure::Report;
use crate::ffi;
use crate::task::resolve;
use crate::Timeout;

/// A weave buffer.  Clones share it; the GEM handle is closed when the
/// last clone drops.  Queued tasks keep the buffer alive in the kernel, so
/// dropping it while work uses it is safe.
#[derive(Clone)]
pub struct Buffer {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    device: Device,
    handle: u32,
    size: u64,
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("handle", &self.inner.handle)
            .field("size", &self.inner.size)
            .finish()
    }
}

impl Buffer {
    /// Creates a buffer of at least `size` bytes (rounded up to the page
    /// size), reading as zeroes.
    pub fn new(device: &Device, size: u64) -> Result<Buffer> {
        Buffer::with_flags(device, size, 0)
    }

    /// Creates a buffer that can never be mapped (`DRM_WEAVE_BO_NO_MMAP`).
    pub fn new_unmappable(device: &Device, size: u64) -> Result<Buffer> {
        Buffer::with_flags(device, size, sys::DRM_WEAVE_BO_NO_MMAP)
    }

    fn with_flags(device: &Device, size: u64, flags: u32) -> Result<Buffer> {
        let mut handles = device.handles();
        let (handle, size) = ffi::bo_create(device.fd(), size, flags)?;
        Ok(Buffer::adopt(device, &mut handles, handle, size))
    }

    /// Imports a dma-buf file descriptor (which stays the caller's).  A
    /// buffer this device file already holds comes back as a clone of it.
    pub fn import(device: &Device, dmabuf: BorrowedFd<'_>) -> Result<Buffer> {
        let mut handles = device.handles();
        let handle = ffi::bo_import(device.fd(), dmabuf)?;
        if let Some(live) = handles.get(&handle).and_then(Weak::upgrade) {
            return Ok(Buffer { inner: live });
        }
        let size = file_size(dmabuf)?;
        Ok(Buffer::adopt(device, &mut handles, handle, size))
    }

    fn adopt(
        device: &Device,
        handles: &mut crate::device::Handles,
        handle: u32,
        size: u64,
    ) -> Buffer {
        let inner = Arc::new(Inner {
            device: device.clone(),
            handle,
            size,
        });
        handles.insert(handle, Arc::downgrade(&inner));
        Buffer { inner }
    }

    /// A buffer of a made-up handle, for the host tests' encodings.
    #[cfg(test)]
    pub(crate) fn fake(device: &Device, handle: u32, size: u64) -> Buffer {
        Buffer::adopt(device, &mut device.handles(), handle, size)
    }

    /// The GEM handle, meaningful in this buffer's device file only.
    pub fn handle(&self) -> u32 {
        self.inner.handle
    }

    /// The size in bytes.
    pub fn size(&self) -> u64 {
        self.inner.size
    }

    /// The device file that holds the buffer.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// Exports the buffer as a dma-buf file descriptor (close-on-exec,
    /// mappable read-write).
    pub fn export(&self) -> Result<OwnedFd> {
        ffi::bo_export(self.device().fd(), self.handle())
    }

    /// Maps the whole buffer, shared with the device.
    pub fn map(&self) -> Result<Mapping> {
        let len = usize::try_from(self.size()).map_err(|_| Error::Os(Errno::TooBig))?;
        let map = ffi::Mapping::new(self.device().fd(), self.handle(), len)?;
        Ok(Mapping {
            _buffer: self.clone(),
            map,
        })
    }

    /// Reads `out.len()` bytes at `offset` once every writer of the buffer
    /// is done (READ): [`Error::Failed`] with the report if some of them
    /// carry failures, and then nothing is copied.
    pub fn read_into(&self, offset: u64, out: &mut [u8], timeout: Timeout) -> Result<()> {
        ffi::read(
            self.device().fd(),
            self.handle(),
            offset,
            out,
            timeout.deadline(),
        )
    }

    /// Reads a range (READ), waiting forever for its writers.
    pub fn read_range(&self, range: impl RangeBounds<u64>) -> Result<Vec<u8>> {
        let (offset, size) = resolve(range, self.size());
        let len = usize::try_from(size).map_err(|_| Error::Os(Errno::TooBig))?;
        let mut out = vec![0; len];
        self.read_into(offset, &mut out, Timeout::Forever)?;
        Ok(out)
    }

    /// The failures on a range now (CHECK), without waiting for work in
    /// flight: wait for the range's writers first.
    pub fn check(&self, range: impl RangeBounds<u64>) -> Result<Report> {
        let (offset, size) = resolve(range, self.size());
        ffi::check_range(self.device().fd(), self.handle(), offset, size)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let mut handles = self.device.handles();
        // An import may have adopted the handle again after this buffer's
        // last clone went: then the handle is that buffer's to close.
        let ours = handles
            .get(&self.handle)
            .map_or(true, |w| std::ptr::eq(w.as_ptr(), self));
        if ours {
            handles.remove(&self.handle);
            let _ = ffi::bo_close(self.device.fd(), self.handle);
        }
    }
}

/// The size of a dma-buf, by seeking to its end.
fn file_size(fd: BorrowedFd<'_>) -> Result<u64> {
    let file = std::fs::File::from(fd.try_clone_to_owned().map_err(io_error)?);
    let mut f = &file;
    std::io::Seek::seek(&mut f, std::io::SeekFrom::End(0)).map_err(io_error)
}

fn io_error(e: std::io::Error) -> Error {
    Error::Os(Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO)))
}

/// A shared mapping of a whole buffer; unmapped on drop.  It copies bytes
/// in and out instead of lending slices, as the device may write the
/// memory at any time.  It bypasses weave's ordering and failures: bytes
/// are as they are, tainted or not.
#[derive(Debug)]
pub struct Mapping {
    _buffer: Buffer,
    map: ffi::Mapping,
}

impl Mapping {
    /// The mapped length in bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the mapping is empty (never, for a weave buffer).
    pub fn is_empty(&self) -> bool {
        self.map.len() == 0
    }

    /// Copies bytes at `offset` into `out`; `-EINVAL` past the end.
    pub fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.map.read(offset, out)
    }

    /// Copies `data` to `offset`; `-EINVAL` past the end.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.map.write(offset, data)
    }
}
