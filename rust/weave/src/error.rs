//! The errors of weave's calls: every errno the uAPI documents, as a type.

use std::fmt;

use crate::failure::Report;

/// An errno that a weave call returned, named by what the uAPI
/// (`uapi/weave_drm.h`, the "Errors" sections) and libweave say it means.
///
/// The meaning depends on the call; each variant lists the usual ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Errno {
    /// `EINVAL`: a malformed argument (unknown flags or kind, non-zero
    /// padding, a range outside its buffer, a size of zero), or a kernel
    /// too old for the call.
    InvalidArgument,
    /// `ENOENT`: a handle (buffer, stream, syncobj, graph, ring) that names
    /// nothing in this file, or a syncobj point with no fence.
    NotFound,
    /// `ENOMEM`: the kernel ran out of memory; for FLUSH nothing is lost and
    /// the same call again submits the rest.
    OutOfMemory,
    /// `EBUSY`: the stream records its capture window, a limit of pending
    /// tasks or staged bytes would be passed, or a setting can no longer
    /// change.
    Busy,
    /// `EINTR`: a signal arrived while the call waited for a lock; nothing
    /// changed, and the same call again goes on.
    Interrupted,
    /// `ENOSPC`: a count limit (streams, graphs, check ranges' report, ring
    /// units) is reached, or a report did not fit.
    NoSpace,
    /// `ENODEV`: the device was unplugged, or the node is not a weave
    /// device.
    NoDevice,
    /// `ECANCELED`: the stream has failed, a window was abandoned, or work
    /// was cancelled.
    Canceled,
    /// `EINPROGRESS`: the tasks were queued but not all submitted; do not
    /// enqueue them again, flush.
    InProgress,
    /// `EFAULT`: a user pointer could not be read or written.
    Fault,
    /// `EIO`: a READ's range carries failures, or a capture window was
    /// doomed.
    Io,
    /// `ERESTARTSYS` (512): a signal during a drain, as the kernel reports
    /// it to callers that see it.
    RestartSys,
    /// `EPERM`: not allowed (high priority without `CAP_SYS_NICE`, mapping
    /// a `NO_MMAP` buffer, attaching an engine unprivileged).
    PermissionDenied,
    /// `EDQUOT`: a per-client quota of buffers, bytes or claims is reached.
    QuotaExceeded,
    /// `E2BIG`: a buffer over `max_bo_size`, or a host write over
    /// `max_staged_bytes`.
    TooBig,
    /// `ETIME`: a wait's deadline passed first.
    TimerExpired,
    /// `ETIMEDOUT`: a job ran past the job timeout.
    TimedOut,
    /// `EACCES`: the file does not allow the access asked for.
    AccessDenied,
    /// `EBADFD`: a capture operation in the wrong state (BEGIN without a
    /// prepared window, END with none recording).
    BadState,
    /// `EBADF`: a file descriptor that is not open.
    BadFd,
    /// `EALREADY`: the stream already holds the isolation, or holds none.
    Already,
    /// `EMFILE`: the process has too many open files.
    TooManyFiles,
    /// `ENFILE`: the system has too many open files.
    TooManyFilesInSystem,
    /// `EAGAIN`: try again.
    Again,
    /// An errno the uAPI does not document, by number.
    Other(i32),
}

/// `ERESTARTSYS`, which the kernel keeps to itself in most paths.
const ERESTARTSYS: i32 = 512;

const TABLE: &[(i32, Errno, &str)] = &[
    (libc::EINVAL, Errno::InvalidArgument, "EINVAL"),
    (libc::ENOENT, Errno::NotFound, "ENOENT"),
    (libc::ENOMEM, Errno::OutOfMemory, "ENOMEM"),
    (libc::EBUSY, Errno::Busy, "EBUSY"),
    (libc::EINTR, Errno::Interrupted, "EINTR"),
    (libc::ENOSPC, Errno::NoSpace, "ENOSPC"),
    (libc::ENODEV, Errno::NoDevice, "ENODEV"),
    (libc::ECANCELED, Errno::Canceled, "ECANCELED"),
    (libc::EINPROGRESS, Errno::InProgress, "EINPROGRESS"),
    (libc::EFAULT, Errno::Fault, "EFAULT"),
    (libc::EIO, Errno::Io, "EIO"),
    (ERESTARTSYS, Errno::RestartSys, "ERESTARTSYS"),
    (libc::EPERM, Errno::PermissionDenied, "EPERM"),
    (libc::EDQUOT, Errno::QuotaExceeded, "EDQUOT"),
    (libc::E2BIG, Errno::TooBig, "E2BIG"),
    (libc::ETIME, Errno::TimerExpired, "ETIME"),
    (libc::ETIMEDOUT, Errno::TimedOut, "ETIMEDOUT"),
    (libc::EACCES, Errno::AccessDenied, "EACCES"),
    (libc::EBADFD, Errno::BadState, "EBADFD"),
    (libc::EBADF, Errno::BadFd, "EBADF"),
    (libc::EALREADY, Errno::Already, "EALREADY"),
    (libc::EMFILE, Errno::TooManyFiles, "EMFILE"),
    (libc::ENFILE, Errno::TooManyFilesInSystem, "ENFILE"),
    (libc::EAGAIN, Errno::Again, "EAGAIN"),
];

