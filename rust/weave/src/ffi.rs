//! The crate's one module of `unsafe` code: every call into libweave, each
//! with the reason it is sound.  Everything else in the crate is safe Rust
//! over these functions (`#![deny(unsafe_code)]` holds it to that).
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr;

use weave_sys as sys;

use crate::error::{check, Errno, Error, Result};
use crate::failure::Report;
use crate::task::Task;

/// Turns a libweave call that returns a file descriptor or a negative
/// errno into an owned descriptor.
fn owned_fd(ret: i32) -> Result<OwnedFd> {
    check(ret)?;
    // SAFETY: a non-negative return of these calls is a new descriptor
    // that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(ret) })
}

/// `weave_device_open()`.
pub(crate) fn device_open(index: u32) -> Result<OwnedFd> {
    // SAFETY: takes a plain integer.
    owned_fd(unsafe { sys::weave_device_open(index) })
}

/// `weave_device_open_path()`.
pub(crate) fn device_open_path(path: &CStr) -> Result<OwnedFd> {
    // SAFETY: path is NUL-terminated and outlives the call.
    owned_fd(unsafe { sys::weave_device_open_path(path.as_ptr()) })
}

/// `weave_device_count()`.
pub(crate) fn device_count() -> Result<u32> {
    // SAFETY: takes nothing.
    let ret = unsafe { sys::weave_device_count() };
    check(ret).map(|()| ret as u32)
}

/// `weave_timeout_ns()`.
pub(crate) fn timeout_ns(rel_ns: i64) -> i64 {
    // SAFETY: takes a plain integer.
    unsafe { sys::weave_timeout_ns(rel_ns) }
}

macro_rules! query {
    ($name:ident, $ty:ty, $call:ident) => {
        /// The query of the same name, into a zeroed struct.
        pub(crate) fn $name(fd: BorrowedFd<'_>) -> Result<$ty> {
            let mut out = <$ty>::default();
            // SAFETY: out is a valid, writable struct of the type the call
            // fills, and lives across the call.
            check(unsafe { sys::$call(fd.as_raw_fd(), &mut out) })?;
            Ok(out)
        }
    };
}
query!(
    query_device_info,
    sys::drm_weave_device_info,
    weave_sys_query_device_info
);
query!(
    query_memory_usage,
    sys::drm_weave_memory_usage,
    weave_sys_query_memory_usage
);
query!(
    query_client_usage,
    sys::drm_weave_client_usage,
    weave_sys_query_client_usage
);

/// `weave_bo_create()`: the handle and the rounded size.
pub(crate) fn bo_create(fd: BorrowedFd<'_>, size: u64, flags: u32) -> Result<(u32, u64)> {
    let (mut size, mut handle) = (size, 0u32);
    // SAFETY: size and handle are valid for writes across the call.
    check(unsafe { sys::weave_bo_create(fd.as_raw_fd(), &mut size, flags, &mut handle) })?;
    Ok((handle, size))
}

/// `weave_bo_close()`.
pub(crate) fn bo_close(fd: BorrowedFd<'_>, handle: u32) -> Result<()> {
    // SAFETY: plain integers; closing a handle touches no Rust memory.
    check(unsafe { sys::weave_bo_close(fd.as_raw_fd(), handle) })
}

/// `weave_bo_export()` with `DRM_CLOEXEC | DRM_RDWR`.
pub(crate) fn bo_export(fd: BorrowedFd<'_>, handle: u32) -> Result<OwnedFd> {
    let mut out = -1;
    let flags = (libc::O_CLOEXEC | libc::O_RDWR) as u32;
    // SAFETY: out is valid for writes across the call.
    check(unsafe { sys::weave_bo_export(fd.as_raw_fd(), handle, flags, &mut out) })?;
    owned_fd(out)
}

/// `weave_bo_import()`.
pub(crate) fn bo_import(fd: BorrowedFd<'_>, dmabuf: BorrowedFd<'_>) -> Result<u32> {
    let mut handle = 0;
    // SAFETY: handle is valid for writes; the dma-buf stays the caller's.
    check(unsafe { sys::weave_bo_import(fd.as_raw_fd(), dmabuf.as_raw_fd(), &mut handle) })?;
    Ok(handle)
}

