/* SPDX-License-Identifier: MIT */
/*
 * wvk: the public interface of weave-engine's executor, which runs jobs of
 * SPIR-V compute tasks on one Vulkan device, whatever hands it the jobs.
 *
 * Every function returns 0 (or a documented non-negative value) on success
 * and a negative errno value on failure; a failure also leaves a sentence
 * saying why in a per-thread buffer that wvk_error() returns.  Nothing
 * prints or exits.  One device may be used from several threads as long as
 * no two of them use it at once: the caller serialises (the daemon has one
 * thread per device).
 */
#ifndef _WVK_H_
#define _WVK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

struct wvk_device;
struct wvk_buffer;
struct wvk_pipeline;
struct wvk_job;

/* The most push-constant bytes a task passes, if the device takes them. */
#define WVK_PUSH_MAX		128u
/* The most storage buffers a pipeline binds (set 0, bindings 0..N-1). */
#define WVK_BINDINGS_MAX	16u
/* The most tasks in one job. */
#define WVK_TASKS_MAX		256u

/**
 * enum wvk_mem_path - How the device reaches client buffers.
 * @WVK_MEM_HOST_PTR: The caller's pages are imported as they are
 *                    (VK_EXT_external_memory_host): zero copy.
 * @WVK_MEM_DMABUF: dma-buf file descriptors are imported
 *                  (VK_EXT_external_memory_dma_buf); host regions then go
 *                  through host-pointer import if the device has it too,
 *                  or through a staging copy.
 * @WVK_MEM_STAGING: Neither: each buffer has device memory of its own, and
 *                   a job copies the bound ranges in at submission and the
 *                   written ones out when it is waited for.
 */
enum wvk_mem_path {
	WVK_MEM_HOST_PTR,
	WVK_MEM_DMABUF,
	WVK_MEM_STAGING,
};

/* wvk_device_opts.lp_num_threads: leave LP_NUM_THREADS as it is. */
#define WVK_LP_THREADS_KEEP	(-1)
/* wvk_device_opts.lp_num_threads: 0 unless the environment sets it. */
#define WVK_LP_THREADS_DAEMON	(-2)

/**
 * struct wvk_device_opts - What wvk_device_create() opens.
 * @index: The physical device's index in Vulkan's enumeration, or -1.
 * @name: A substring of the device's name to pick it by, or NULL.  With
 *        both -1 and NULL, the first device is taken.
 * @cache_dir: A directory for the pipeline cache files, or NULL for none.
 * @lp_num_threads: For lavapipe: a value >= 0 sets LP_NUM_THREADS before
 *                  the instance is made (0 runs dispatches on lavapipe's
 *                  queue thread, with no rasteriser threads);
 *                  %WVK_LP_THREADS_DAEMON sets 0 unless the variable is
 *                  already set, which is what weave-engine does;
 *                  %WVK_LP_THREADS_KEEP changes nothing.  setenv() is not
 *                  thread-safe: create devices before starting threads.
 * @force_staging: Take %WVK_MEM_STAGING whatever the device offers (for
 *                 tests, and for drivers whose import is broken).
 */
struct wvk_device_opts {
	int index;
	const char *name;
	const char *cache_dir;
	int lp_num_threads;
	bool force_staging;
};

