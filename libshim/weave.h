/* SPDX-License-Identifier: MIT */
/*
 * libweave: a thin user-space library over the weave DRM render node.
 *
 * One function per ioctl, plus a few helpers (device discovery, mapping).
 * Every call goes through libdrm's drmIoctl(), which restarts on EINTR and
 * EAGAIN.  The functions that fill or read a uAPI struct of the caller are
 * static inline here, so that they use the caller's size of the struct: a
 * newer libweave.so.1, built against a uAPI whose structs grew at their
 * end, never writes or reads past an older program's structs.
 *
 * Functions return 0 (or a non-negative value where documented) on
 * success and a negative errno value on failure; errno itself is not part
 * of the interface.  Nothing here prints, exits or keeps global state: all
 * state is the file descriptor and the handles the caller passes in.
 */
#ifndef _WEAVE_H_
#define _WEAVE_H_

#include <errno.h>	/* ENOSPC, EIO, EINPROGRESS: weave_check(), weave_read(), ... */
#include <fcntl.h>	/* O_CLOEXEC and O_RDWR, behind DRM_CLOEXEC, DRM_RDWR */
#include <stddef.h>
#include <stdint.h>
#include <string.h>	/* memset(), in the inline helpers */

#include "weave_drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: versions
 *
 * libweave.so.1 only grows: each release adds its functions to a new node
 * of the version script (WEAVE_1.0, WEAVE_1.1, ...), and a function that
 * became inline keeps its old symbol for the programs linked to it.
 * %WEAVE_VERSION_MAJOR, %WEAVE_VERSION_MINOR and %WEAVE_VERSION_PATCH give
 * the version of this header; weave_version() that of the library running.
 */
#define WEAVE_VERSION_MAJOR	1
#define WEAVE_VERSION_MINOR	8
#define WEAVE_VERSION_PATCH	0

/**
 * WEAVE_VERSION() - A library version as one comparable number.
 * @major: The major version, 0 to 65535.
 * @minor: The minor version, 0 to 255.
 * @patch: The patch level, 0 to 255.
 */
#define WEAVE_VERSION(major, minor, patch) \
	(((unsigned int)(major) << 16) | ((unsigned int)(minor) << 8) | \
	 (unsigned int)(patch))

/**
 * weave_version() - The version of the running library.
 *
 * Since libweave 1.1.  Compare it with WEAVE_VERSION(): a program built
 * against this header may find an older or a newer libweave.so.1 at run
 * time.
 *
 * Return: WEAVE_VERSION(major, minor, patch) of the library, for example
 * 0x010300 for 1.3.0.
 */
unsigned int weave_version(void);

/**
 * weave_ioctl() - Issue an ioctl on a weave device file.
 * @fd: A weave device file.
 * @request: A %DRM_IOCTL_WEAVE_* request, or a core DRM one.  The size of
 *           its argument is encoded in the request, as the caller's header
 *           defines it; the DRM core copies that many bytes in and out.
 * @arg: The argument, a struct of that size.
 *
 * Since libweave 1.1.  Restarts on EINTR and EAGAIN, as drmIoctl() does.
 * The inline helpers below go through it.
 *
 * Return: 0 on success, or the negative errno of the ioctl.
 */
int weave_ioctl(int fd, unsigned long request, void *arg);

/**
 * DOC: devices
 *
 * A weave device is a DRM render node (/dev/dri/renderD*) whose driver
 * name is "weave".  Devices are numbered from 0 in the order of their
 * render node minors; the numbering only changes when devices come or go.
 * Files are opened read-write and close-on-exec.
 */

/**
 * weave_device_open() - Open the weave device numbered @index.
 * @index: 0 for the first weave device, 1 for the second, and so on.
 *
 * Render nodes that cannot be opened are skipped.
 *
 * Return: a file descriptor on success; -ENODEV if there are at most
 * @index weave devices (and no render node failed to open); otherwise the
 * negative errno of the first render node that failed to open (for
 * example -EACCES), or of the failing libc call (for example -ENOMEM).
 */
int weave_device_open(unsigned int index);

/**
 * weave_device_open_path() - Open a device node and check it is weave.
 * @path: Path of the node, for example "/dev/dri/renderD128".
 *
 * Return: a file descriptor on success; -ENODEV if @path is not a DRM
 * device whose driver is weave; the negative errno of open() otherwise.
 */
int weave_device_open_path(const char *path);

/**
 * weave_device_count() - Count the weave devices.
 *
 * Render nodes that cannot be opened are not counted: whether they are
 * weave devices cannot be told.
 *
 * Return: the number of weave devices among the render nodes that could be
 * opened, if that is at least 1; 0 if there is none and every render node
 * could be opened (or there are no render nodes); otherwise, as
 * weave_device_open(0) does, the negative errno of the first render node
 * that failed to open (for example -EACCES, when the caller may not open
 * render nodes), or a negative errno if the render nodes cannot be listed
 * for another reason than there being none.
 */
int weave_device_count(void);

/**
 * weave_device_close() - Close a file opened by weave_device_open().
 * @fd: The file descriptor.
 *
 * Buffers whose last reference was this file are freed; mappings and
 * PRIME file descriptors keep theirs alive.
 *
 * Return: 0 on success, or the negative errno of close().
 */
int weave_device_close(int fd);

/**
 * DOC: queries
 *
 * %DRM_IOCTL_WEAVE_QUERY copies min(size, kernel size) bytes and zeroes
 * the rest of the caller's buffer, so a struct from a newer header can be
 * passed to an older kernel: fields it does not know read as zero.
 */

/**
 * weave_query() - Issue %DRM_IOCTL_WEAVE_QUERY.
 * @fd: A weave device file.
 * @type: One of &enum drm_weave_query_type.
 * @data: Buffer of *@size bytes to fill; may be NULL when *@size is 0.
 * @size: In: the number of bytes at @data (0 asks for the size only).
 *        Out: the size of the struct the kernel has for @type.
 *
 * Return: 0 on success; -EINVAL if @type is unknown; -EFAULT if @data
 * cannot be written.  *@size is only updated on success.
 */
int weave_query(int fd, uint32_t type, void *data, uint32_t *size);

/**
 * weave_query_device_info() - Query %DRM_WEAVE_QUERY_DEVICE_INFO.
 * @fd: A weave device file.
 * @info: Filled with the uAPI version and the device's limits.  Fields the
 *        running kernel does not know read as zero: a kernel before uAPI
 *        1.2 leaves max_slot_gates and max_delay_us zero (its limits were
 *        128 and 60000000).
 *
 * Return: 0 on success, or a negative errno as for weave_query().
 */
static inline int
weave_query_device_info(int fd, struct drm_weave_device_info *info)
{
	uint32_t size = sizeof(*info);

	return weave_query(fd, DRM_WEAVE_QUERY_DEVICE_INFO, info, &size);
}

/**
 * weave_query_memory_usage() - Query %DRM_WEAVE_QUERY_MEMORY_USAGE.
 * @fd: A weave device file.
 * @usage: Filled with the device-wide buffer count and bytes.
 *
 * Return: 0 on success, or a negative errno as for weave_query().
 */
static inline int
weave_query_memory_usage(int fd, struct drm_weave_memory_usage *usage)
{
	uint32_t size = sizeof(*usage);

	return weave_query(fd, DRM_WEAVE_QUERY_MEMORY_USAGE, usage, &size);
}

/**
 * weave_query_client_usage() - Query %DRM_WEAVE_QUERY_CLIENT_USAGE.
 * @fd: A weave device file.
 * @usage: Filled with what the kernel holds for @fd's streams and tasks:
 *         pending, queued and staged work, live streams and the kernel
 *         memory behind them.  Fields the running kernel does not know read
 *         as zero.
 *
 * The counts are those of @fd alone, not of other files of the device.
 *
 * Return: 0 on success, or a negative errno as for weave_query().
 */
static inline int
weave_query_client_usage(int fd, struct drm_weave_client_usage *usage)
{
	uint32_t size = sizeof(*usage);

	return weave_query(fd, DRM_WEAVE_QUERY_CLIENT_USAGE, usage, &size);
}

/**
 * weave_query_engines() - Query %DRM_WEAVE_QUERY_ENGINES.
 * @fd: A weave device file.
 * @engines: Filled with the device's engine queues and their engines.
 *
 * Since libweave 1.8, for uAPI 1.13.
 *
 * Return: 0 on success, or a negative errno as for weave_query()
 * (-EINVAL from an older kernel).
 */
