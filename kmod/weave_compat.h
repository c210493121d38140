/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the differences between the kernels weave builds against.
 */
#ifndef _WEAVE_COMPAT_H_
#define _WEAVE_COMPAT_H_

#include <linux/bits.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_prime.h>
#include <drm/gpu_scheduler.h>

/*
 * Generated into the per-kernel build folder by
 * "scripts/kernel-probe.sh KDIR > kmod/weave_probe.h".
 */
#include "weave_probe.h"

/**
 * DOC: kernel compatibility
 *
 * weave builds against Debian 12's 6.1 and the 6.12 LTS kernel.  Every
 * difference between the two lives in this header and nowhere else, and
 * each one is decided by a WEAVE_HAVE_* probe that scripts/kernel-probe.sh
 * takes from the kernel's headers at build time, never by the kernel
 * version: distributions backport API changes.
 *
 * Current differences:
 *
 * - A mapping's flags are changed with vm_flags_mod() since 6.3; before,
 *   &vm_area_struct.vm_flags was written directly:
 *   weave_compat_vm_flags_mod().
 * - &drm_driver.gem_prime_mmap exists before 6.6 and is required there for
 *   mmap() of an exported dma-buf; since 6.6 the core always uses
 *   drm_gem_prime_mmap().
 * - &drm_driver.prime_handle_to_fd and &drm_driver.prime_fd_to_handle are
 *   required before 6.6; since then the core falls back to the same GEM
 *   helpers when they are unset.  weave sets them whenever they exist,
 *   which is correct under both rules.
 * - drm_sched_init() takes a &struct drm_sched_init_args on Debian's 6.1
 *   (a backport), and a long argument list with a submit workqueue and a
 *   number of run queues on 6.12: weave_compat_sched_init().  The 6.1
 *   scheduler runs run_job on its own kthread; 6.12's on the submit
 *   workqueue, which weave leaves it to make (see "DOC: hardware queues").
 * - drm_sched_job_init() takes a credits count since 6.8:
 *   weave_compat_sched_job_init() passes 1.
 * - 6.12's scheduler passes the error of a job's hardware fence on to its
 *   finished fence (drm_sched_fence_finished() takes the result); 6.1's
 *   does not, and the driver sets it on the finished fence itself, before
 *   the hardware fence signals: weave_compat_sched_job_error().
 * - Kernels after 6.12 set a timer up with hrtimer_setup(), and later ones
 *   drop hrtimer_init(): weave_compat_hrtimer_setup().
 * - &enum drm_sched_priority was MIN, NORMAL, HIGH, KERNEL on 6.1 and is
 *   KERNEL, HIGH, NORMAL, LOW since 6.8: the order flipped, so weave maps
 *   its priorities by name, %WEAVE_COMPAT_SCHED_PRIORITY_LOW being LOW where
 *   it exists and MIN before.
 * - The shmem helpers pin pages under the object's reservation lock since
 *   6.8: drm_gem_shmem_pin() takes it with dma_resv_lock_interruptible();
 *   before, it takes the helper's pages_lock with
 *   mutex_lock_interruptible().  So on both a pending signal fails a pin
 *   with -EINTR, and neither may be called with the lock it takes held.
 *   weave pins a buffer for its first use, under its own &weave_bo.pin_lock
 *   and never under a reservation lock, and makes -EINTR a restart:
 *   weave_compat_shmem_pin().  drm_gem_shmem_unpin() takes whatever lock
 *   it needs on both, without failing; weave unpins at its last use, so
 *   no buffer is pinned when the helper frees it (6.12 warns about one).
 * - &file_operations.fop_flags exists since 6.12, and DRM's file
 *   operations set %FOP_UNSIGNED_OFFSET there (GEM mmap offsets use the
 *   whole unsigned range); weave's own file operations do the same where
 *   the field exists: %WEAVE_COMPAT_FOP_FLAGS.
 * - &platform_driver.remove returns void since 6.11; before, a driver with
 *   a void remove sets .remove_new: WEAVE_COMPAT_PLATFORM_REMOVE().
 * - drm_sched_entity_fini() waits until the scheduler is done with the
 *   entity (&drm_sched_entity.entity_idle) on 6.12; on 6.1 only if jobs
 *   are still queued in it, not when the scheduler has just taken the
 *   last one and is running it.  No wrapper: weave keeps a backend
 *   stream's entities until the last job made for it is freed, which is
 *   safe under both ("DOC: soft engine", Lifetimes).
 * - The DRM core prints a file's fdinfo since 6.5: drm_show_fdinfo() as
 *   the file operation prints drm-driver and drm-client-id and then calls
 *   &drm_driver.show_fdinfo, and drm_show_memory_stats() prints the memory
 *   keys, asking &drm_gem_object_funcs.status (6.5+) and .rss (6.11+).  On
 *   6.1 weave's own file operation prints all of it:
 *   %WEAVE_COMPAT_FDINFO_FOPS, %WEAVE_COMPAT_FDINFO_DRIVER,
 *   weave_compat_show_memory_stats(), %WEAVE_COMPAT_GEM_STATUS_OPS; and
 *   &enum drm_gem_object_status is declared here where the kernel has none.
 * - The DRM core makes a device's debugfs files from a table of &struct
 *   drm_debugfs_info with drm_debugfs_add_files(), in the device's own
 *   directory, since 6.3; on 6.1 from a table of &struct drm_info_list for
 *   one minor with drm_debugfs_create_files().  The two structs have the
 *   same fields, and a show function finds the device in its seq_file's
 *   private data, a &struct drm_debugfs_entry or a &struct drm_info_node:
 *   &weave_compat_debugfs_info, weave_compat_debugfs_add(),
 *   weave_compat_debugfs_device().
 * - &drm_file.client_id, the drm-client-id of fdinfo, exists since 6.5;
 *   on 6.1 weave's own id stands in: weave_compat_client_id().
 * - The scheduler counts the credits of the jobs on its hardware queue in
 *   &drm_gpu_scheduler.credit_count since 6.8, and the jobs in
 *   hw_rq_count before; weave's jobs take one credit each:
 *   weave_compat_sched_jobs().
 */