/**
 * struct wvk_device_info - What a device is and what it allows.
 * @name: Its name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
 * @driver: The driver's name and version text, if the device reports them.
 * @index: Its index in Vulkan's enumeration.
 * @api_version: The Vulkan version it supports (VK_MAKE_API_VERSION).
 * @driver_version: Its driver version, as the driver encodes it.
 * @vendor_id: The PCI vendor id, or a Khronos one.
 * @device_id: The device id.
 * @cache_uuid: pipelineCacheUUID: the pipeline cache files are keyed by it.
 * @max_group_count: maxComputeWorkGroupCount.
 * @max_group_size: maxComputeWorkGroupSize.
 * @max_group_invocations: maxComputeWorkGroupInvocations.
 * @max_shared_memory: maxComputeSharedMemorySize.
 * @max_push_constants: maxPushConstantsSize.
 * @max_storage_range: maxStorageBufferRange.
 * @max_bound_sets: maxBoundDescriptorSets.
 * @max_push_descriptors: maxPushDescriptors.
 * @storage_offset_align: minStorageBufferOffsetAlignment.
 * @host_ptr_align: minImportedHostPointerAlignment, 0 without the import.
 * @push_bytes: The push-constant bytes a task may pass here:
 *              min(%WVK_PUSH_MAX, @max_push_constants).
 * @mem_path: How client buffers are reached.
 * @has_host_ptr: VK_EXT_external_memory_host is there.
 * @has_dmabuf: VK_EXT_external_memory_dma_buf and
 *              VK_KHR_external_memory_fd are there.
 * @is_lavapipe: The device is Mesa's lavapipe (CPU).
 * @cache_loaded: The pipeline cache was read from the cache directory: its
 *                file was there, the daemon's own, whole, and of this
 *                device and driver version.  Any other file is ignored.
 */
struct wvk_device_info {
	char name[256];
	char driver[256];
	uint32_t index;
	uint32_t api_version;
	uint32_t driver_version;
	uint32_t vendor_id;
	uint32_t device_id;
	uint8_t cache_uuid[16];
	uint32_t max_group_count[3];
	uint32_t max_group_size[3];
	uint32_t max_group_invocations;
	uint32_t max_shared_memory;
	uint32_t max_push_constants;
	uint32_t max_storage_range;
	uint32_t max_bound_sets;
	uint32_t max_push_descriptors;
	uint64_t storage_offset_align;
	uint64_t host_ptr_align;
	uint32_t push_bytes;
	enum wvk_mem_path mem_path;
	bool has_host_ptr;
	bool has_dmabuf;
	bool is_lavapipe;
	bool cache_loaded;
};

/**
 * wvk_error() - Why this thread's last failing call failed.
 *
 * Return: a sentence, valid until this thread's next wvk call; "" if
 * nothing failed yet.
 */
const char *wvk_error(void);

/**
 * wvk_now_ns() - CLOCK_MONOTONIC in nanoseconds, the clock of deadlines.
 *
 * Return: the time.
 */
uint64_t wvk_now_ns(void);

/**
 * wvk_device_create() - Open a Vulkan device for compute.
 * @opts: Which device, and how; NULL for the defaults (first device, no
 *        disk cache, LP_NUM_THREADS untouched).
 * @out: The device, on success.
 *
 * Return: 0; -ENODEV if no device matches or the device lacks timeline
 * semaphores, push descriptors or a compute queue; -ENOMEM; -EIO for
 * another Vulkan failure.
 */
int wvk_device_create(const struct wvk_device_opts *opts,
		      struct wvk_device **out);

/**
 * wvk_device_info() - What the device is, its limits and memory path.
 * @dev: The device.
 *
 * Return: the device's description, valid as long as the device.
 */
const struct wvk_device_info *wvk_device_info(const struct wvk_device *dev);

/**
 * wvk_device_lost() - Whether the device was lost.
 * @dev: The device.
 *
 * A lost device refuses new work with -ENODEV.  A device also becomes lost
 * through wvk_device_abandon().
 *
 * Return: true once Vulkan reported VK_ERROR_DEVICE_LOST.
 */
bool wvk_device_lost(const struct wvk_device *dev);

/**
 * wvk_device_save_cache() - Write the pipeline cache to the cache directory.
 * @dev: The device.
 *
 * Done by wvk_device_destroy() too.  The file is written under a
 * temporary name and renamed, so that a reader never sees half of it.
 *
 * Return: 0 (also when there is no cache directory), or -errno.
 */
int wvk_device_save_cache(struct wvk_device *dev);