static inline int weave_query_engines(int fd, struct drm_weave_engines *engines)
{
	uint32_t size = sizeof(*engines);

	return weave_query(fd, DRM_WEAVE_QUERY_ENGINES, engines, &size);
}

/**
 * DOC: buffers
 *
 * Buffers are GEM objects named by a handle that is only meaningful in the
 * file that created or imported it.  A buffer lives as long as a handle, a
 * mapping or a PRIME (dma-buf) file descriptor refers to it.
 */

/**
 * weave_bo_create() - Create a buffer with %DRM_IOCTL_WEAVE_BO_CREATE.
 * @fd: A weave device file.
 * @size: In: the size in bytes.  Out: the size rounded up to the page size.
 * @flags: A combination of %DRM_WEAVE_BO_FLAGS.
 * @handle: Out: the new buffer's handle in @fd.
 *
 * The buffer's contents read as zeroes.
 *
 * Return: 0 on success; -EINVAL if *@size is 0 or @flags is unknown;
 * -E2BIG if the rounded size is over the device's max_bo_size; -ENOMEM.
 * *@size and *@handle are only updated on success.
 */
int weave_bo_create(int fd, uint64_t *size, uint32_t flags, uint32_t *handle);

/**
 * weave_bo_mmap_offset() - Get a buffer's fake mmap offset.
 * @fd: The file that holds @handle.
 * @handle: The buffer's handle.
 * @offset: Out: the offset to pass to mmap() on @fd.
 *
 * Return: 0 on success; -ENOENT if @handle names no buffer in @fd; -EPERM
 * if the buffer was created with %DRM_WEAVE_BO_NO_MMAP.
 */
int weave_bo_mmap_offset(int fd, uint32_t handle, uint64_t *offset);

/**
 * weave_bo_mmap() - Map a buffer (shared) into the caller's address space.
 * @fd: The file that holds @handle.
 * @handle: The buffer's handle.
 * @size: Bytes to map from the start of the buffer; at most its size.
 * @prot: PROT_READ and/or PROT_WRITE.
 * @ptr: Out: the address of the mapping.
 *
 * The mapping keeps the buffer alive after its handle is closed; release
 * it with weave_bo_munmap().
 *
 * Return: 0 on success; an error of weave_bo_mmap_offset(); or the
 * negative errno of mmap() (-EINVAL if @size is 0 or over the buffer's
 * size, -EACCES if @prot asks more than the file allows).  *@ptr is only
 * updated on success.
 */
int weave_bo_mmap(int fd, uint32_t handle, size_t size, int prot, void **ptr);

/**
 * weave_bo_munmap() - Release a mapping made by weave_bo_mmap().
 * @ptr: The address weave_bo_mmap() returned.
 * @size: The size passed to weave_bo_mmap().
 *
 * Return: 0 on success, or the negative errno of munmap().
 */
int weave_bo_munmap(void *ptr, size_t size);

/**
 * weave_bo_close() - Close a buffer handle with %DRM_IOCTL_GEM_CLOSE.
 * @fd: The file that holds @handle.
 * @handle: The handle to close.
 *
 * The buffer is freed once no handle, mapping or dma-buf refers to it.
 *
 * Return: 0 on success; -EINVAL if @handle names no buffer in @fd.
 */
int weave_bo_close(int fd, uint32_t handle);

/**
 * weave_bo_export() - Export a buffer as a dma-buf (PRIME handle to fd).
 * @fd: The file that holds @handle.
 * @handle: The buffer's handle.
 * @flags: DRM_CLOEXEC and/or DRM_RDWR (DRM_RDWR is needed to mmap() the
 *         dma-buf file for writing; importing does not need it).
 * @dmabuf_fd: Out: the new dma-buf file descriptor; close() it when done.
 *
 * Return: 0 on success; -ENOENT if @handle names no buffer in @fd;
 * -EINVAL if @flags is unknown.
 */
int weave_bo_export(int fd, uint32_t handle, uint32_t flags, int *dmabuf_fd);

/**
 * weave_bo_import() - Import a dma-buf as a buffer (PRIME fd to handle).
 * @fd: A weave device file.
 * @dmabuf_fd: The dma-buf file descriptor; the caller keeps ownership.
 * @handle: Out: the buffer's handle in @fd.  Importing the same dma-buf
 *          into the same file again returns the same handle, and a buffer
 *          exported from @fd comes back with its original handle.
 *
 * Return: 0 on success; -EBADF if @dmabuf_fd is not an open file;
 * -EINVAL if it is not a dma-buf.
 */
int weave_bo_import(int fd, int dmabuf_fd, uint32_t *handle);

/**
 * DOC: streams
 *
 * A stream is a logical queue of tasks named by a handle in the file's own
 * namespace.  Stream handle h maps onto slot h % max_streams of the file's
 * pool (see &struct drm_weave_device_info); streams that share a slot share
 * its FIFO.  Fences are plain DRM syncobjs: create, wait, signal and export
 * them with libdrm (drmSyncobjCreate(), drmSyncobjWait(),
 * drmSyncobjTimelineWait(), drmSyncobjExportSyncFile(), ...).
 */

/**
 * weave_stream_create() - Create a stream with %DRM_IOCTL_WEAVE_STREAM_CREATE.
 * @fd: A weave device file.
 * @priority: One of &enum drm_weave_priority.
 * @handle: Out: the new stream's handle, never zero.
 *
 * Return: 0 on success; -EINVAL if @priority is unknown; -EPERM if it is
 * high and the caller lacks CAP_SYS_NICE; -ENOSPC if the file already has
 * max_client_streams streams; -ENOMEM.  *@handle is only updated on
 * success.
 */
int weave_stream_create(int fd, uint32_t priority, uint32_t *handle);

/**
 * weave_stream_destroy() - Destroy a stream (%DRM_IOCTL_WEAVE_STREAM_DESTROY).
 * @fd: The file that holds @stream.
 * @stream: The stream.
 *
 * Tasks still queued on the stream are executed first; the call does not
 * wait for them to complete.
 *
 * Return: 0 on success; -ENOENT if @stream names no stream of @fd;
 * -ENOMEM if the kernel had no memory to execute the queued tasks, and
 * then the stream is still there with its tasks queued.
 */
int weave_stream_destroy(int fd, uint32_t stream);

/**
 * weave_stream_isolate() - Put a stream in isolation or take it out.
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @op: %DRM_WEAVE_ISOLATION_ENTER or %DRM_WEAVE_ISOLATION_LEAVE.
 *
 * Issues %DRM_IOCTL_WEAVE_STREAM_ISOLATE.  Isolation belongs to the slot,
 * so it covers every stream folded onto it; each stream holds it once, and
 * the slot stays isolated until the last holder leaves.  Both operations
 * first submit what is queued on the slot.
 *
 * Return: 0 on success; -EINVAL if @op is unknown; -ENOENT if @stream
 * names no stream of @fd; -EALREADY if the stream already holds the
 * isolation (ENTER) or holds none (LEAVE); -ENOMEM if the kernel ran out
 * of memory submitting the slot's queued tasks (nothing changed).  It
 * works while the stream records its capture window too (see "DOC: graph
 * capture").
 */
int weave_stream_isolate(int fd, uint32_t stream, uint32_t op);

/**
 * weave_stream_query() - Read a stream's counters and state.
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @query: Out: filled by %DRM_IOCTL_WEAVE_STREAM_QUERY (enqueued, executed
 *         and completed counts, slot, priority, state, isolation, error).
 *
 * Return: 0 on success; -ENOENT if @stream names no stream of @fd.
 */
static inline int weave_stream_query(int fd, uint32_t stream,
				     struct drm_weave_stream_query *query)
{
	struct drm_weave_stream_query args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_STREAM_QUERY, &args);
	if (ret)
		return ret;
	*query = args;
	return 0;
}

/**
 * weave_wait() - Wait for a stream's flushed work (%DRM_IOCTL_WEAVE_WAIT).
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @timeout_ns: Absolute %CLOCK_MONOTONIC deadline in nanoseconds; 0 polls
 *              and %INT64_MAX waits forever.  See weave_timeout_ns().
 *
 * Queued tasks that were not flushed are not waited for.
 *
 * Signals do not end the wait.  A caught signal interrupts the ioctl
 * (the kernel returns -ERESTARTSYS) and its handler runs; then, if the
 * handler was installed with %SA_RESTART, the kernel restarts the ioctl,
 * and otherwise the ioctl fails with EINTR and drmIoctl() issues it
 * again.  Either way the wait resumes with the same absolute @timeout_ns,
 * so it still ends at the deadline, and weave_wait() never returns
 * -EINTR or -ERESTARTSYS.  To bound a wait, pass a deadline; a signal
 * that kills the process ends it too.
 *
 * Return: 0 when everything flushed so far has completed; -ETIME if the
 * deadline passed first; -ECANCELED if the work completed but the stream
 * has failed; -ENOENT if @stream names no stream of @fd; -EBUSY if the
 * stream records its capture window (see "DOC: graph capture").
 */