#ifdef WEAVE_HAVE_DRIVER_PRIME_HANDLE_TO_FD
#define WEAVE_COMPAT_PRIME_FD_OPS \
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd, \
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
#else
#define WEAVE_COMPAT_PRIME_FD_OPS
#endif

#ifdef WEAVE_HAVE_DRIVER_GEM_PRIME_MMAP
#define WEAVE_COMPAT_PRIME_MMAP_OPS \
	.gem_prime_mmap = drm_gem_prime_mmap,
#else
#define WEAVE_COMPAT_PRIME_MMAP_OPS
#endif

#ifdef WEAVE_HAVE_FOP_FLAGS
#define WEAVE_COMPAT_FOP_FLAGS \
	.fop_flags = FOP_UNSIGNED_OFFSET,
#else
#define WEAVE_COMPAT_FOP_FLAGS
#endif

#ifdef WEAVE_HAVE_DRM_SHOW_FDINFO
#define WEAVE_COMPAT_FDINFO_FOPS(fn) \
	.show_fdinfo = drm_show_fdinfo,
#define WEAVE_COMPAT_FDINFO_DRIVER(fn) \
	.show_fdinfo = (fn),
#else
#define WEAVE_COMPAT_FDINFO_FOPS(fn) \
	.show_fdinfo = (fn),
#define WEAVE_COMPAT_FDINFO_DRIVER(fn)
#endif

#ifdef WEAVE_HAVE_GEM_STATUS
#define WEAVE_COMPAT_GEM_STATUS_OPS(fn) \
	.status = (fn),
#else
enum drm_gem_object_status {
	DRM_GEM_OBJECT_RESIDENT = BIT(0),
	DRM_GEM_OBJECT_PURGEABLE = BIT(1),
};

#define WEAVE_COMPAT_GEM_STATUS_OPS(fn)
#endif

#ifdef WEAVE_HAVE_GEM_RSS
#define WEAVE_COMPAT_GEM_RSS_OPS(fn) \
	.rss = (fn),
#else
#define WEAVE_COMPAT_GEM_RSS_OPS(fn)
#endif

/*
 * WEAVE_COMPAT_PLATFORM_REMOVE() - The initializer of a &struct
 * platform_driver's void remove callback @fn.
 */
