//! Failure reports of CHECK and READ as values: the root cause, the chain
//! of skipped tasks, and whether the bytes were coarsened.

use std::fmt;

use weave_sys as sys;

use crate::error::Errno;
use crate::ffi;

/// A failure's id: never zero, never reused by the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FailureId(pub u64);

/// Why a failure began (`enum drm_weave_failure_cause`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cause {
    /// The root task's kernel returned the error (the `fail` kernel).
    Kernel,
    /// The client ran out of failure records; this failure stands for
    /// every such failure of its tasks.
    Overflow,
    /// The root task's job ran past the job timeout.
    Timeout,
    /// An in-sync of the root task's enqueue signalled with the error.
    InFence,
    /// The root task's client closed its file, or the device was
    /// unplugged, before the task finished.
    Canceled,
    /// The kernel had no memory to pack the root task into a job.
    Encode,
    /// A capture window refused the root task.
    Capture,
    /// A cause this crate does not know, by number.
    Other(u32),
}

impl Cause {
    /// The cause of its uAPI number.
    pub fn from_raw(raw: u32) -> Cause {
        match raw {
            sys::DRM_WEAVE_FAILURE_KERNEL => Cause::Kernel,
            sys::DRM_WEAVE_FAILURE_OVERFLOW => Cause::Overflow,
            sys::DRM_WEAVE_FAILURE_TIMEOUT => Cause::Timeout,
            sys::DRM_WEAVE_FAILURE_IN_FENCE => Cause::InFence,
            sys::DRM_WEAVE_FAILURE_CANCELED => Cause::Canceled,
            sys::DRM_WEAVE_FAILURE_ENCODE => Cause::Encode,
            sys::DRM_WEAVE_FAILURE_CAPTURE => Cause::Capture,
            n => Cause::Other(n),
        }
    }
}

/// A task named in a failure report: the root of a failure, or a task it
/// made the device skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedTask {
    /// The task's stream, sequence number and label, if the task is this
    /// file's (`DRM_WEAVE_FAILURE_TASK_OWN`); another file's tasks are
    /// anonymous.
    pub own: Option<TaskOrigin>,
    /// The task's kernel for a launch (`enum drm_weave_kernel`), `None` for
    /// a host write.
    pub kernel: Option<u32>,
}

/// Where a task of this file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskOrigin {
    /// The stream handle it was enqueued on.
    pub stream: u32,
    /// Its sequence number on that stream.
    pub seqno: u64,
    /// Its label (`Task::label`), zero if none.
    pub label: u32,
}

impl FailedTask {
    pub(crate) fn from_raw(t: &sys::drm_weave_failure_task) -> FailedTask {
        let own = (t.flags & sys::DRM_WEAVE_FAILURE_TASK_OWN != 0).then_some(TaskOrigin {
            stream: t.stream,
            seqno: t.seqno,
            label: t.label,
        });
        let kernel = (t.type_ == sys::DRM_WEAVE_TASK_LAUNCH).then_some(t.kernel);
        FailedTask { own, kernel }
    }
}

/// One failure of a report: where it began and what it spoiled since.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its id.
    pub id: FailureId,
    /// The errno of its root cause.
    pub error: Errno,
    /// Why it began.
    pub cause: Cause,
    /// The task where it began.
    pub root: FailedTask,
    /// The tasks it made the device skip, oldest first (the newest few the
    /// device keeps).
    pub skips: Vec<FailedTask>,
    /// Earlier skips the device no longer keeps.
    pub skips_dropped: u64,
    /// How many buffers carried it when the report was made.
    pub buffers: u32,
    /// Some of its bytes carry it only because their buffer's taints were
    /// coarsened: they may never have failed.
    pub coarse: bool,
    raw: sys::drm_weave_failure,
    raw_skips: Vec<sys::drm_weave_failure_task>,
}

impl Failure {
    /// The failure of a report's entry and the report's skip array.
    pub(crate) fn from_raw(
        f: &sys::drm_weave_failure,
        skips: &[sys::drm_weave_failure_task],
    ) -> Failure {
        let first = f.first_skip as usize;
        let own: Vec<_> = skips
            .get(first..first.saturating_add(f.nskips as usize))
            .unwrap_or(&[])
            .to_vec();
        let mut raw = *f;
        raw.first_skip = 0;
        Failure {
            id: FailureId(f.id),
            error: Errno::from_raw(f.error),
            cause: Cause::from_raw(f.cause),
            root: FailedTask::from_raw(&f.root),
            skips: own.iter().map(FailedTask::from_raw).collect(),
            skips_dropped: f.skips_dropped,
            buffers: f.buffers,
            coarse: f.flags & sys::DRM_WEAVE_FAILURE_COARSE != 0,
            raw,
            raw_skips: own,
        }
    }
}

impl fmt::Display for Failure {
    /// The line libweave's `weave_failure_format()` says for it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&ffi::failure_format(&self.raw, &self.raw_skips))
    }
}