int weave_wait(int fd, uint32_t stream, int64_t timeout_ns);

/**
 * weave_wait_seqno() - Wait for a stream's tasks up to a sequence number.
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @seqno: A sequence number of the stream, as weave_enqueue() or
 *         weave_enqueue_flush() returned it; 0 returns at once.
 * @timeout_ns: Absolute %CLOCK_MONOTONIC deadline in nanoseconds, as for
 *              weave_wait().
 *
 * Since libweave 1.4, for uAPI 1.8: issues %DRM_IOCTL_WEAVE_WAIT with
 * %DRM_WEAVE_WAIT_SEQNO.  Returns as soon as the stream's tasks up to
 * @seqno have completed, while later work may still run.  Tasks up to
 * @seqno that were not flushed yet are waited for too: the call does not
 * flush, so flush them first (weave_enqueue_flush() does both) or the wait
 * ends at the deadline.  It works while the stream records its capture
 * window, where weave_wait() fails.  Signals do not end the wait, as for
 * weave_wait().
 *
 * Return: 0 when those tasks have completed; -ETIME if the deadline passed
 * first; -EINVAL if @seqno is past the stream's last sequence number, and
 * also from a kernel older than uAPI 1.8; -ECANCELED if they completed but
 * the stream has failed; -ENOENT if @stream names no stream of @fd;
 * -ENODEV if the device was unplugged.
 */
int weave_wait_seqno(int fd, uint32_t stream, uint64_t seqno,
		     int64_t timeout_ns);

/**
 * weave_timeout_ns() - An absolute deadline @rel_ns from now.
 * @rel_ns: Nanoseconds from now; negative values give a past deadline.
 *
 * Return: the current %CLOCK_MONOTONIC time plus @rel_ns, in nanoseconds,
 * saturated at %INT64_MAX, in the form weave_wait() and libdrm's syncobj
 * waits take.
 */
int64_t weave_timeout_ns(int64_t rel_ns);

/**
 * weave_set_param() - Change a setting of the file (%DRM_IOCTL_WEAVE_SET_PARAM).
 * @fd: A weave device file.
 * @param: One of &enum drm_weave_param.
 * @value: The new value.
 *
 * Return: 0 on success; -EINVAL if @param is unknown or @value is out of
 * range; -EBUSY if the setting can no longer change (%DRM_WEAVE_PARAM_MAX_TASKS
 * after the file's first enqueue); -ENOMEM (the setting is then unchanged).
 */
int weave_set_param(int fd, uint32_t param, uint64_t value);

/**
 * DOC: tasks
 *
 * Tasks are &struct drm_weave_task, built by the caller.  The helpers below
 * only fill the structs; they keep pointers to the caller's arrays, which
 * must stay valid until weave_enqueue() returns.  After that, nothing the
 * tasks point to is needed any more: host-write bytes are copied at enqueue.
 */

/**
 * weave_binding() - Build a &struct drm_weave_binding.
 * @handle: GEM handle of the buffer.
 * @access: %DRM_WEAVE_ACCESS_READ and/or %DRM_WEAVE_ACCESS_WRITE.
 * @offset: Byte offset of the range in the buffer.
 * @size: Byte size of the range.
 *
 * Return: the binding.
 */
static inline struct drm_weave_binding
weave_binding(uint32_t handle, uint32_t access, uint64_t offset, uint64_t size)
{
	struct drm_weave_binding binding;

	memset(&binding, 0, sizeof(binding));
	binding.handle = handle;
	binding.access = access;
	binding.offset = offset;
	binding.size = size;
	return binding;
}

/**
 * weave_task_launch() - Fill @task as a launch of a built-in kernel.
 * @task: The task to fill; every other field is zeroed.
 * @kernel: One of &enum drm_weave_kernel.
 * @bindings: @count bindings, in the order the kernel defines; may be NULL
 *            if @count is 0.
 * @count: The number of bindings.
 * @uniforms: @size bytes of inline uniforms; may be NULL if @size is 0.
 * @size: Their size in bytes.
 */
static inline void weave_task_launch(struct drm_weave_task *task,
				     uint32_t kernel,
				     const struct drm_weave_binding *bindings,
				     uint32_t count, const void *uniforms,
				     uint32_t size)
{
	memset(task, 0, sizeof(*task));
	task->type = DRM_WEAVE_TASK_LAUNCH;
	task->kernel = kernel;
	task->bindings.ptr = (uintptr_t)bindings;
	task->bindings.stride = sizeof(*bindings);
	task->bindings.count = count;
	task->uniforms = (uintptr_t)uniforms;
	task->uniforms_size = size;
}

/**
 * weave_task_host_write() - Fill @task as a host write.
 * @task: The task to fill; every other field is zeroed.
 * @binding: The single binding to write; its access must include
 *           %DRM_WEAVE_ACCESS_WRITE.
 * @data: binding->size bytes to write; copied by the kernel at enqueue.
 */
static inline void
weave_task_host_write(struct drm_weave_task *task,
		      const struct drm_weave_binding *binding, const void *data)
{
	memset(task, 0, sizeof(*task));
	task->type = DRM_WEAVE_TASK_HOST_WRITE;
	task->bindings.ptr = (uintptr_t)binding;
	task->bindings.stride = sizeof(*binding);
	task->bindings.count = 1;
	task->data = (uintptr_t)data;
}

/**
 * weave_sync() - Build a &struct drm_weave_sync.
 * @handle: A syncobj handle (from drmSyncobjCreate()).
 * @point: The timeline point, or 0 for a binary syncobj.
 *
 * Return: the sync entry.
 */
static inline struct drm_weave_sync
weave_sync(uint32_t handle, uint64_t point)
{
	struct drm_weave_sync sync;

	memset(&sync, 0, sizeof(sync));
	sync.handle = handle;
	sync.timeline_value = point;
	return sync;
}

/**
 * weave_enqueue_ex() - %DRM_IOCTL_WEAVE_ENQUEUE with every argument.
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @flags: Zero or %DRM_WEAVE_ENQUEUE_FLUSH.
 * @tasks: @count tasks, queued in order; may be NULL if @count is 0.
 * @count: The number of tasks.
 * @in_syncs: @in_count syncobj points that gate the tasks; may be NULL if
 *            @in_count is 0.
 * @in_count: The number of in-syncs.
 * @out_syncs: @out_count syncobj points to set, only with
 *             %DRM_WEAVE_ENQUEUE_FLUSH; may be NULL if @out_count is 0.
 * @out_count: The number of out-syncs.
 * @seqno: Out, may be NULL: the stream's sequence number after the last
 *         task; also written on -EINPROGRESS.
 *
 * Since libweave 1.4.  weave_enqueue() and weave_enqueue_flush() are this
 * with their flags; see them for what each does and returns.
 *
 * Return: 0 or a negative errno, as for those two.
 */
static inline int weave_enqueue_ex(int fd, uint32_t stream, uint32_t flags,
				   const struct drm_weave_task *tasks,
				   uint32_t count,
				   const struct drm_weave_sync *in_syncs,
				   uint32_t in_count,
				   const struct drm_weave_sync *out_syncs,
				   uint32_t out_count, uint64_t *seqno)
{
	struct drm_weave_enqueue args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	args.flags = flags;
	args.tasks.ptr = (uintptr_t)tasks;
	args.tasks.stride = sizeof(*tasks);
	args.tasks.count = count;
	args.in_syncs.ptr = (uintptr_t)in_syncs;
	args.in_syncs.stride = sizeof(*in_syncs);
	args.in_syncs.count = in_count;
	args.out_syncs.ptr = (uintptr_t)out_syncs;
	args.out_syncs.stride = sizeof(*out_syncs);
	args.out_syncs.count = out_count;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_ENQUEUE, &args);
	if (seqno && (!ret || ret == -EINPROGRESS))
		*seqno = args.seqno;
	return ret;
}

