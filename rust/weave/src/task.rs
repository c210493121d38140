//! Task builders: launches of the built-in kernels and host writes, whose
//! bindings take their access mode from the type of their argument.

use std::ops::{Bound, RangeBounds};

use weave_sys as sys;

use crate::buffer::Buffer;

/// A built-in kernel of the soft engine (`enum drm_weave_kernel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Does nothing; no bindings.
    Noop,
    /// Fills its one write binding with a `u32` pattern.
    Fill,
    /// Copies its read binding into its write binding (a memmove).
    Copy,
    /// Writes the element-wise wrapping `u32` sum of two read bindings.
    AddU32,
    /// Writes the crc32c of its read binding as a `u32`.
    Crc32c,
    /// Waits for a number of microseconds; no bindings.
    Delay,
    /// Fails with an errno and taints what it should have written.
    Fail,
}

impl Kernel {
    /// The kernel's uAPI number.
    pub fn raw(self) -> u32 {
        match self {
            Kernel::Noop => sys::DRM_WEAVE_KERNEL_NOOP,
            Kernel::Fill => sys::DRM_WEAVE_KERNEL_FILL,
            Kernel::Copy => sys::DRM_WEAVE_KERNEL_COPY,
            Kernel::AddU32 => sys::DRM_WEAVE_KERNEL_ADD_U32,
            Kernel::Crc32c => sys::DRM_WEAVE_KERNEL_CRC32C,
            Kernel::Delay => sys::DRM_WEAVE_KERNEL_DELAY,
            Kernel::Fail => sys::DRM_WEAVE_KERNEL_FAIL,
        }
    }
}

/// A byte range of a buffer that a task reads.
#[derive(Clone, Debug)]
pub struct Read(Binding);

/// A byte range of a buffer that a task writes.
#[derive(Clone, Debug)]
pub struct Write(Binding);

/// A byte range of a buffer that a task both reads and writes.
#[derive(Clone, Debug)]
pub struct ReadWrite(Binding);

/// A buffer range and its access; holds the buffer until the task is
/// enqueued (the kernel then holds it itself).
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    buffer: Buffer,
    access: u32,
    offset: u64,
    size: u64,
}

impl Binding {
    fn new(buffer: &Buffer, access: u32, range: impl RangeBounds<u64>) -> Binding {
        let (offset, size) = resolve(range, buffer.size());
        Binding {
            buffer: buffer.clone(),
            access,
            offset,
            size,
        }
    }

    fn raw(&self) -> sys::drm_weave_binding {
        sys::drm_weave_binding {
            handle: self.buffer.handle(),
            access: self.access,
            offset: self.offset,
            size: self.size,
        }
    }
}

/// A range's offset and size, its open ends taken from a buffer of `len`
/// bytes.  An empty or inverted range gives size 0, which the kernel
/// refuses (`-EINVAL`).
pub(crate) fn resolve(range: impl RangeBounds<u64>, len: u64) -> (u64, u64) {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start, end.saturating_sub(start))
}

impl Buffer {
    /// The range as a task's input.
    pub fn read(&self, range: impl RangeBounds<u64>) -> Read {
        Read(Binding::new(self, sys::DRM_WEAVE_ACCESS_READ, range))
    }

    /// The range as a task's output.
    pub fn write(&self, range: impl RangeBounds<u64>) -> Write {
        Write(Binding::new(self, sys::DRM_WEAVE_ACCESS_WRITE, range))
    }

    /// The range as a task's input and output.
    pub fn read_write(&self, range: impl RangeBounds<u64>) -> ReadWrite {
        let access = sys::DRM_WEAVE_ACCESS_READ | sys::DRM_WEAVE_ACCESS_WRITE;
        ReadWrite(Binding::new(self, access, range))
    }
}

/// What a task does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    /// A launch of a built-in kernel.
    Launch(Kernel),
    /// A copy of bytes from host memory into a buffer range.
    HostWrite,
}

/// One task, ready to enqueue on a stream.  Build it with the kernels'
/// constructors ([`Task::fill`], [`Task::copy`], ...), with
/// [`Task::launch`] for any bindings, or with [`Task::host_write`].
#[derive(Clone, Debug)]
pub struct Task {
    kind: TaskKind,
    bindings: Vec<Binding>,
    raw_bindings: Vec<sys::drm_weave_binding>,
    uniforms: Vec<u8>,
    data: Vec<u8>,
    label: u32,
}

impl Task {
    fn new(kind: TaskKind, bindings: Vec<Binding>, uniforms: Vec<u8>) -> Task {
        let raw_bindings = bindings.iter().map(Binding::raw).collect();
        Task {
            kind,
            bindings,
            raw_bindings,
            uniforms,
            data: Vec::new(),
            label: 0,
        }
    }

    /// A launch of `kernel` with bindings added by the builder.
    pub fn launch(kernel: Kernel) -> Launch {
        Launch {
            kernel,
            bindings: Vec::new(),
            uniforms: Vec::new(),
        }
    }

    /// Does nothing.
    pub fn noop() -> Task {
        Task::new(TaskKind::Launch(Kernel::Noop), Vec::new(), Vec::new())
    }

    /// Fills `dst` (a multiple of 4 bytes) with `pattern`.
    pub fn fill(dst: Write, pattern: u32) -> Task {
        let u = pattern.to_ne_bytes().to_vec();
        Task::new(TaskKind::Launch(Kernel::Fill), vec![dst.0], u)
    }