/// The failures on a buffer range, in the order of the first byte each
/// taints; empty when every byte is good.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The failures: all of them, or the first `max_report_failures` of
    /// the device (see [`Report::omitted`]).
    pub failures: Vec<Failure>,
    /// The range's failures past the first `max_report_failures`, which
    /// no report holds: zero when the report is whole.
    pub omitted: u32,
}

impl Report {
    /// Whether every byte of the range is good.
    pub fn is_clean(&self) -> bool {
        self.failures.is_empty() && self.omitted == 0
    }

    pub(crate) fn from_raw(
        failures: &[sys::drm_weave_failure],
        skips: &[sys::drm_weave_failure_task],
    ) -> Report {
        Report {
            failures: failures
                .iter()
                .map(|f| Failure::from_raw(f, skips))
                .collect(),
            omitted: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(stream: u32, seqno: u64, own: bool) -> sys::drm_weave_failure_task {
        sys::drm_weave_failure_task {
            seqno,
            stream,
            label: 9,
            type_: sys::DRM_WEAVE_TASK_LAUNCH,
            kernel: sys::DRM_WEAVE_KERNEL_ADD_U32,
            flags: if own {
                sys::DRM_WEAVE_FAILURE_TASK_OWN
            } else {
                0
            },
            pad: 0,
        }
    }

    #[test]
    fn report_takes_each_failure_its_own_skips() {
        let skips = [task(5, 12, true), task(5, 13, true), task(6, 1, false)];
        let mut a = sys::drm_weave_failure {
            id: 7,
            error: -libc::EINVAL,
            cause: sys::DRM_WEAVE_FAILURE_KERNEL,
            root: task(3, 41, true),
            buffers: 1,
            nskips: 2,
            first_skip: 0,
            flags: 0,
            skips_dropped: 0,
        };
        a.root.kernel = sys::DRM_WEAVE_KERNEL_FAIL;
        let b = sys::drm_weave_failure {
            id: 8,
            error: -libc::ETIMEDOUT,
            cause: sys::DRM_WEAVE_FAILURE_TIMEOUT,
            root: task(4, 2, false),
            buffers: 2,
            nskips: 1,
            first_skip: 2,
            flags: sys::DRM_WEAVE_FAILURE_COARSE,
            skips_dropped: 3,
        };
        let r = Report::from_raw(&[a, b], &skips);
        assert!(!r.is_clean());
        let (fa, fb) = (&r.failures[0], &r.failures[1]);
        assert_eq!(fa.id, FailureId(7));
        assert_eq!(fa.error, Errno::InvalidArgument);
        assert_eq!(fa.cause, Cause::Kernel);
        assert_eq!(fa.root.kernel, Some(sys::DRM_WEAVE_KERNEL_FAIL));
        assert_eq!(
            fa.root.own,
            Some(TaskOrigin {
                stream: 3,
                seqno: 41,
                label: 9
            })
        );
        assert_eq!(fa.skips.len(), 2);
        assert_eq!(fa.skips[1].own.unwrap().seqno, 13);
        assert!(!fa.coarse);
        assert_eq!(fb.cause, Cause::Timeout);
        assert_eq!(fb.error, Errno::TimedOut);
        assert!(fb.coarse);
        assert_eq!(fb.root.own, None);
        assert_eq!(fb.skips.len(), 1);
        assert_eq!(fb.skips[0].own, None);
        assert_eq!(fb.skips_dropped, 3);
    }

    #[test]
    fn skips_past_the_array_are_not_invented() {
        let f = sys::drm_weave_failure {
            id: 1,
            nskips: 4,
            first_skip: 1,
            ..Default::default()
        };
        let r = Report::from_raw(&[f], &[task(1, 1, true)]);
        assert!(r.failures[0].skips.is_empty());
    }

    #[test]
    fn causes_map_and_unknown_keeps_its_number() {
        assert_eq!(
            Cause::from_raw(sys::DRM_WEAVE_FAILURE_CAPTURE),
            Cause::Capture
        );
        assert_eq!(
            Cause::from_raw(sys::DRM_WEAVE_FAILURE_ENCODE),
            Cause::Encode
        );
        assert_eq!(Cause::from_raw(99), Cause::Other(99));
    }

    #[test]
    fn a_failure_reads_as_libweave_says_it() {
        let mut f = sys::drm_weave_failure {
            id: 7,
            error: -libc::EINVAL,
            cause: sys::DRM_WEAVE_FAILURE_KERNEL,
            root: task(3, 41, true),
            nskips: 1,
            ..Default::default()
        };
        f.root.kernel = sys::DRM_WEAVE_KERNEL_FAIL;
        f.root.label = 0;
        let line = Failure::from_raw(&f, &[task(5, 12, true)]).to_string();
        assert!(
            line.starts_with("failed: kernel \"fail\" (stream 3, seq 41)"),
            "{}",
            line
        );
        assert!(line.contains("-EINVAL"), "{}", line);
        assert!(line.contains("skipped \"add"), "{}", line);
        assert!(line.ends_with("failure #7"), "{}", line);
    }
}