/**
 * weave_enqueue() - Queue tasks on a stream (%DRM_IOCTL_WEAVE_ENQUEUE).
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @tasks: @count tasks, queued in order.
 * @count: The number of tasks, 1 to max_tasks_per_enqueue.
 * @in_syncs: @in_count syncobj points that gate the tasks; may be NULL if
 *            @in_count is 0.
 * @in_count: The number of in-syncs.
 * @seqno: Out, may be NULL: the stream's sequence number after the last
 *         task.
 *
 * Either every task is queued or none is.
 *
 * Return: 0 on success; -EINVAL for a malformed task or array; -ENOENT if
 * the stream, a buffer or a syncobj does not exist or a syncobj point has
 * no fence; -E2BIG if a host write is over max_staged_bytes; -EBUSY if the
 * file would exceed max_pending_tasks or max_staged_bytes; -ECANCELED if
 * the stream has failed; -EFAULT if a user pointer cannot be read.  On a
 * stream that records its capture window (see "DOC: graph capture"), the
 * launches are recorded instead of run: -EINVAL with in-syncs, -ENOSPC if
 * the recording would pass max_graph_tasks.
 */
static inline int weave_enqueue(int fd, uint32_t stream,
				const struct drm_weave_task *tasks,
				uint32_t count,
				const struct drm_weave_sync *in_syncs,
				uint32_t in_count, uint64_t *seqno)
{
	return weave_enqueue_ex(fd, stream, 0, tasks, count, in_syncs,
				in_count, NULL, 0, seqno);
}

/**
 * weave_flush() - Submit a stream's queued tasks (%DRM_IOCTL_WEAVE_FLUSH).
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @out_sync: May be NULL.  Otherwise the syncobj point is given a fence
 *            that signals when everything flushed so far on the stream has
 *            completed.
 *
 * Does not wait.
 *
 * Return: 0 on success, when everything was submitted; -ENOENT if the
 * stream or the syncobj does not exist; -ECANCELED if the stream has
 * failed; -EBUSY if it records its capture window; -ENOMEM if the kernel
 * ran out of memory before everything was submitted: what was not stays
 * queued, in order, and calling again submits it.
 */
static inline int weave_flush(int fd, uint32_t stream,
			      const struct drm_weave_sync *out_sync)
{
	struct drm_weave_flush args;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	if (out_sync)
		args.out_sync = *out_sync;
	return weave_ioctl(fd, DRM_IOCTL_WEAVE_FLUSH, &args);
}

/**
 * weave_enqueue_flush() - Queue tasks, submit them and set out-syncs, in
 * one call.
 * @fd: The file that holds @stream.
 * @stream: The stream.
 * @tasks: @count tasks, queued in order; may be NULL if @count is 0.
 * @count: The number of tasks, 0 to max_tasks_per_enqueue.  With 0 (and
 *         no in-syncs) the call only flushes and sets the out-syncs.
 * @in_syncs: @in_count syncobj points that gate the tasks; may be NULL if
 *            @in_count is 0.
 * @in_count: The number of in-syncs.
 * @out_syncs: @out_count syncobj points (from weave_sync(); point 0 for a
 *             binary syncobj) that each get a fence that signals when
 *             everything flushed on the stream's slot so far, these tasks
 *             included, has completed; may be NULL if @out_count is 0.
 * @out_count: The number of out-syncs, at most max_in_syncs.
 * @seqno: Out, may be NULL: the stream's sequence number after the last
 *         task, also on -EINPROGRESS.
 *
 * Since libweave 1.4, for uAPI 1.8: %DRM_IOCTL_WEAVE_ENQUEUE with
 * %DRM_WEAVE_ENQUEUE_FLUSH, that is weave_enqueue(), then weave_flush()
 * once per out-sync, under one hold of the kernel's lock.  Every out-sync
 * is checked before anything is queued.  Does not wait; wait with
 * weave_wait_seqno() on *@seqno, or on an out-sync.
 *
 * Return: 0 when the tasks were queued and submitted and every out-sync
 * set; -EINPROGRESS when the tasks were queued but not all of the work
 * submitted (the kernel ran out of memory, say): the out-syncs are
 * unchanged, do not enqueue the tasks again, call again with no tasks
 * and the same out-syncs; otherwise nothing was queued, and the errors are
 * weave_enqueue()'s and weave_flush()'s, with -EINVAL also for an
 * out-sync with flags, too many out-syncs, and from a kernel older than
 * uAPI 1.8, -ENOENT for an out-sync whose syncobj does not exist, and
 * -EBUSY if the stream records its capture window.
 */
static inline int weave_enqueue_flush(int fd, uint32_t stream,
				      const struct drm_weave_task *tasks,
				      uint32_t count,
				      const struct drm_weave_sync *in_syncs,
				      uint32_t in_count,
				      const struct drm_weave_sync *out_syncs,
				      uint32_t out_count, uint64_t *seqno)
{
	return weave_enqueue_ex(fd, stream, DRM_WEAVE_ENQUEUE_FLUSH, tasks,
				count, in_syncs, in_count, out_syncs,
				out_count, seqno);
}

/**
 * weave_flush_all() - Submit every stream's queued tasks.
 * @fd: A weave device file.
 * @out_sync: May be NULL.  Otherwise the syncobj point is given a fence
 *            that signals when everything flushed so far on every stream of
 *            @fd has completed.
 *
 * Issues %DRM_IOCTL_WEAVE_FLUSH with %DRM_WEAVE_FLUSH_ALL.
 *
 * Return: 0 on success, when everything was submitted; -ENOENT if the
 * syncobj does not exist; -ENOMEM if the kernel ran out of memory before
 * everything was submitted, as weave_flush().
 */
static inline int weave_flush_all(int fd,
				  const struct drm_weave_sync *out_sync)
{
	struct drm_weave_flush args;

	memset(&args, 0, sizeof(args));
	args.flags = DRM_WEAVE_FLUSH_ALL;
	if (out_sync)
		args.out_sync = *out_sync;
	return weave_ioctl(fd, DRM_IOCTL_WEAVE_FLUSH, &args);
}

/**
 * DOC: failures
 *
 * Since libweave 1.2, for uAPI 1.3 (a kernel whose device info reports
 * max_check_ranges).  Failures live on bytes: a task that fails taints
 * the ranges it should have written, and a task that reads tainted bytes
 * is skipped and passes the same failure on to what it should have
 * written; a successful write makes its bytes good again.  Fences and
 * stream states do not report them, and a mapping shows the bytes as they
 * are.  weave_check() reports the failures on buffer ranges,
 * weave_read() reads a range once its writers are done or reports its
 * failures, and weave_failure_format() says one of them in a line, for
 * example::
 *
 *   failed: kernel "fail" (stream 3, seq 41, label 7) returned -EINVAL;
 *   then skipped "add" (stream 5, seq 12) and "crc32c" (stream 5, seq 13);
 *   failure #7
 *
 * (one line).  Give a task a label by setting its &drm_weave_task.label
 * after weave_task_launch() or weave_task_host_write(), which zero it.
 */

/**
 * weave_check_range() - Build a &struct drm_weave_check_range.
 * @handle: GEM handle of the buffer.
 * @offset: Byte offset of the range in the buffer.
 * @size: Byte size of the range; not zero.
 *
 * Since libweave 1.2.
 *
 * Return: the range, its out fields zero.
 */
static inline struct drm_weave_check_range
weave_check_range(uint32_t handle, uint64_t offset, uint64_t size)
{
	struct drm_weave_check_range range;

	memset(&range, 0, sizeof(range));
	range.handle = handle;
	range.offset = offset;
	range.size = size;
	return range;
}