/**
 * wvk_device_destroy() - Close a device, after all its jobs completed.
 * @dev: The device, or NULL.
 *
 * Return: 0; -EBUSY, with nothing freed, while a job or a buffer is still
 * alive (free them first, or wvk_device_abandon() the device), or if the
 * device was abandoned.
 */
int wvk_device_destroy(struct wvk_device *dev);

/**
 * wvk_device_abandon() - Give up a device whose work never ends.
 * @dev: The device.
 *
 * For a job past its deadline that the driver cannot stop (lavapipe runs a
 * dispatch to its end on a CPU thread): marks the device lost and frees
 * nothing of it, since Vulkan objects of a busy device cannot be
 * destroyed and vkDestroyDevice() would wait for the work.  The caller
 * creates a new device for new work; the abandoned one's threads keep
 * their CPUs until the process exits (with Mesa 22.3 exit() does not wait
 * for them; weave-engine ends such a process with _exit() all the same,
 * and starts again).  The regions of the device's buffers stay in
 * use by the running work: never unmap or reuse them.
 */
void wvk_device_abandon(struct wvk_device *dev);

/**
 * wvk_buffer_register() - Make a host memory region usable by jobs.
 * @dev: The device.
 * @ptr: The region, aligned to @dev's host_ptr_align (a page; 4 KiB on
 *       lavapipe), or to a page on the staging path.
 * @size: Its size, a multiple of the same alignment.
 * @out: The buffer, on success.
 *
 * On %WVK_MEM_HOST_PTR (and %WVK_MEM_DMABUF when the device also imports
 * host pointers) the device reads and writes the region itself, and it
 * must stay mapped until wvk_buffer_free(); otherwise jobs copy through
 * device memory of the buffer's own.
 *
 * Return: 0; -EINVAL for an unaligned or empty region; -ENODEV on a lost
 * device; -ENOMEM; -EIO if the import failed.
 */
int wvk_buffer_register(struct wvk_device *dev, void *ptr, uint64_t size,
			struct wvk_buffer **out);

/**
 * wvk_buffer_import_dmabuf() - Make a dma-buf usable by jobs.
 * @dev: The device.
 * @fd: The dma-buf.  On success Vulkan owns it (and closes it); on failure
 *      the caller still does.
 * @size: The bytes of it to use, from its start.
 * @out: The buffer, on success.
 *
 * Return: 0; -EOPNOTSUPP if the device cannot import dma-bufs; -EINVAL
 * for a bad fd or size; -ENOMEM; -EIO.
 */
int wvk_buffer_import_dmabuf(struct wvk_device *dev, int fd, uint64_t size,
			     struct wvk_buffer **out);

/**
 * wvk_buffer_free() - Forget a buffer.
 * @buf: The buffer, or NULL.
 *
 * Return: 0; -EBUSY, with nothing freed, while a job that binds it has not
 * been seen complete.
 */
int wvk_buffer_free(struct wvk_buffer *buf);

/**
 * wvk_pipeline_get() - A compute pipeline for a SPIR-V module's entry point.
 * @dev: The device.
 * @spirv: The module's bytes, in the host's byte order.
 * @size: Their count, a multiple of 4.
 * @entry: The GLCompute entry point's name.
 * @nbindings: The storage buffers it binds: set 0, bindings 0 to
 *             @nbindings - 1, all given by each task.
 * @out: The pipeline, owned by @dev's cache and valid until the device is
 *       destroyed.
 *
 * A module seen before (same bytes, entry and binding count) is taken from
 * memory.  A new one is validated by SPIRV-Tools for Vulkan 1.3, then
 * checked against what the engine allows: only the capabilities it lists
 * (no physical pointers: a kernel reaches only the buffers it binds), only
 * storage buffers of set 0 below @nbindings, a push-constant block within
 * the device's push_bytes, and a workgroup size within the device's limits.
 *
 * Return: 0; -EINVAL for a module that fails any of those, or an unknown
 * entry point; -ENODEV on a lost device; -ENOMEM; -EIO.
 */