    /// Copies `src` into `dst`, of the same size.
    pub fn copy(src: Read, dst: Write) -> Task {
        Task::new(
            TaskKind::Launch(Kernel::Copy),
            vec![src.0, dst.0],
            Vec::new(),
        )
    }

    /// Writes `a + b`, element-wise on wrapping `u32`, into `sum`.
    pub fn add_u32(a: Read, b: Read, sum: Write) -> Task {
        let kind = TaskKind::Launch(Kernel::AddU32);
        Task::new(kind, vec![a.0, b.0, sum.0], Vec::new())
    }

    /// Writes the crc32c of `data` into `crc` (4 bytes).
    pub fn crc32c(data: Read, crc: Write) -> Task {
        let kind = TaskKind::Launch(Kernel::Crc32c);
        Task::new(kind, vec![data.0, crc.0], Vec::new())
    }

    /// Waits for `micros` microseconds.
    pub fn delay(micros: u32) -> Task {
        let u = micros.to_ne_bytes().to_vec();
        Task::new(TaskKind::Launch(Kernel::Delay), Vec::new(), u)
    }

    /// Fails with the positive `errno` (1 to 4095); the ranges of
    /// `spoils`, which it should have written, then carry the failure.
    pub fn fail(errno: i32, spoils: impl IntoIterator<Item = Write>) -> Task {
        let b = spoils.into_iter().map(|w| w.0).collect();
        let u = errno.to_ne_bytes().to_vec();
        Task::new(TaskKind::Launch(Kernel::Fail), b, u)
    }

    /// Writes `data` into `dst` at `offset`; the bytes are copied when the
    /// task is enqueued.
    pub fn host_write(dst: &Buffer, offset: u64, data: impl Into<Vec<u8>>) -> Task {
        let data = data.into();
        let end = offset.saturating_add(data.len() as u64);
        let b = Binding::new(dst, sys::DRM_WEAVE_ACCESS_WRITE, offset..end);
        let mut t = Task::new(TaskKind::HostWrite, vec![b], Vec::new());
        t.data = data;
        t
    }

    /// Gives the task a label, reported with the failures that start at it
    /// or skip it.
    pub fn label(mut self, label: u32) -> Task {
        self.label = label;
        self
    }

    /// What the task does.
    pub fn kind(&self) -> TaskKind {
        self.kind
    }

    /// The buffers the task binds, in binding order.
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.bindings.iter().map(|b| &b.buffer)
    }

    /// The ranges the task writes, as `(buffer, offset, size)`.
    pub fn writes(&self) -> impl Iterator<Item = (&Buffer, u64, u64)> {
        self.bindings
            .iter()
            .filter(|b| b.access & sys::DRM_WEAVE_ACCESS_WRITE != 0)
            .map(|b| (&b.buffer, b.offset, b.size))
    }

    /// The uAPI struct of the task.  Its pointers address this task's own
    /// vectors: valid while `self` is borrowed and unchanged.
    pub(crate) fn encode(&self) -> sys::drm_weave_task {
        let ptr_of = |v: &[u8]| if v.is_empty() { 0 } else { v.as_ptr() as u64 };
        let (type_, kernel) = match self.kind {
            TaskKind::Launch(k) => (sys::DRM_WEAVE_TASK_LAUNCH, k.raw()),
            TaskKind::HostWrite => (sys::DRM_WEAVE_TASK_HOST_WRITE, 0),
        };
        let mut t = sys::drm_weave_task {
            type_,
            kernel,
            uniforms: ptr_of(&self.uniforms),
            uniforms_size: self.uniforms.len() as u32,
            data: ptr_of(&self.data),
            label: self.label,
            ..Default::default()
        };
        t.bindings.stride = std::mem::size_of::<sys::drm_weave_binding>() as u32;
        t.bindings.count = self.raw_bindings.len() as u32;
        if !self.raw_bindings.is_empty() {
            t.bindings.ptr = self.raw_bindings.as_ptr() as u64;
        }
        t
    }

    #[cfg(test)]
    pub(crate) fn raw_bindings(&self) -> &[sys::drm_weave_binding] {
        &self.raw_bindings
    }

    #[cfg(test)]
    pub(crate) fn uniforms(&self) -> &[u8] {
        &self.uniforms
    }
}

/// A launch being built: bindings in the order the kernel defines them.
#[derive(Clone, Debug)]
pub struct Launch {
    kernel: Kernel,
    bindings: Vec<Binding>,
    uniforms: Vec<u8>,
}

impl Launch {
    /// Adds a binding the kernel reads.
    pub fn reads(mut self, buffer: &Buffer, range: impl RangeBounds<u64>) -> Launch {
        self.bindings.push(buffer.read(range).0);
        self
    }

    /// Adds a binding the kernel writes.
    pub fn writes(mut self, buffer: &Buffer, range: impl RangeBounds<u64>) -> Launch {
        self.bindings.push(buffer.write(range).0);
        self
    }

    /// Adds a binding the kernel reads and writes.
    pub fn reads_writes(mut self, buffer: &Buffer, range: impl RangeBounds<u64>) -> Launch {
        self.bindings.push(buffer.read_write(range).0);
        self
    }

    /// Sets the launch's inline uniform bytes.
    pub fn uniforms(mut self, bytes: &[u8]) -> Launch {
        self.uniforms = bytes.to_vec();
        self
    }

    /// The task.
    pub fn build(self) -> Task {
        Task::new(TaskKind::Launch(self.kernel), self.bindings, self.uniforms)
    }
}