/**
 * weave_check() - Report the failures on buffer ranges (%DRM_IOCTL_WEAVE_CHECK).
 * @fd: The file that holds the ranges' buffers.
 * @ranges: @count ranges.  On return (0 or -ENOSPC) each range's nfailures
 *          and first say which entries of the report are its: nfailures
 *          zero means all its bytes are good.
 * @count: The number of ranges, 1 to max_check_ranges.
 * @failures: Filled with the report's failures, each range's in turn; may
 *            be NULL if there is no room for any.
 * @nfailures: In: the room in @failures, in entries.  Out: the failure
 *             entries of the whole report, even if there are more than
 *             the room.  May be NULL: no room, and the count is not
 *             returned.
 * @skips: Filled with the failures' skip records; each failure's are at
 *         its first_skip, nskips of them, oldest first.  May be NULL if
 *         there is no room for any.
 * @nskips: In: the room in @skips.  Out: the skip entries of the whole
 *          report.  May be NULL, as @nfailures.
 *
 * Since libweave 1.2.  The report is the state of the bytes now: it does
 * not wait for queued or running work, so wait for the work that writes
 * the ranges first (weave_wait(), or a syncobj).  A failure is reported
 * to any file that can see the buffer, but the stream, sequence number
 * and label of a task only to the file that enqueued it
 * (%DRM_WEAVE_FAILURE_TASK_OWN); they are zero otherwise.  With no room at
 * all the call answers whether every byte is good: 0 if so, -ENOSPC with
 * the counts if not.
 *
 * Return: 0 on success, every entry written; -ENOSPC if the report did
 * not fit: the entries that fit are written, and *@nfailures, *@nskips and
 * each range's counts say how many there are; -EINVAL for a malformed
 * range (size zero, outside its buffer, flags) or a count of zero or over
 * max_check_ranges, and also from a kernel older than uAPI 1.3, which has
 * no CHECK; -ENOENT if a range's buffer does not exist in @fd; -EFAULT if
 * an array cannot be read or written.  *@nfailures and *@nskips are only
 * updated on success or -ENOSPC.
 */
static inline int weave_check(int fd, struct drm_weave_check_range *ranges,
			      uint32_t count,
			      struct drm_weave_failure *failures,
			      uint32_t *nfailures,
			      struct drm_weave_failure_task *skips,
			      uint32_t *nskips)
{
	struct drm_weave_check args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.ranges.ptr = (uintptr_t)ranges;
	args.ranges.stride = sizeof(*ranges);
	args.ranges.count = count;
	args.failures.ptr = (uintptr_t)failures;
	args.failures.stride = sizeof(*failures);
	args.failures.count = failures && nfailures ? *nfailures : 0;
	args.skips.ptr = (uintptr_t)skips;
	args.skips.stride = sizeof(*skips);
	args.skips.count = skips && nskips ? *nskips : 0;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_CHECK, &args);
	if (ret && ret != -ENOSPC)
		return ret;
	if (nfailures)
		*nfailures = args.nfailures;
	if (nskips)
		*nskips = args.nskips;
	return ret;
}

/**
 * weave_read() - Read a buffer range once its writers are done (%DRM_IOCTL_WEAVE_READ).
 * @fd: The file that holds the buffer.
 * @handle: GEM handle of the buffer.
 * @offset: Byte offset of the range.
 * @size: Byte size of the range; not zero.
 * @data: Where to copy the @size bytes.
 * @timeout_ns: Absolute CLOCK_MONOTONIC deadline, as weave_timeout_ns()
 *              gives it; zero polls, %INT64_MAX waits forever.
 * @failures: Filled, if the range carries failures, with them in the
 *            order of the first byte each taints; may be NULL if there is
 *            no room for any.
 * @nfailures: In: the room in @failures, in entries.  Out: the failures
 *             on the range, zero if it was read, even if there are more
 *             than the room.  May be NULL: no room, and the count is not
 *             returned.
 * @skips: Filled with the failures' skip records, as weave_check() fills
 *         them; may be NULL if there is no room for any.
 * @nskips: In: the room in @skips.  Out: the skip entries of the report.
 *          May be NULL, as @nfailures.
 *
 * Since libweave 1.2, for uAPI 1.3.  The call first submits the file's
 * queued work, as weave_flush_all(), then waits for every writer of the
 * buffer, this file's or another's, and copies the range to @data if
 * every byte of it is good.  If not, nothing is copied and the failures
 * are reported as weave_check() reports them for this one range: the
 * stream, sequence number and label of a task only to the file that
 * enqueued it.
 *
 * Return: 0 if the range was copied; -EIO if it carries failures, all
 * reported; -ENOSPC if it carries failures and the report did not fit:
 * the entries that fit are written, and *@nfailures and *@nskips say how
 * many there are; -ETIME if @timeout_ns passed first; -EINVAL for a
 * malformed range (size zero, outside the buffer) or a buffer of another
 * device, and also from a kernel older than uAPI 1.3, which has no READ;
 * -ENOENT if @handle names no buffer of @fd; -EFAULT if @data or an array
 * cannot be written; -ERESTARTSYS or -EINTR on a signal; -ENOMEM.
 * *@nfailures and *@nskips are only updated on 0, -EIO or -ENOSPC.
 */
static inline int weave_read(int fd, uint32_t handle, uint64_t offset,
			     uint64_t size, void *data, int64_t timeout_ns,
			     struct drm_weave_failure *failures,
			     uint32_t *nfailures,
			     struct drm_weave_failure_task *skips,
			     uint32_t *nskips)
{
	struct drm_weave_read args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.handle = handle;
	args.offset = offset;
	args.size = size;
	args.data = (uintptr_t)data;
	args.timeout_ns = timeout_ns;
	args.failures.ptr = (uintptr_t)failures;
	args.failures.stride = sizeof(*failures);
	args.failures.count = failures && nfailures ? *nfailures : 0;
	args.skips.ptr = (uintptr_t)skips;
	args.skips.stride = sizeof(*skips);
	args.skips.count = skips && nskips ? *nskips : 0;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_READ, &args);
	if (ret && ret != -EIO && ret != -ENOSPC)
		return ret;
	if (nfailures)
		*nfailures = args.nfailures;
	if (nskips)
		*nskips = args.nskips;
	return ret;
}

/**
 * weave_failure_format_sized() - weave_failure_format(), given the sizes.
 * @buf: See weave_failure_format().
 * @len: See weave_failure_format().
 * @failure: See weave_failure_format().
 * @failure_size: sizeof(*@failure) in the caller's header.
 * @skips: See weave_failure_format().
 * @skip_size: sizeof(*@skips) in the caller's header: the stride of
 *             @skips.
 *
 * Since libweave 1.2.  The library reads the caller's structs with the
 * caller's sizes, so that a library built against a uAPI whose structs
 * grew never reads past them, nor misplaces the skips.  Call
 * weave_failure_format(), which passes them.
 *
 * Return: as weave_failure_format(); -EINVAL also if a size is smaller
 * than the struct of uAPI 1.3.
 */
int weave_failure_format_sized(char *buf, size_t len,
			       const struct drm_weave_failure *failure,
			       size_t failure_size,
			       const struct drm_weave_failure_task *skips,
			       size_t skip_size);

/**
 * weave_failure_format() - Say a failure of a report in one line.
 * @buf: Where to write the line, NUL-terminated and cut to fit; may be
 *       NULL if @len is 0.
 * @len: Its size in bytes.
 * @failure: An entry of a report of weave_check() or weave_read().
 * @skips: The report's skip array, which holds the failure's skips
 *         (@failure->nskips of them from @failure->first_skip), or NULL
 *         to give only their number: say, when weave_check() returned
 *         -ENOSPC and they were not all written.
 *
 * Since libweave 1.2.  The line names the root task, what it returned,
 * the tasks skipped since, oldest first, and the failure's id::
 *
 *   failed: kernel "fail" (stream 3, seq 41, label 7) returned -EINVAL;
 *   then skipped "add" (stream 5, seq 12) and "crc32c" (stream 5, seq 13);
 *   failure #7
 *
 * (one line, without a newline).  A task's stream, sequence number and
 * label are given only when it is the caller's file's
 * (%DRM_WEAVE_FAILURE_TASK_OWN), the label only when it is not zero.
 * The cause says what the root did: "returned -EINVAL" (a kernel's
 * error, or an overflow, which says it stands for later failures too),
 * "timed out (-ETIMEDOUT)", "did not run: an in-sync signalled
 * -ECANCELED", "was cancelled (-ECANCELED)" (its client closed its file
 * or the device was unplugged), or "did not run: the kernel could not
 * submit it (-ENOMEM)" (it had no memory to pack the task into a job,
 * uAPI 1.4), or "did not run: a capture window refused it (-EBUSY)"
 * (uAPI 1.5).
 * Skip records the failure no longer keeps are counted: "and 3 earlier
 * skips".  Errors are named (-EINVAL), or given as numbers if unknown.
 *
 * Return: the length of the whole line, without its NUL, as snprintf()
 * returns it: a value of @len or more means the line was cut; -EINVAL if
 * @failure is NULL, or @buf is NULL and @len is not 0.
 */