int wvk_pipeline_get(struct wvk_device *dev, const void *spirv, size_t size,
		     const char *entry, uint32_t nbindings,
		     struct wvk_pipeline **out);

/**
 * enum wvk_access - How a task uses a binding.
 * @WVK_READ: It reads the range.
 * @WVK_WRITE: It writes the range.
 * @WVK_RW: Both.
 */
enum wvk_access {
	WVK_READ = 1,
	WVK_WRITE = 2,
	WVK_RW = 3,
};

/**
 * struct wvk_binding - One storage buffer of a task.
 * @buf: The buffer.
 * @offset: Where the range starts, a multiple of storage_offset_align.
 * @size: Its bytes, within the buffer and the device's storage range.
 * @access: An &enum wvk_access; what the dependencies between the tasks
 *          of a job are computed from.
 */
struct wvk_binding {
	struct wvk_buffer *buf;
	uint64_t offset;
	uint64_t size;
	uint32_t access;
};

/**
 * struct wvk_task - One dispatch.
 * @pipeline: What it runs.
 * @groups: Its workgroup counts, each from 1 to maxComputeWorkGroupCount.
 * @push: Its push constants, or NULL; the rest of the range reads zero.
 * @push_size: Their bytes, at most the device's push_bytes.
 * @bindings: One per binding of @pipeline, in binding order.
 * @nbindings: Their count, the pipeline's.
 */
struct wvk_task {
	struct wvk_pipeline *pipeline;
	uint32_t groups[3];
	const void *push;
	uint32_t push_size;
	const struct wvk_binding *bindings;
	uint32_t nbindings;
};

/**
 * wvk_job_submit() - Run the tasks of a job, in order where they depend.
 * @dev: The device.
 * @tasks: The tasks.  A task waits for an earlier one of the job only
 *         where their ranges of one buffer overlap and one of them writes.
 * @ntasks: Their count, 1 to %WVK_TASKS_MAX.
 * @out: The job, on success: wait for it, then free it.
 *
 * Everything is checked before anything is recorded: a refused job leaves
 * no trace.
 *
 * Return: 0; -EINVAL for a task the device or its pipeline refuses (the
 * message names the task); -ENODEV on a lost device; -ENOMEM; -EIO.
 */
int wvk_job_submit(struct wvk_device *dev, const struct wvk_task *tasks,
		   uint32_t ntasks, struct wvk_job **out);

/**
 * wvk_job_wait() - Wait for a job until a deadline.
 * @job: The job.
 * @deadline_ns: A wvk_now_ns() time; 0 only polls.
 *
 * When it completes, the staging path copies out what its tasks wrote.
 * Past the deadline nothing is freed: the device may still be running the
 * job.  Wait again, or give the device up (wvk_device_abandon()).
 *
 * Return: 0 once complete; -ETIMEDOUT past the deadline; -ENODEV if the
 * device was lost (the device is then lost for every job).
 */
int wvk_job_wait(struct wvk_job *job, uint64_t deadline_ns);

/**
 * wvk_job_status() - The outcome of one task of a completed job.
 * @job: The job.
 * @task: The task's index.
 *
 * Vulkan reports a job, not its tasks, so all tasks share the outcome.
 *
 * Return: 0; -EINPROGRESS if the job has not been seen complete; -ENODEV
 * if the device was lost while it ran; -EINVAL for no such task.
 */
int wvk_job_status(const struct wvk_job *job, uint32_t task);

/**
 * wvk_job_barriers() - The pipeline barriers recorded between the tasks.
 * @job: The job.
 *
 * Return: their count (the barrier before the host reads is not counted).
 */
uint32_t wvk_job_barriers(const struct wvk_job *job);

/**
 * wvk_job_free() - Free a job.
 * @job: The job, or NULL.
 *
 * Return: 0; -EBUSY, with nothing freed, if it has not been seen complete
 * or failed by wvk_job_wait().
 */
int wvk_job_free(struct wvk_job *job);

#if defined(__cplusplus)
}
#endif

#endif /* _WVK_H_ */
