//! Devices: a weave render node's open file, shared by its buffers and
//! streams, and closed when the last of them drops.

use std::collections::HashMap;
use std::ffi::CString;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use weave_sys as sys;

use crate::buffer;
use crate::error::{Errno, Error, Result};
use crate::ffi;

/// What `DRM_WEAVE_QUERY_DEVICE_INFO` reports: the uAPI version and the
/// device's limits (fields are documented in `weave-sys`).
pub type DeviceInfo = sys::drm_weave_device_info;
/// What `DRM_WEAVE_QUERY_CLIENT_USAGE` reports for this file.
pub type ClientUsage = sys::drm_weave_client_usage;
/// What `DRM_WEAVE_QUERY_MEMORY_USAGE` reports for the whole device.
pub type MemoryUsage = sys::drm_weave_memory_usage;

pub(crate) type Handles<'a> = MutexGuard<'a, HashMap<u32, Weak<buffer::Inner>>>;

/// An open weave device file.  Clones share the file; it is closed when
/// the last clone, buffer and stream of it drops.  `Send` and `Sync`: the
/// kernel serialises each file's calls, and libweave keeps no state.
#[derive(Clone, Debug)]
pub struct Device {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    fd: OwnedFd,
    /// The live buffers by handle, so that importing a buffer the file
    /// already holds shares it instead of closing its handle twice.
    buffers: Mutex<HashMap<u32, Weak<buffer::Inner>>>,
}

impl Device {
    pub(crate) fn from_fd(fd: OwnedFd) -> Device {
        Device {
            inner: Arc::new(Inner {
                fd,
                buffers: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Opens the weave device numbered `index` (0 for the first).
    pub fn open(index: u32) -> Result<Device> {
        ffi::device_open(index).map(Device::from_fd)
    }

    /// Opens a device node by path, checking it is a weave device
    /// (`-ENODEV` if not).
    pub fn open_path(path: impl AsRef<Path>) -> Result<Device> {
        use std::os::unix::ffi::OsStrExt;
        let p = CString::new(path.as_ref().as_os_str().as_bytes())
            .map_err(|_| Error::Os(Errno::InvalidArgument))?;
        ffi::device_open_path(&p).map(Device::from_fd)
    }

    /// The number of weave devices.
    pub fn count() -> Result<u32> {
        ffi::device_count()
    }

    /// The uAPI version and the device's limits.
    pub fn info(&self) -> Result<DeviceInfo> {
        ffi::query_device_info(self.fd())
    }

    /// What the kernel holds for this file's streams and tasks.
    pub fn client_usage(&self) -> Result<ClientUsage> {
        ffi::query_client_usage(self.fd())
    }

    /// The device-wide buffer count and bytes.
    pub fn memory_usage(&self) -> Result<MemoryUsage> {
        ffi::query_memory_usage(self.fd())
    }

    /// Submits every stream's queued tasks (FLUSH with
    /// `DRM_WEAVE_FLUSH_ALL`).
    pub fn flush_all(&self) -> Result<()> {
        ffi::flush(self.fd(), None)
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.inner.fd.as_fd()
    }

    pub(crate) fn handles(&self) -> Handles<'_> {
        // A panic elsewhere cannot leave the map inconsistent: recover it.
        self.inner.buffers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether two values name the same open file.
    pub fn same_file(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl AsFd for Device {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd()
    }
}