static inline int
weave_failure_format(char *buf, size_t len,
		     const struct drm_weave_failure *failure,
		     const struct drm_weave_failure_task *skips)
{
	return weave_failure_format_sized(buf, len, failure, sizeof(*failure),
					  skips, sizeof(*skips));
}

/**
 * DOC: graph capture
 *
 * Since libweave 1.3, for uAPI 1.5 (a kernel whose device info reports
 * max_graphs).  A stream records the launches it is given into a graph,
 * once, and the graph is replayed many times without copying or checking
 * its tasks again.  weave_capture() moves a slot's capture window through
 * its states: %DRM_WEAVE_CAPTURE_PREPARE (isolate the slot; the owner's
 * tasks still run, a warm-up), %DRM_WEAVE_CAPTURE_BEGIN (record),
 * %DRM_WEAVE_CAPTURE_END (seal the graph), %DRM_WEAVE_CAPTURE_ABORT and
 * %DRM_WEAVE_CAPTURE_QUERY.  weave_replay() queues and submits a graph's
 * tasks on a stream; weave_graph_destroy() drops a graph.  The rules
 * are in "DOC: graph capture" of the uAPI; in short::
 *
 *   weave_capture(fd, s, DRM_WEAVE_CAPTURE_PREPARE, NULL);
 *   weave_enqueue(fd, s, tasks, n, NULL, 0, NULL);    (warm-up: runs)
 *   weave_capture(fd, s, DRM_WEAVE_CAPTURE_BEGIN, NULL);
 *   weave_enqueue(fd, s, tasks, n, NULL, 0, NULL);    (recorded)
 *   weave_capture(fd, s, DRM_WEAVE_CAPTURE_END, &cap);
 *   weave_replay(fd, cap.graph, s, NULL, 0, NULL, NULL);
 */

/**
 * weave_capture() - Act on a slot's capture window (%DRM_IOCTL_WEAVE_CAPTURE).
 * @fd: The file that holds @stream.
 * @stream: The calling stream; its slot's window is the one acted on.
 * @op: One of &enum drm_weave_capture_op.
 * @out: May be NULL.  Otherwise filled with the call's
 *       &struct drm_weave_capture, whether it succeeded or not: the
 *       window's state and owner after the call, the graph END made, the
 *       tasks recorded so far, and the errno and failure that doomed the
 *       window, if any.
 *
 * Since libweave 1.3, for uAPI 1.5.
 *
 * Return: 0 on success; -EINVAL if @op is unknown, and also from a kernel
 * older than uAPI 1.5, which has no graph capture; -ENOENT if @stream
 * names no stream of @fd; -EBUSY for PREPARE on a slot that has a window;
 * -EBADFD for BEGIN by a stream that owns no prepared window, or END on a
 * slot whose window is not recording; -EIO if BEGIN or END found the
 * window doomed (it is closed); -ECANCELED if END by another stream of
 * the slot abandoned the window (@out->owner names its owner); -ENOSPC if
 * END found @fd holding max_graphs graphs (the window goes on recording);
 * -ERESTARTSYS on a signal during a drain; -ENOMEM; -ENODEV.
 */
static inline int weave_capture(int fd, uint32_t stream, uint32_t op,
				struct drm_weave_capture *out)
{
	struct drm_weave_capture args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	args.op = op;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_CAPTURE, &args);
	if (out)
		*out = args;
	return ret;
}

/**
 * weave_replay() - Run a graph on a stream (%DRM_IOCTL_WEAVE_REPLAY).
 * @fd: The file that holds @graph and @stream.
 * @graph: The graph, from weave_capture()'s END.
 * @stream: The stream to queue its tasks on, in their recorded order.
 * @in: @nin syncobj points that gate the replay; may be NULL if @nin is 0.
 * @nin: The number of in-syncs, at most max_in_syncs.
 * @out_sync: May be NULL.  Otherwise the syncobj point is given the
 *            replay's fence, as weave_flush() gives its out-sync.
 * @seqno: Out, may be NULL: the stream's sequence number of the graph's
 *         last task.
 *
 * Since libweave 1.3, for uAPI 1.5.  The tasks are queued and submitted at
 * once, as weave_enqueue() then weave_flush() would; the call does not
 * wait.
 *
 * Return: 0 on success; -EINVAL for a malformed in-sync or more than
 * max_in_syncs of them, and also from a kernel older than uAPI 1.5;
 * -ENOENT if @graph, @stream or a syncobj does not exist or an in-sync
 * point has no fence; -EBUSY if @stream is recording or @fd would exceed
 * max_pending_tasks; -ECANCELED if the stream has failed; -ENOMEM;
 * -EINPROGRESS (uAPI 1.9) if the tasks were queued and not all submitted:
 * *@seqno is theirs, the out-sync is unchanged, and weave_flush() submits
 * the rest (a kernel before uAPI 1.9 returned -ENOMEM or -EINTR for it
 * instead); -EFAULT; -ENODEV.  *@seqno is updated on success and on
 * -EINPROGRESS.
 */
static inline int weave_replay(int fd, uint32_t graph, uint32_t stream,
			       const struct drm_weave_sync *in, uint32_t nin,
			       const struct drm_weave_sync *out_sync,
			       uint64_t *seqno)
{
	struct drm_weave_replay args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.graph = graph;
	args.stream = stream;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	if (out_sync)
		args.out_sync = *out_sync;
	ret = weave_ioctl(fd, DRM_IOCTL_WEAVE_REPLAY, &args);
	if (seqno && (!ret || ret == -EINPROGRESS))
		*seqno = args.seqno;
	return ret;
}

/**
 * weave_graph_destroy() - Drop a graph (%DRM_IOCTL_WEAVE_GRAPH_DESTROY).
 * @fd: The file that holds @graph.
 * @graph: The graph.
 *
 * Since libweave 1.3, for uAPI 1.5.  The graph's references to its
 * buffers are dropped; replays of it still in flight keep their own and
 * complete.
 *
 * Return: 0 on success; -ENOENT if @graph names no graph of @fd; -EINVAL
 * from a kernel older than uAPI 1.5.
 */
int weave_graph_destroy(int fd, uint32_t graph);

/**
 * DOC: shared rings
 *
 * Since libweave 1.5, for uAPI 1.9 (see "DOC: shared submission rings" in
 * weave_drm.h).  weave_ring_create() makes a ring for a stream and maps
 * it; a producer then reserves a descriptor with weave_ring_reserve(),
 * fills it in place, and publishes what it reserved with
 * weave_ring_publish(), one release store; weave_ring_enter() rings the
 * doorbell.  weave_ring_completed() reads the stream's completed count
 * from the ring's header, without a system call.  One thread produces
 * on a ring at a time: the calls that write it take no lock.
 *
 * The tasks a ring queues wait in their stream's slot like those of
 * weave_enqueue(): flush the stream (weave_flush()) to run them before
 * the slot fills.
 *
 * Since libweave 1.6, for uAPI 1.10, weave_ring_create_flags() with
 * %DRM_WEAVE_RING_CREATE_POLL makes a ring of poll mode, which a kernel
 * thread consumes; weave_ring_submit() publishes and rings the doorbell
 * only if the header says %DRM_WEAVE_RING_NEED_WAKEUP (always, on a ring
 * of doorbell mode), so a producer that keeps a polled ring busy makes no
 * system call.  Before waiting for what it published (the head, or the
 * completions), a producer calls weave_ring_wakeup(): a task the thread
 * could not queue for now is left to the doorbell once the thread sleeps.
 */

/**
 * struct weave_ring - A shared submission ring, mapped.
 * @fd: The file that holds it.
 * @ring: Its handle.
 * @stream: The stream it feeds.
 * @units: Units of its descriptor area, a power of two.
 * @tail: Units reserved, modulo 2^32; published up to it by
 *        weave_ring_publish().
 * @hdr: The header, mapped read-only.
 * @sq: The submission area, mapped shared.
 * @descs: The descriptors in @sq.
 * @sq_size: Bytes of @sq's mapping.
 */
struct weave_ring {
	int fd;
	uint32_t ring;
	uint32_t stream;
	uint32_t units;
	uint32_t tail;
	const struct drm_weave_ring_header *hdr;
	struct drm_weave_ring_sq *sq;
	uint8_t *descs;
	size_t sq_size;
};