/// A shared mapping of a buffer; unmapped on drop.
#[derive(Debug)]
pub(crate) struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory that any thread may access
// and unmap; Mapping hands out no references into it, only copies.
unsafe impl Send for Mapping {}

impl Mapping {
    /// `weave_bo_mmap()` of `len` bytes, readable and writable.
    pub(crate) fn new(fd: BorrowedFd<'_>, handle: u32, len: usize) -> Result<Mapping> {
        let mut p: *mut libc::c_void = ptr::null_mut();
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        // SAFETY: p is valid for writes; the kernel chooses the address,
        // so no Rust memory is replaced.
        check(unsafe { sys::weave_bo_mmap(fd.as_raw_fd(), handle, len, prot, &mut p) })?;
        Ok(Mapping { ptr: p.cast(), len })
    }

    /// The mapped length.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Copies `out.len()` bytes from `offset`.
    pub(crate) fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.bounds(offset, out.len())?;
        // SAFETY: bounds() checked offset..offset+len lies in the mapping,
        // which lives as long as self; out is a distinct Rust slice.
        unsafe { ptr::copy_nonoverlapping(self.ptr.add(offset), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Copies `data` to `offset`.
    pub(crate) fn write(&mut self, offset: usize, data: &[u8]) -> Result<()> {
        self.bounds(offset, data.len())?;
        // SAFETY: as in read(); the mapping is writable (PROT_WRITE).
        unsafe { ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(offset), data.len()) };
        Ok(())
    }

    fn bounds(&self, offset: usize, len: usize) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::Os(Errno::InvalidArgument)),
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr and len are those weave_bo_mmap() returned, and no
        // reference into the mapping outlives self.
        unsafe { sys::weave_bo_munmap(self.ptr.cast(), self.len) };
    }
}

/// `weave_stream_create()`.
pub(crate) fn stream_create(fd: BorrowedFd<'_>, priority: u32) -> Result<u32> {
    let mut handle = 0;
    // SAFETY: handle is valid for writes across the call.
    check(unsafe { sys::weave_stream_create(fd.as_raw_fd(), priority, &mut handle) })?;
    Ok(handle)
}

/// `weave_stream_destroy()`.
pub(crate) fn stream_destroy(fd: BorrowedFd<'_>, stream: u32) -> Result<()> {
    // SAFETY: plain integers.
    check(unsafe { sys::weave_stream_destroy(fd.as_raw_fd(), stream) })
}

/// `weave_stream_query()`.
pub(crate) fn stream_query(fd: BorrowedFd<'_>, stream: u32) -> Result<sys::drm_weave_stream_query> {
    let mut out = sys::drm_weave_stream_query::default();
    // SAFETY: out is valid for writes across the call.
    check(unsafe { sys::weave_sys_stream_query(fd.as_raw_fd(), stream, &mut out) })?;
    Ok(out)
}

/// `weave_enqueue_ex()` of `tasks`: the stream's sequence number after
/// the last task, also with `Err(InProgress)` (as `(seqno, error)`).
pub(crate) fn enqueue(
    fd: BorrowedFd<'_>,
    stream: u32,
    flush: bool,
    tasks: &[Task],
) -> std::result::Result<u64, (u64, Error)> {
    // The raw tasks point into the Tasks' own vectors, which `tasks`
    // borrows for the whole call.
    let raw: Vec<sys::drm_weave_task> = tasks.iter().map(Task::encode).collect();
    let flags = if flush {
        sys::DRM_WEAVE_ENQUEUE_FLUSH
    } else {
        0
    };
    let mut seqno = 0;
    // SAFETY: raw holds raw.len() tasks whose binding, uniform and data
    // pointers address live vectors of `tasks` with the sizes they state;
    // no syncs are passed; seqno is valid for writes.
    let ret = unsafe {
        sys::weave_sys_enqueue_ex(
            fd.as_raw_fd(),
            stream,
            flags,
            raw.as_ptr(),
            raw.len() as u32,
            ptr::null(),
            0,
            ptr::null(),
            0,
            &mut seqno,
        )
    };
    check(ret).map(|()| seqno).map_err(|e| (seqno, e))
}