impl Errno {
    /// The errno for a positive number (`libc::EINVAL`) or the negative
    /// one libweave returns (`-EINVAL`).
    pub fn from_raw(errno: i32) -> Errno {
        let e = errno.checked_abs().unwrap_or(0);
        TABLE
            .iter()
            .find(|(n, _, _)| *n == e)
            .map(|(_, v, _)| *v)
            .unwrap_or(Errno::Other(e))
    }

    /// The positive errno number, as in `libc::EINVAL`.
    pub fn raw(self) -> i32 {
        match self {
            Errno::Other(n) => n,
            v => TABLE.iter().find(|(_, t, _)| *t == v).map(|t| t.0).unwrap(),
        }
    }

    /// The errno's symbolic name, as in `"EINVAL"`; `None` for
    /// [`Errno::Other`].
    pub fn name(self) -> Option<&'static str> {
        TABLE.iter().find(|(_, t, _)| *t == self).map(|t| t.2)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "-{}", name),
            None => write!(f, "errno {}", self.raw()),
        }
    }
}

/// The error of a weave call.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The call failed with this errno.
    Os(Errno),
    /// A READ found failures on its range (`-EIO`, or `-ENOSPC` when the
    /// range carries more than a report holds, which [`Report::omitted`]
    /// then counts): nothing was copied, and the report says which
    /// failures spoiled which bytes.
    Failed(Box<Report>),
}

impl Error {
    /// The error of a libweave return value: a negative errno.
    pub fn from_ret(ret: i32) -> Error {
        Error::Os(Errno::from_raw(ret))
    }

    /// The errno behind the error: `EIO` for [`Error::Failed`].
    pub fn errno(&self) -> Errno {
        match self {
            Error::Os(e) => *e,
            Error::Failed(_) => Errno::Io,
        }
    }
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::Os(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Os(e) => write!(f, "weave: {}", e),
            Error::Failed(r) => write!(
                f,
                "weave: the range carries {} failure(s)",
                r.failures.len()
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The result of a weave call.
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a libweave return value (0, or a negative errno) into a result.
pub(crate) fn check(ret: i32) -> Result<()> {
    if ret < 0 {
        Err(Error::from_ret(ret))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_errno_round_trips() {
        for &(n, v, name) in TABLE {
            assert_eq!(Errno::from_raw(n), v, "{}", name);
            assert_eq!(Errno::from_raw(-n), v, "-{}", name);
            assert_eq!(v.raw(), n);
            assert_eq!(v.name(), Some(name));
        }
    }

    #[test]
    fn the_table_names_each_errno_once() {
        for (i, a) in TABLE.iter().enumerate() {
            for b in &TABLE[i + 1..] {
                assert_ne!(a.0, b.0, "{} and {}", a.2, b.2);
                assert_ne!(a.1, b.1);
            }
        }
    }

    #[test]
    fn every_errno_of_the_uapi_header_is_named() {
        let header = include_str!("../../../uapi/weave_drm.h");
        let shim = include_str!("../../../libshim/weave.h");
        for text in [header, shim] {
            for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '-') {
                if let Some(name) = word.strip_prefix("-E") {
                    if name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                    {
                        let full = format!("E{}", name);
                        assert!(
                            TABLE.iter().any(|t| t.2 == full),
                            "-{} is documented but has no Errno variant",
                            full
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_errno_keeps_its_number() {
        assert_eq!(Errno::from_raw(-4000), Errno::Other(4000));
        assert_eq!(Errno::Other(4000).raw(), 4000);
        assert_eq!(Errno::Other(4000).name(), None);
        assert_eq!(Errno::Other(4000).to_string(), "errno 4000");
        assert_eq!(Errno::from_raw(i32::MIN), Errno::Other(0));
    }

    #[test]
    fn check_maps_negative_returns_only() {
        assert!(check(0).is_ok());
        assert!(check(7).is_ok());
        assert_eq!(check(-libc::ENOENT).unwrap_err().errno(), Errno::NotFound);
        assert_eq!(Errno::Busy.to_string(), "-EBUSY");
    }
}