/**
 * weave_ring_create() - Make a shared ring for a stream and map it.
 * @fd: The file that holds @stream.
 * @stream: The stream the ring feeds; it has no ring yet.
 * @units: Units of %DRM_WEAVE_RING_UNIT bytes: a power of two from 64 to
 *         max_ring_units.
 * @ring: Out: the ring.
 *
 * Since libweave 1.5, for uAPI 1.9: %DRM_IOCTL_WEAVE_RING_CREATE, then
 * mmap() of its header (read-only) and submission area.
 *
 * Return: 0 on success; the errors of &struct drm_weave_ring_create
 * (-EINVAL from a kernel older than uAPI 1.9), or of mmap().
 */
int weave_ring_create(int fd, uint32_t stream, uint32_t units,
		      struct weave_ring *ring);

/**
 * weave_ring_create_flags() - weave_ring_create(), with flags.
 * @fd: The file that holds @stream.
 * @stream: The stream the ring feeds; it has no ring yet.
 * @units: As for weave_ring_create().
 * @flags: Zero or %DRM_WEAVE_RING_CREATE_POLL.
 * @ring: Out: the ring.
 *
 * Since libweave 1.6, for uAPI 1.10.
 *
 * Return: as weave_ring_create(); -EINVAL for %DRM_WEAVE_RING_CREATE_POLL
 * from a kernel older than uAPI 1.10.
 */
int weave_ring_create_flags(int fd, uint32_t stream, uint32_t units,
			    uint32_t flags, struct weave_ring *ring);

/**
 * weave_ring_destroy() - Unmap a ring and destroy it.
 * @ring: A ring from weave_ring_create().
 *
 * Since libweave 1.5, for uAPI 1.9.  What was published and not consumed
 * is dropped.
 *
 * Return: 0 on success; -ENOENT if the ring is gone already.
 */
int weave_ring_destroy(struct weave_ring *ring);

/**
 * weave_ring_enter() - Ring the doorbell: consume every ring of a file.
 * @fd: The file.
 * @consumed: Out, if not NULL: descriptors consumed, skips included.
 *
 * Since libweave 1.5, for uAPI 1.9: %DRM_IOCTL_WEAVE_RING_ENTER.
 *
 * Return: 0 on success, also when a ring stopped at a bad descriptor
 * (see weave_ring_error()); otherwise the errors of &struct
 * drm_weave_ring_enter.
 */
int weave_ring_enter(int fd, uint32_t *consumed);

/**
 * weave_ring_resume() - Acknowledge a ring's error, and consume again.
 * @ring: A ring that stopped (weave_ring_error() is not zero).
 * @consumed: Out, if not NULL, as for weave_ring_enter().
 *
 * Since libweave 1.5, for uAPI 1.9.  Rewrite the bad descriptor first, or
 * make it a skip with weave_ring_skip_bad(): consuming starts again at it.
 *
 * Return: 0 on success; -EALREADY if the ring is not stopped; otherwise
 * as weave_ring_enter().
 */
int weave_ring_resume(struct weave_ring *ring, uint32_t *consumed);

/**
 * weave_ring_desc_units() - The units of a descriptor.
 * @num_bindings: Its bindings, at most 8.
 * @uniforms_size: Its uniform bytes, at most 64.
 *
 * Since libweave 1.5.
 *
 * Return: The units it takes in a ring.
 */
static inline uint32_t weave_ring_desc_units(uint32_t num_bindings,
					     uint32_t uniforms_size)
{
	return (uint32_t)((sizeof(struct drm_weave_ring_desc) +
			   num_bindings * sizeof(struct drm_weave_binding) +
			   uniforms_size + DRM_WEAVE_RING_UNIT - 1) /
			  DRM_WEAVE_RING_UNIT);
}

/**
 * weave_ring_head() - The units the kernel has consumed (acquire load).
 * @ring: The ring.
 *
 * Since libweave 1.5.
 *
 * Return: &drm_weave_ring_header.head.
 */
static inline uint32_t weave_ring_head(const struct weave_ring *ring)
{
	return __atomic_load_n(&ring->hdr->head, __ATOMIC_ACQUIRE);
}

/**
 * weave_ring_completed() - The stream's completed count, with no system
 * call.
 * @ring: The ring.
 *
 * Since libweave 1.5.  Tasks of the stream up to this sequence number
 * are done; weave_wait_seqno() sleeps until a later one is.
 *
 * Return: &drm_weave_ring_header.completed.
 */
static inline uint64_t weave_ring_completed(const struct weave_ring *ring)
{
	return __atomic_load_n(&ring->hdr->completed, __ATOMIC_ACQUIRE);
}

/**
 * weave_ring_seqno() - The sequence number of the ring's last task.
 * @ring: The ring.
 *
 * Since libweave 1.5.
 *
 * Return: &drm_weave_ring_header.seqno: of the last task consumed from
 * @ring, for weave_wait_seqno().
 */
static inline uint64_t weave_ring_seqno(const struct weave_ring *ring)
{
	(void)weave_ring_head(ring);	/* orders the read after the head */
	return __atomic_load_n(&ring->hdr->seqno, __ATOMIC_RELAXED);
}

/**
 * weave_ring_error() - Whether a ring stopped, and where.
 * @ring: The ring.
 * @index: Out, if not NULL: the position of the bad descriptor.
 *
 * Since libweave 1.5.
 *
 * Return: 0, or the negative errno the ring stopped with.
 */
static inline int weave_ring_error(const struct weave_ring *ring,
				   uint32_t *index)
{
	uint32_t flags = __atomic_load_n(&ring->hdr->flags, __ATOMIC_ACQUIRE);

	if (!(flags & DRM_WEAVE_RING_STOPPED))
		return 0;
	if (index)
		*index = ring->hdr->error_index;
	return ring->hdr->error;
}

/**
 * weave_ring_reserve() - Reserve a descriptor past the tail.
 * @ring: The ring.
 * @num_bindings: Its bindings, at most 8.
 * @uniforms_size: Its uniform bytes, at most 64.
 *
 * Since libweave 1.5.  The descriptor is zeroed but for its sizes; fill
 * in its type and the rest, its bindings at weave_ring_desc_bindings()
 * and its uniforms at weave_ring_desc_uniforms(), then publish it with
 * weave_ring_publish().  A descriptor that would wrap is put at the start
 * of the area, after a skip.
 *
 * Return: The descriptor, or NULL if the ring has no room (the kernel has
 * not consumed enough yet: ring the doorbell).
 */
static inline struct drm_weave_ring_desc *
weave_ring_reserve(struct weave_ring *ring, uint32_t num_bindings,
		   uint32_t uniforms_size)
{
	uint32_t u = weave_ring_desc_units(num_bindings, uniforms_size);
	uint32_t pos = ring->tail & (ring->units - 1);
	uint32_t pad = pos + u > ring->units ? ring->units - pos : 0;
	struct drm_weave_ring_desc *d;

	if (num_bindings > 8 || uniforms_size > 64 ||
	    ring->tail + pad + u - weave_ring_head(ring) > ring->units)
		return NULL;
	if (pad) {
		d = (struct drm_weave_ring_desc *)(ring->descs +
						   (size_t)pos * DRM_WEAVE_RING_UNIT);
		d->units = (uint8_t)pad;
		d->type = DRM_WEAVE_RING_DESC_SKIP;
		ring->tail += pad;
		pos = 0;
	}
	d = (struct drm_weave_ring_desc *)(ring->descs +
					   (size_t)pos * DRM_WEAVE_RING_UNIT);
	memset(d, 0, (size_t)u * DRM_WEAVE_RING_UNIT);
	d->units = (uint8_t)u;
	d->num_bindings = (uint8_t)num_bindings;
	d->uniforms_size = (uint8_t)uniforms_size;
	ring->tail += u;
	return d;
}

/**
 * weave_ring_desc_bindings() - The bindings of a descriptor.
 * @d: A descriptor from weave_ring_reserve().
 *
 * Since libweave 1.5.
 *
 * Return: Its &drm_weave_ring_desc.num_bindings bindings.
 */
static inline struct drm_weave_binding *
weave_ring_desc_bindings(struct drm_weave_ring_desc *d)
{
	return (struct drm_weave_binding *)(d + 1);
}

/**
 * weave_ring_desc_uniforms() - The uniform bytes of a descriptor.
 * @d: A descriptor from weave_ring_reserve().
 *
 * Since libweave 1.5.
 *
 * Return: Where its &drm_weave_ring_desc.uniforms_size bytes go.
 */
static inline void *weave_ring_desc_uniforms(struct drm_weave_ring_desc *d)
{
	return weave_ring_desc_bindings(d) + d->num_bindings;
}