/// `weave_flush()`, or `weave_flush_all()` when `stream` is `None`.
pub(crate) fn flush(fd: BorrowedFd<'_>, stream: Option<u32>) -> Result<()> {
    // SAFETY: no out-sync is passed (NULL is allowed).
    check(unsafe {
        match stream {
            Some(s) => sys::weave_sys_flush(fd.as_raw_fd(), s, ptr::null()),
            None => sys::weave_sys_flush_all(fd.as_raw_fd(), ptr::null()),
        }
    })
}

/// `weave_wait()`, or `weave_wait_seqno()` when `seqno` is given.
pub(crate) fn wait(
    fd: BorrowedFd<'_>,
    stream: u32,
    seqno: Option<u64>,
    deadline: i64,
) -> Result<()> {
    // SAFETY: plain integers.
    check(unsafe {
        match seqno {
            Some(n) => sys::weave_wait_seqno(fd.as_raw_fd(), stream, n, deadline),
            None => sys::weave_wait(fd.as_raw_fd(), stream, deadline),
        }
    })
}

/// Room for a report: grown to what the kernel says until it fits, or
/// until it holds all that the kernel counts and the call still fails
/// with -ENOSPC: the range then carries more failures than a report
/// holds (max_report_failures), and the report is cut.
struct ReportRoom {
    failures: Vec<sys::drm_weave_failure>,
    skips: Vec<sys::drm_weave_failure_task>,
}

impl ReportRoom {
    fn new() -> ReportRoom {
        ReportRoom {
            failures: vec![Default::default(); 4],
            skips: vec![Default::default(); 16],
        }
    }

    /// After -ENOSPC with the counts `nfailures` and `nskips`: grows the
    /// room and returns true (call again), or returns false if the room
    /// holds them already (the report is cut).
    fn grow(&mut self, nfailures: u32, nskips: u32) -> bool {
        let (nf, ns) = (nfailures as usize, nskips as usize);
        if nf <= self.failures.len() && ns <= self.skips.len() {
            return false;
        }
        self.failures
            .resize(nf.max(self.failures.len()), Default::default());
        self.skips
            .resize(ns.max(self.skips.len()), Default::default());
        true
    }

    /// The report of the counts; of a cut one, the kernel wrote only the
    /// first max_report_failures failures, and the rest are omitted.
    fn report(&self, fd: BorrowedFd<'_>, nfailures: u32, nskips: u32, cut: bool) -> Result<Report> {
        let written = if cut {
            nfailures.min(query_device_info(fd)?.max_report_failures)
        } else {
            nfailures
        };
        let nf = (written as usize).min(self.failures.len());
        let ns = (nskips as usize).min(self.skips.len());
        let mut report = Report::from_raw(&self.failures[..nf], &self.skips[..ns]);
        report.omitted = nfailures - nf as u32;
        Ok(report)
    }
}

/// `weave_check()` of one range: its report, grown until it fits (or
/// cut past max_report_failures).
pub(crate) fn check_range(
    fd: BorrowedFd<'_>,
    handle: u32,
    offset: u64,
    size: u64,
) -> Result<Report> {
    let mut room = ReportRoom::new();
    loop {
        let mut range = sys::drm_weave_check_range {
            handle,
            offset,
            size,
            ..Default::default()
        };
        let mut nf = room.failures.len() as u32;
        let mut ns = room.skips.len() as u32;
        // SAFETY: one range; the failure and skip arrays hold nf and ns
        // entries and live across the call; the counts are valid for
        // writes.
        let ret = unsafe {
            sys::weave_sys_check(
                fd.as_raw_fd(),
                &mut range,
                1,
                room.failures.as_mut_ptr(),
                &mut nf,
                room.skips.as_mut_ptr(),
                &mut ns,
            )
        };
        let cut = ret == -libc::ENOSPC;
        if cut && room.grow(nf, ns) {
            continue;
        }
        if !cut {
            check(ret)?;
        }
        return room.report(fd, nf, ns, cut);
    }
}