#ifdef WEAVE_HAVE_PLATFORM_REMOVE_VOID
#define WEAVE_COMPAT_PLATFORM_REMOVE(fn) \
	.remove = (fn),
#else
#define WEAVE_COMPAT_PLATFORM_REMOVE(fn) \
	.remove_new = (fn),
#endif

#ifdef WEAVE_HAVE_SCHED_PRIORITY_LOW
#define WEAVE_COMPAT_SCHED_PRIORITY_LOW		DRM_SCHED_PRIORITY_LOW
#else
#define WEAVE_COMPAT_SCHED_PRIORITY_LOW		DRM_SCHED_PRIORITY_MIN
#endif

/**
 * weave_compat_sched_init() - drm_sched_init() with the arguments weave uses.
 * @sched: The scheduler to initialise.
 * @ops: Its backend operations.
 * @credit_limit: Jobs the hardware queue holds at once.
 * @timeout: Job timeout in jiffies, or %MAX_SCHEDULE_TIMEOUT for none.
 * @name: Name of the queue; must outlive @sched.
 * @dev: The device, for messages.
 *
 * A timeout work would run on the system workqueue.  On 6.12 the scheduler
 * makes its own ordered workqueue for run_job and free_job.
 *
 * Return: 0 or a negative errno.
 */
static inline int weave_compat_sched_init(struct drm_gpu_scheduler *sched,
					  const struct drm_sched_backend_ops *ops,
					  u32 credit_limit, long timeout,
					  const char *name, struct device *dev)
{
#if defined(WEAVE_HAVE_SCHED_INIT_ARGS)
	const struct drm_sched_init_args args = {
		.ops = ops,
		.credit_limit = credit_limit,
		.timeout = timeout,
		.name = name,
		.dev = dev,
	};

	return drm_sched_init(sched, &args);
#elif defined(WEAVE_HAVE_SCHED_INIT_SUBMIT_WQ)
	return drm_sched_init(sched, ops, NULL, DRM_SCHED_PRIORITY_COUNT,
			      credit_limit, 0, timeout, NULL, NULL, name, dev);
#else
#error "unknown drm_sched_init(): extend scripts/kernel-probe.sh"
#endif
}

/**
 * weave_compat_sched_job_init() - drm_sched_job_init() of a one-credit job.
 * @job: The job.
 * @entity: The entity it is pushed to.
 * @owner: The owner recorded in its fences.
 *
 * Return: 0 or a negative errno.
 */
static inline int weave_compat_sched_job_init(struct drm_sched_job *job,
					      struct drm_sched_entity *entity,
					      void *owner)
{
#ifdef WEAVE_HAVE_SCHED_JOB_INIT_CREDITS
	return drm_sched_job_init(job, entity, 1, owner);
#else
	return drm_sched_job_init(job, entity, owner);
#endif
}

/**
 * weave_compat_sched_job_error() - Report a job's error to the scheduler.
 * @job: The job, run; its hardware fence, not signalled yet, has @err.
 * @err: A negative errno.
 *
 * Where the scheduler passes the hardware fence's error on to the finished
 * fence as it signals it, there is nothing to do.  On 6.1 the finished
 * fence gets @err here: it signals only from the hardware fence's
 * callback, so it has not signalled yet either.
 */
static inline void weave_compat_sched_job_error(struct drm_sched_job *job,
						int err)
{
#ifdef WEAVE_HAVE_SCHED_FINISHED_NO_RESULT
	dma_fence_set_error(&job->s_fence->finished, err);
#endif
}

/**
 * weave_compat_hrtimer_setup() - Set up a relative CLOCK_MONOTONIC hrtimer.
 * @timer: The timer.
 * @fn: Its function.
 */
static inline void
weave_compat_hrtimer_setup(struct hrtimer *timer,
			   enum hrtimer_restart (*fn)(struct hrtimer *))
{
#ifdef WEAVE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	timer->function = fn;
#endif
}