/**
 * weave_ring_publish() - Publish what was reserved (release store).
 * @ring: The ring.
 *
 * Since libweave 1.5.  The kernel consumes it at the next doorbell.
 */
static inline void weave_ring_publish(struct weave_ring *ring)
{
	__atomic_store_n(&ring->sq->tail, ring->tail, __ATOMIC_RELEASE);
}

/**
 * weave_ring_skip_bad() - Make the descriptor a ring stopped at a skip.
 * @ring: A ring that stopped at a descriptor (weave_ring_error()).
 *
 * Since libweave 1.5.  Keeps the descriptor's size, so what follows stays
 * where it is; then weave_ring_resume() goes on after it.
 */
static inline void weave_ring_skip_bad(struct weave_ring *ring)
{
	uint32_t pos = weave_ring_head(ring) & (ring->units - 1);
	struct drm_weave_ring_desc *d = (struct drm_weave_ring_desc *)
		(ring->descs + (size_t)pos * DRM_WEAVE_RING_UNIT);

	__atomic_store_n(&d->type, DRM_WEAVE_RING_DESC_SKIP, __ATOMIC_RELAXED);
}

/**
 * weave_ring_noop() - Reserve and fill a no-op launch.
 * @ring: The ring.
 *
 * Since libweave 1.5.  Publish it with weave_ring_publish().
 *
 * Return: 0, or -ENOSPC if the ring has no room.
 */
static inline int weave_ring_noop(struct weave_ring *ring)
{
	struct drm_weave_ring_desc *d = weave_ring_reserve(ring, 0, 0);

	if (!d)
		return -ENOSPC;
	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = DRM_WEAVE_KERNEL_NOOP;
	return 0;
}

/**
 * weave_ring_needs_wakeup() - Whether the doorbell must be rung for what
 * was published.
 * @ring: The ring, published.
 *
 * Since libweave 1.6.  A full barrier after the tail's store, then the
 * flags: the kernel's polling thread sets the flag, makes a full barrier
 * and reads the tails, so one side always sees the other.
 *
 * Return: Whether %DRM_WEAVE_RING_NEED_WAKEUP is set.
 */
static inline int weave_ring_needs_wakeup(const struct weave_ring *ring)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !!(__atomic_load_n(&ring->hdr->flags, __ATOMIC_RELAXED) &
		  DRM_WEAVE_RING_NEED_WAKEUP);
}

/**
 * weave_ring_wakeup() - Ring the doorbell if the ring needs it.
 * @ring: The ring, published.
 * @entered: If not NULL, incremented when the doorbell was rung.
 *
 * Since libweave 1.6.
 *
 * Return: 0, or the error of weave_ring_enter().
 */
static inline int weave_ring_wakeup(struct weave_ring *ring,
				    uint32_t *entered)
{
	if (!weave_ring_needs_wakeup(ring))
		return 0;
	if (entered)
		(*entered)++;
	return weave_ring_enter(ring->fd, NULL);
}

/**
 * weave_ring_submit() - Publish what was reserved, and ring the doorbell
 * only if the ring needs it.
 * @ring: The ring.
 * @entered: If not NULL, incremented when the doorbell was rung.
 *
 * Since libweave 1.6.  On a polled ring whose thread polls, no system
 * call.
 *
 * Return: 0, or the error of weave_ring_enter().
 */
static inline int weave_ring_submit(struct weave_ring *ring,
				    uint32_t *entered)
{
	weave_ring_publish(ring);
	return weave_ring_wakeup(ring, entered);
}

/**
 * DOC: completion page
 *
 * Since libweave 1.7, for uAPI 1.11 (see "DOC: completion page" in
 * weave_drm.h).  weave_completions_map() maps a file's completion area,
 * read-only; weave_stream_completed() then reads any stream's completed
 * count with no system call, whether the stream has a ring or not.
 */

/**
 * struct weave_completions - A file's completion area, mapped.
 * @fd: The file.
 * @entries: The area: stream h's count is entry h - 1.
 * @count: Its entries, max_client_streams.
 * @size: Bytes of the mapping.
 */
struct weave_completions {
	int fd;
	const uint64_t *entries;
	uint32_t count;
	size_t size;
};

/**
 * weave_completions_map() - Map a file's completion area.
 * @fd: A weave file.
 * @map: Out: the mapping.
 *
 * Since libweave 1.7.  The kernel makes the area on the first call for
 * the file, for every stream it has and will have; each call maps it
 * once more.
 *
 * Return: 0 on success; the errors of &struct drm_weave_completions
 * (-EINVAL also from a kernel before uAPI 1.11); those of mmap().
 */
int weave_completions_map(int fd, struct weave_completions *map);

/**
 * weave_completions_unmap() - Unmap a completion area.
 * @map: A mapping from weave_completions_map(); zeroed.
 *
 * Since libweave 1.7.
 */
void weave_completions_unmap(struct weave_completions *map);

/**
 * weave_stream_completed() - A stream's completed count, with no system
 * call (acquire load).
 * @map: The file's completion area, mapped.
 * @stream: A stream of the file.
 *
 * Since libweave 1.7.  Tasks of the stream up to this sequence number
 * are done, and what they wrote is visible; weave_wait_seqno() sleeps
 * until a later one is.  Zero for a handle that names no stream (also
 * once the stream is destroyed).
 *
 * Return: The count, or zero for a handle out of range.
 */
static inline uint64_t
weave_stream_completed(const struct weave_completions *map, uint32_t stream)
{
	if (stream == 0 || stream > map->count)
		return 0;
	return __atomic_load_n(&map->entries[stream - 1], __ATOMIC_ACQUIRE);
}

/**
 * DOC: shaders
 *
 * Since libweave 1.8, for uAPI 1.13 (see "DOC: shaders" in weave_drm.h).
 * weave_shader_create() hands the kernel a SPIR-V module of the caller's
 * own compute kernels and names the entry points that tasks of the file
 * may run; weave_shader_destroy() drops it.
 */

/**
 * weave_shader_create() - Make a shader (%DRM_IOCTL_WEAVE_SHADER_CREATE).
 * @fd: A weave file.
 * @code: The SPIR-V module, 4-byte aligned, in the host's byte order.
 * @size: Its size in bytes.
 * @entries: The names of its GLCompute entry points that tasks will run;
 *	entry point i of the shader is @entries[i].
 * @nentries: How many, 1 to max_shader_entries.
 * @shader: Out: the shader's handle.
 *
 * Since libweave 1.8.  The kernel copies the module and checks its header,
 * its instruction stream and the entry points; it does not validate it
 * further (the engine does, before it builds a pipeline).
 *
 * Return: 0 on success; -EINVAL for a NULL name or one of 64 bytes or
 * more, or @size over 4 GiB; -ENOMEM; otherwise the errors of &struct
 * drm_weave_shader_create (-EINVAL also from a kernel before uAPI 1.13).
 */
int weave_shader_create(int fd, const void *code, size_t size,
			const char *const *entries, uint32_t nentries,
			uint32_t *shader);

/**
 * weave_shader_destroy() - Drop a shader (%DRM_IOCTL_WEAVE_SHADER_DESTROY).
 * @fd: The file that holds @shader.
 * @shader: The shader.
 *
 * Since libweave 1.8.
 *
 * Return: 0 on success; -ENOENT if @shader names no shader of @fd;
 * -EINVAL from a kernel before uAPI 1.13.
 */
int weave_shader_destroy(int fd, uint32_t shader);

/**
 * weave_engine_attach() - Attach the caller as a user engine
 * (%DRM_IOCTL_WEAVE_ENGINE_ATTACH).
 * @fd: A weave device file.
 * @queues: The engine queues to hold: bit i for engine queue i.
 * @name: What the engine runs: 1 to 31 printable ASCII bytes.
 * @engine_fd: Out: the engine's file; closing it detaches the engine.
 * @generation: Out, if not NULL: the attachment's generation.
 *
 * Since libweave 1.8, for uAPI 1.13; see "DOC: user engines" in
 * weave_drm.h.  Needs CAP_SYS_ADMIN.
 *
 * Return: 0 on success; -EINVAL for a NULL or too long @name; otherwise
 * the errors of &struct drm_weave_engine_attach (-EINVAL also from a
 * kernel before uAPI 1.13).
 */
int weave_engine_attach(int fd, uint64_t queues, const char *name,
			int *engine_fd, uint32_t *generation);

#if defined(__cplusplus)
}
#endif

#endif /* _WEAVE_H_ */