/// `weave_read()` into `out`: `Err(Error::Failed)` with the report when
/// the range carries failures (cut past max_report_failures).
pub(crate) fn read(
    fd: BorrowedFd<'_>,
    handle: u32,
    offset: u64,
    out: &mut [u8],
    deadline: i64,
) -> Result<()> {
    let mut room = ReportRoom::new();
    loop {
        let mut nf = room.failures.len() as u32;
        let mut ns = room.skips.len() as u32;
        // SAFETY: out is valid for out.len() bytes of writes; the report
        // arrays hold nf and ns entries; all live across the call.
        let ret = unsafe {
            sys::weave_sys_read(
                fd.as_raw_fd(),
                handle,
                offset,
                out.len() as u64,
                out.as_mut_ptr().cast(),
                deadline,
                room.failures.as_mut_ptr(),
                &mut nf,
                room.skips.as_mut_ptr(),
                &mut ns,
            )
        };
        let cut = ret == -libc::ENOSPC;
        if cut && room.grow(nf, ns) {
            continue;
        }
        if cut || ret == -libc::EIO {
            let report = room.report(fd, nf, ns, cut)?;
            return Err(Error::Failed(Box::new(report)));
        }
        return check(ret);
    }
}

/// `weave_failure_format()` of one failure and its own skips.
pub(crate) fn failure_format(
    failure: &sys::drm_weave_failure,
    skips: &[sys::drm_weave_failure_task],
) -> String {
    let mut f = *failure;
    f.first_skip = 0;
    f.nskips = f.nskips.min(skips.len() as u32);
    let mut buf = vec![0u8; 256];
    loop {
        // SAFETY: buf holds buf.len() writable bytes; f and skips (f.nskips
        // entries from 0) are valid for reads during the call.
        let n = unsafe {
            sys::weave_sys_failure_format(buf.as_mut_ptr().cast(), buf.len(), &f, skips.as_ptr())
        };
        if n < 0 {
            return format!("failure #{} (unformattable: {})", f.id, Errno::from_raw(n));
        }
        if (n as usize) < buf.len() {
            buf.truncate(n as usize);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        buf.resize(n as usize + 1, 0);
    }
}

/// `weave_capture()`: the call's result and its out fields.
pub(crate) fn capture(
    fd: BorrowedFd<'_>,
    stream: u32,
    op: u32,
) -> (Result<()>, sys::drm_weave_capture) {
    let mut out = sys::drm_weave_capture::default();
    // SAFETY: out is valid for writes across the call.
    let ret = unsafe { sys::weave_sys_capture(fd.as_raw_fd(), stream, op, &mut out) };
    (check(ret), out)
}

/// `weave_replay()` with no syncs: the sequence number of the graph's
/// last task, also with `Err(InProgress)`.
pub(crate) fn replay(
    fd: BorrowedFd<'_>,
    graph: u32,
    stream: u32,
) -> std::result::Result<u64, (u64, Error)> {
    let mut seqno = 0;
    // SAFETY: no syncs (NULL with count 0 is allowed); seqno is valid for
    // writes.
    let ret = unsafe {
        sys::weave_sys_replay(
            fd.as_raw_fd(),
            graph,
            stream,
            ptr::null(),
            0,
            ptr::null(),
            &mut seqno,
        )
    };
    check(ret).map(|()| seqno).map_err(|e| (seqno, e))
}

/// `weave_graph_destroy()`.
pub(crate) fn graph_destroy(fd: BorrowedFd<'_>, graph: u32) -> Result<()> {
    // SAFETY: plain integers.
    check(unsafe { sys::weave_graph_destroy(fd.as_raw_fd(), graph) })
}

#[cfg(test)]
mod tests {
    use super::ReportRoom;

    #[test]
    fn report_room_grows_until_the_counts_fit_then_stops() {
        let mut room = ReportRoom::new();
        assert!(room.grow(300, 2), "more failures than room: grow");
        assert_eq!(room.failures.len(), 300);
        assert_eq!(room.skips.len(), 16);
        assert!(room.grow(300, 40), "more skips than room: grow");
        assert_eq!(room.skips.len(), 40);
        // The kernel says -ENOSPC with counts that fit: a cut report,
        // which growing cannot help.
        assert!(!room.grow(300, 40));
        assert!(!room.grow(2, 1));
        assert_eq!(room.failures.len(), 300, "never shrinks");
    }
}