/**
 * weave_compat_shmem_pin() - Pin a shmem object's pages, interruptibly.
 * @shmem: The object; the caller holds none of its locks.
 *
 * Return: 0; -ERESTARTSYS if a signal interrupted the pin (6.1's
 * pages_lock and 6.12's reservation lock are both taken interruptibly and
 * return -EINTR); -ENOMEM.
 */
static inline int weave_compat_shmem_pin(struct drm_gem_shmem_object *shmem)
{
	int ret = drm_gem_shmem_pin(shmem);

	return ret == -EINTR ? -ERESTARTSYS : ret;
}

/**
 * weave_compat_show_memory_stats() - Print a file's memory keys in fdinfo.
 * @p: The printer.
 * @file: The DRM file.
 * @own: What prints them where the core has no helper.
 *
 * Context: Process context; takes the file's table_lock.
 */
static inline void
weave_compat_show_memory_stats(struct drm_printer *p, struct drm_file *file,
			       void (*own)(struct drm_printer *p,
					   struct drm_file *file))
{
#ifdef WEAVE_HAVE_DRM_SHOW_FDINFO
	drm_show_memory_stats(p, file);
#else
	own(p, file);
#endif
}

#ifdef WEAVE_HAVE_DRM_DEBUGFS_ADD_FILES
/* One debugfs file of a device, for weave_compat_debugfs_add(). */
#define weave_compat_debugfs_info	drm_debugfs_info
#else
#define weave_compat_debugfs_info	drm_info_list
#endif

/**
 * weave_compat_debugfs_add() - Make a device's debugfs files.
 * @minor: The minor whose &drm_driver.debugfs_init hook runs.
 * @files: The files, each with a name and a show function.
 * @count: Entries of @files.
 *
 * The DRM core removes them with the device's debugfs directory, when the
 * device is unregistered, after their readers are done.
 */
static inline void
weave_compat_debugfs_add(struct drm_minor *minor,
			 const struct weave_compat_debugfs_info *files,
			 int count)
{
#ifdef WEAVE_HAVE_DRM_DEBUGFS_ADD_FILES
	drm_debugfs_add_files(minor->dev, files, count);
#else
	drm_debugfs_create_files(files, count, minor->debugfs_root, minor);
#endif
}

/**
 * weave_compat_debugfs_device() - The device of a debugfs file that
 * weave_compat_debugfs_add() made.
 * @m: The seq_file its show function is given.
 *
 * Return: The DRM device.
 */
static inline struct drm_device *weave_compat_debugfs_device(struct seq_file *m)
{
#ifdef WEAVE_HAVE_DRM_DEBUGFS_ADD_FILES
	return ((struct drm_debugfs_entry *)m->private)->dev;
#else
	return ((struct drm_info_node *)m->private)->minor->dev;
#endif
}

/**
 * weave_compat_client_id() - A file's drm-client-id, as fdinfo prints it.
 * @file: The DRM file.
 * @own: weave's own id of the file's client, unique among weave's files.
 *
 * Return: The core's id of @file where it has one, else @own.
 */
static inline u64 weave_compat_client_id(struct drm_file *file, u64 own)
{
#ifdef WEAVE_HAVE_DRM_FILE_CLIENT_ID
	return file->client_id;
#else
	return own;
#endif
}

/**
 * weave_compat_sched_jobs() - Jobs on a scheduler's hardware queue.
 * @sched: The scheduler, whose jobs take one credit each.
 *
 * Return: The jobs run_job was called for whose fence has not signalled
 * yet, a snapshot.
 */
static inline u32 weave_compat_sched_jobs(struct drm_gpu_scheduler *sched)
{
#ifdef WEAVE_HAVE_SCHED_CREDIT_COUNT
	return atomic_read(&sched->credit_count);
#else
	return atomic_read(&sched->hw_rq_count);
#endif
}

/**
 * weave_compat_vm_flags_mod() - Set and clear flags of a mapping being
 * made.
 * @vma: The mapping, in its mmap() handler (mmap_lock held for writing).
 * @set: Flags to set.
 * @clear: Flags to clear.
 */
static inline void weave_compat_vm_flags_mod(struct vm_area_struct *vma,
					     vm_flags_t set, vm_flags_t clear)
{
#ifdef WEAVE_HAVE_VM_FLAGS_SET
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _WEAVE_COMPAT_H_ */
