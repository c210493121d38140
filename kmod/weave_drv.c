// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a multi-stream GPU task scheduler behind a DRM render node.
 *
 * This file registers the devices: module parameters, the platform driver
 * that binds and unbinds them, the &struct drm_driver, the file's ioctl
 * entry points and the ioctl table.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_vma_manager.h>

#include "weave_compat.h"
#include "weave_core.h"
#include "weave_cpage.h"
#include "weave_debugfs.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_enqueue.h"
#include "weave_failure.h"
#include "weave_fdinfo.h"
#include "weave_file.h"
#include "weave_flush.h"
#include "weave_gem.h"
#include "weave_graph.h"
#include "weave_shader.h"
#include "weave_uengine.h"
#include "weave_job.h"
#include "weave_resident.h"
#include "weave_query.h"
#include "weave_queue.h"
#include "weave_report.h"
#include "weave_sring.h"
#include "weave_sring_enter.h"
#include "weave_sring_poll.h"
#include "weave_syncobj.h"

/**
 * DOC: locking
 *
 * The lock order of the driver, outermost first.  Each lock added to weave
 * is added here, in its place.
 *
 * 0. &weave_device.clients_lock, a mutex that protects the device's list of
 *    clients.  Open and close take it alone, to add or remove their
 *    client; unplug takes it around each client's mutex in turn, to cancel
 *    their work (weave_clients_unplug()).
 * 1. &weave_client.lock, the client's mutex.  Every ioctl of a client that
 *    touches its streams or scheduler takes it, interruptibly
 *    (weave_client_lock()), and so do close and the unplug, plainly: they
 *    must get it, and its holders do not wait long.  It is the scheduler
 *    core's lock: the core and the backend ops (encoding tasks into jobs,
 *    arming and pushing them) run under it, and it protects the client's
 *    xarrays and the engine's per-slot state (&weave_eslot).  No wait that
 *    only a job, a fence or job_timeout_ms ends is made under it: WAIT,
 *    READ and the drains of CAPTURE drop it first, and an ENQUEUE whose
 *    staging arena is full undoes what it did and drops it to wait
 *    ("DOC: staging").  At close, destroying the scheduler entities may
 *    wait, under it, for the client's jobs to leave them; those jobs never
 *    need the mutex, and an aborted job stops at its next task.
 * 2. &weave_spoll.lock, a device's mutex over its list of polled rings
 *    (see "DOC: ring polling").  Ring creation, destruction and close
 *    take it under the client's mutex; the polling thread takes it alone
 *    and, holding it, takes a client's mutex only with mutex_trylock()
 *    (it then lets go of the list's lock and consumes under the client's
 *    mutex, as the doorbell does).  Nothing else is taken inside it but
 *    the atomic updates of ring headers.
 * 3. weave_job_release_lock, the mutex over the completed jobs whose
 *    buffers are to be let go of ("DOC: job release"), taken with no
 *    weave lock held (the release work, drains of BO_CREATE, import,
 *    ENQUEUE between its tries, and handle close) or tried under the
 *    client's mutex (an eager push).
 * 4. &weave_bo.pin_lock, a buffer's mutex that serialises its first pin
 *    and its last unpin (weave_eng_bo_pin(), weave_eng_bo_unpin(); "DOC: buffer
 *    objects").  ENQUEUE's and REPLAY's pin steps and a tracking record
 *    that lets go of its pin take it under the client mutex; READ takes
 *    it alone, a completed job's release under weave_job_release_lock,
 *    and the free of a job that never ran (on the scheduler thread or a
 *    workqueue, or under the client mutex if never pushed).  A pin
 *    takes it interruptibly.  Inside it, the shmem helper takes the
 *    object's reservation lock (since 6.8) or its pages_lock (before),
 *    interruptibly to pin.
 * 5. The reservation locks (&dma_resv, ww mutexes of reservation_ww_class)
 *    of a job's buffers, all taken together, interruptibly, when a
 *    backend stream is flushed (a signal leaves the job held for the next
 *    flush, and the flush fails with -ERESTARTSYS); nothing is pinned,
 *    unpinned or freed under them.  The last reference to a buffer may be
 *    dropped under the client mutex (a tracking record's, when its
 *    buffer's last queued task leaves the ring, or at close when the
 *    queued tasks are cancelled, or an eager push's release), under
 *    weave_job_release_lock, or with no weave lock held (GEM close, a job
 *    freed on the scheduler thread or a workqueue).
 * 6. &weave_bo.charge_lock, a buffer's mutex that serialises the charge
 *    of its resident bytes and its give-back if nothing was made resident
 *    (weave_eng_bo_charge_resident(), weave_eng_bo_charge_settle(); "DOC:
 *    resident memory").  It is taken inside &weave_bo.pin_lock, inside
 *    the mmap lock (mmap()), and inside the reservation lock where the
 *    DRM core holds it around a dma-buf importer's pin or vmap (since
 *    6.8); inside it only the users' xarray spinlock, a leaf, is taken.
 * 7. The scheduler's own locks (gpu-sched entity and run-queue spinlocks,
 *    &drm_gpu_scheduler.job_list_lock), taken by drm_sched_*() under the
 *    above.
 * 8. &weave_ectx.gate_lock, a spinlock taken with interrupts off; it may
 *    be taken inside a foreign fence's lock (the gate's fence callback).
 *    &weave_queue.run_lock, a queue's spinlock, taken by run_job and by
 *    a push under the client's mutex, around the choice of who runs a
 *    job next and nothing else but the hardware fence's init: a leaf.
 * 9. Fence locks: a gate's or hardware fence's own spinlock.
 * 10. &weave_failures.lock, the device's failure graph, a spinlock taken
 *    with interrupts off and nothing taken inside it: a leaf.  The
 *    workers take it alone, %DRM_IOCTL_WEAVE_CHECK takes it alone, and
 *    freeing a buffer takes it to release the buffer's taints, in any of
 *    the places above where a last reference goes.
 * 11. &weave_ectx.spare_lock, a spinlock taken with interrupts off around
 *    a client's spare task arrays and nothing else: a leaf.  A job's
 *    allocation takes it under the client's mutex, a job's free wherever
 *    the job is freed.
 * 12. &weave_device.engines_lock, a device's mutex around its engine
 *    queues' attachments (ENGINE_ATTACH, an engine's file's release, the
 *    ENGINES query), with nothing taken inside it: a leaf.
 *
 * The debugfs files (see "DOC: debugfs") read what they show under its
 * locks, in this order: &weave_device.clients_lock and a client's mutex,
 * both interruptibly, then alone inside the mutex &weave_ectx.gate_lock,
 * a slot's staging arena's lock or the failure graph's.  A client's
 * debugfs directory is made and removed under clients_lock (at open,
 * close and unplug); the removal waits for the reads of its files in
 * progress, which take its client's mutex but never clients_lock.
 *
 * The unplug's sections are no lock, but drm_dev_unplug() waits for each
 * drm_dev_enter() section to end, so nothing inside one may wait for the
 * unplug or for what comes after it, nor for long: weave's ioctls run
 * what they do to the device inside one (see weave_ioctls[]) except the
 * waits of WAIT, READ and CAPTURE, whose fences only the unplug's cancel
 * signals, and the staging wait of ENQUEUE; client open and the fault
 * handler of mappings run inside one; the unbind takes no lock of weave's
 * before drm_dev_unplug() returns.  Sections may take any lock above.
 *
 * User memory: no copy from or to user memory is made inside a section
 * or under a client's mutex with page faults enabled, since the unplug
 * waits for the first and takes the second, and a fault can last as long
 * as the page's owner likes (a userfaultfd never served).  drm_ioctl()
 * copies each argument outside the handler's section; ENQUEUE and REPLAY
 * read theirs with page faults disabled, and fault the memory in with
 * nothing held before they try again (see "DOC: user memory").  READ
 * copies a buffer's bytes with no section and no lock, holding a pin of
 * the pages and references that outlive the device.
 *
 * The soft engine's workers, and run_job where it runs a job inline, take
 * no lock of weave's but the failure graph's: they run a job's tasks on
 * pages the job keeps pinned, record what the tasks leave on their bytes,
 * and signal the job's hardware fence, handing its buffers over to be
 * let go of elsewhere ("DOC: job release").  A queue's watchdog (an
 * hrtimer, in hard interrupt context) only sets the running job's abort
 * and wakes the worker; the scheduler has no timeout of its own, and
 * nothing in weave stops or restarts it.
 *
 * Device-wide state needs no lock: the usage counters are atomics and the
 * limits and engine are fixed from creation to removal.  A client's usage
 * counters that jobs update after they leave the client's mutex (pending
 * tasks, staged bytes, job task-array bytes and live jobs, in &weave_ectx)
 * are atomics too; %DRM_WEAVE_QUERY_CLIENT_USAGE reads them, with the
 * mutex-protected rest (streams, rings, queued tasks), under the mutex.
 */

/**
 * DOC: lifetimes
 *
 * The module registers a platform driver and num_devices platform devices,
 * weave.0 and up, which bind to it as they are added.  Binding (the
 * probe) makes a &struct weave_device: its DRM device, allocated with
 * devres on the platform device, its soft engine, and its render node.
 * Writing a device's name to /sys/bus/platform/drivers/weave/unbind
 * unplugs it, also while it is in use, and writing it to bind makes a new
 * one, with a new node.  Unload unregisters the platform devices, which
 * unbinds those still bound, then the driver.
 *
 * The unbind (weave_remove()): drm_dev_unplug() marks the DRM device
 * unplugged, waits for the drm_dev_enter() sections in progress, removes
 * the node and zaps every mapping made through it; weave_clients_unplug()
 * then aborts every client's engine context with -ENODEV.  From then on
 * every ioctl of an old file fails with -ENODEV (weave's entry points, and
 * drm_ioctl(), check first); a job yet to run runs none of its tasks and a
 * running one stops at its next, so every fence of the device's work
 * signals, with -ENODEV; a fault in a zapped mapping gets SIGBUS; and
 * closing the files reaps the rest, as any close does.  A dma-buf exported
 * before stays usable.
 *
 * What outlives the unbind: the &struct weave_device lives as long as its
 * DRM device, until the last reference goes: the binding's (dropped by
 * devres after the unbind), each open file's, each exported dma-buf's, and
 * each client engine context's (&weave_ectx.drm), which lasts until the
 * client's last job is freed, so jobs still find the engine and their
 * buffers' device.  The engine goes with the DRM device, through a drmm
 * action, but is torn down on a workqueue of its own: the last reference
 * may be dropped by a job that one of the engine's schedulers is freeing.
 *
 * Unload cannot start while a user remains: every open DRM file and every
 * exported dma-buf holds a reference on the module, through the owner of
 * the file operations, and so do jobs and weave's fences (see "DOC:
 * fences").  It drains the engines' teardown before it returns.
 *
 * A client's state that its jobs use outlives the client's file: each job
 * holds a reference to the client's engine context, to the backend stream
 * whose scheduler entity it went through (the scheduler touches the entity
 * after it took the job, so the stream is freed with its last job, not at
 * close), its logical streams and the module until it is freed, and to
 * its buffers and in-syncs until it completes ("DOC: job release").
 */

/* The most devices one module load may create. */
#define WEAVE_MAX_DEVICES	8

/* The largest value the max_bo_size module parameter accepts. */
#define WEAVE_MAX_BO_SIZE_LIMIT	SZ_4G

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices,
		 "Number of weave devices to create (1-"
		 __stringify(WEAVE_MAX_DEVICES) ", default 1)");

static unsigned long long max_bo_size = SZ_256M;
module_param(max_bo_size, ullong, 0444);
MODULE_PARM_DESC(max_bo_size,
		 "Largest buffer object in bytes, a multiple of the page size (at most 4 GiB, default 256 MiB)");

static unsigned long long max_client_bo_bytes;
module_param(max_client_bo_bytes, ullong, 0444);
MODULE_PARM_DESC(max_client_bo_bytes,
		 "Bytes of buffers charged to one client (0, the default: a quarter of the RAM at load)");

static unsigned int max_client_bos = 4096;
module_param(max_client_bos, uint, 0444);
MODULE_PARM_DESC(max_client_bos,
		 "Buffers charged to one client (at least 1, default 4096)");

static unsigned int num_queues = 2;
module_param(num_queues, uint, 0444);
MODULE_PARM_DESC(num_queues, "Hardware queues per device (1-"
		 __stringify(WEAVE_MAX_QUEUES) ", default 2)");

static unsigned int num_engine_queues = 1;
module_param(num_engine_queues, uint, 0444);
MODULE_PARM_DESC(num_engine_queues, "Engine queues per device, for user engines (0-"
		 __stringify(DRM_WEAVE_MAX_ENGINE_QUEUES) ", default 1)");

static unsigned int max_streams = 64;
module_param(max_streams, uint, 0444);
MODULE_PARM_DESC(max_streams, "Slots per client (1-"
		 __stringify(WEAVE_CORE_MAX_STREAMS) ", default 64)");

static unsigned int max_tasks = 64;
module_param(max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "Tasks queued on a slot before it executes (1-"
		 __stringify(WEAVE_CORE_MAX_TASKS) ", default 64)");

static unsigned int strategy = DRM_WEAVE_STRATEGY_INTERLEAVE;
module_param(strategy, uint, 0444);
MODULE_PARM_DESC(strategy,
		 "Default strategy: 0 interleave (default), 1 sequential");

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Job timeout in milliseconds (10-600000, default 2000)");

static unsigned int max_client_streams = 4096;
module_param(max_client_streams, uint, 0444);
MODULE_PARM_DESC(max_client_streams,
		 "Logical streams per client (1-1048576, default 4096)");

static unsigned long long max_pending_tasks = 65536;
module_param(max_pending_tasks, ullong, 0444);
MODULE_PARM_DESC(max_pending_tasks,
		 "Enqueued, uncompleted tasks per client (at least 1, default 65536)");

static unsigned long long max_staged_bytes = SZ_64M;
module_param(max_staged_bytes, ullong, 0444);
MODULE_PARM_DESC(max_staged_bytes,
		 "Staged host-write bytes per client (1 to 2 GiB - 1, default 64 MiB)");

static unsigned int slot_staging_bytes = SZ_256K;
module_param(slot_staging_bytes, uint, 0444);
MODULE_PARM_DESC(slot_staging_bytes,
		 "Bytes of each slot's staging arena, for host writes up to half of it (a multiple of 4096 in 4 KiB..64 MiB, default 256 KiB)");

static unsigned int max_buffer_claims = 4096;
module_param(max_buffer_claims, uint, 0444);
MODULE_PARM_DESC(max_buffer_claims,
		 "Claims of failures one buffer holds before its taints are coarsened (1-1048576, default 4096)");

static unsigned int max_client_claims = 16384;
module_param(max_client_claims, uint, 0444);
MODULE_PARM_DESC(max_client_claims,
		 "Claim nodes one client's failures hold before they are coarsened (0-16777216, default 16384)");

/* Bounds of the module parameters above. */
#define WEAVE_TIMEOUT_MS_MIN		10
#define WEAVE_TIMEOUT_MS_MAX		600000
#define WEAVE_CLIENT_STREAMS_MAX	BIT(20)
#define WEAVE_BUFFER_CLAIMS_MAX		BIT(20)
#define WEAVE_CLIENT_CLAIMS_MAX		BIT(24)

/* The module's platform devices, bound or not. */
static struct platform_device *weave_pdevs[WEAVE_MAX_DEVICES];

/*
 * WEAVE_IOCTL_IN_DEVICE(func) - Define func_in_device(), which runs the
 * ioctl handler @func inside a drm_dev_enter() section: for the handlers
 * that read and write no user memory but their argument, which
 * drm_ioctl() copies in before and out after, outside the section.
 */
#define WEAVE_IOCTL_IN_DEVICE(func)					\
static int func##_in_device(struct drm_device *drm, void *data,	\
			    struct drm_file *file)			\
{									\
	int idx, ret;							\
									\
	if (!drm_dev_enter(drm, &idx))					\
		return -ENODEV;						\
	ret = func(drm, data, file);					\
	drm_dev_exit(idx);						\
	return ret;							\
}

WEAVE_IOCTL_IN_DEVICE(weave_gem_bo_create_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_gem_bo_mmap_offset_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_stream_create_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_stream_destroy_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_flush_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_stream_isolate_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_stream_query_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_set_param_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_graph_destroy_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_ring_create_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_ring_destroy_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_completions_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_shader_destroy_ioctl)
WEAVE_IOCTL_IN_DEVICE(weave_engine_attach_ioctl)

/*
 * The handlers named *_in_device run inside a drm_dev_enter() section;
 * the others enter their own around what they do to the device, and read
 * or write user memory outside them, or inside with page faults disabled
 * (see "DOC: locking").  WAIT, READ and the first part of CAPTURE are
 * outside one while they wait: drm_dev_unplug() waits for every section
 * to end, and their fences are cancelled only by the
 * weave_clients_unplug() that follows it.  CHECK reads and writes its
 * arrays and the failure graph, which outlives the device, in none.
 */
static const struct drm_ioctl_desc weave_ioctls[] = {
	DRM_IOCTL_DEF_DRV(WEAVE_QUERY, weave_query_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_BO_CREATE, weave_gem_bo_create_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_BO_MMAP_OFFSET,
			  weave_gem_bo_mmap_offset_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_CREATE,
			  weave_stream_create_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_DESTROY,
			  weave_stream_destroy_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_ENQUEUE, weave_enqueue_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_FLUSH, weave_flush_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_ISOLATE,
			  weave_stream_isolate_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_WAIT, weave_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_QUERY,
			  weave_stream_query_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_CHECK, weave_check_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_READ, weave_read_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_SET_PARAM, weave_set_param_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_CAPTURE, weave_capture_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_REPLAY, weave_replay_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_GRAPH_DESTROY,
			  weave_graph_destroy_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_RING_CREATE, weave_ring_create_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_RING_DESTROY,
			  weave_ring_destroy_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_RING_ENTER, weave_ring_enter_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_COMPLETIONS,
			  weave_completions_ioctl_in_device, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_SHADER_CREATE, weave_shader_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_SHADER_DESTROY,
			  weave_shader_destroy_ioctl_in_device,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_ENGINE_ATTACH,
			  weave_engine_attach_ioctl_in_device,
			  DRM_RENDER_ALLOW | DRM_ROOT_ONLY),
};

/*
 * Run ioctl @cmd with @core (drm_ioctl() or drm_compat_ioctl()): -ENODEV
 * once the device is unplugged, and the syncobj guard in front of the
 * core's ioctls.  No section is held around @core, which copies the
 * argument in and out: weave's handlers enter their own (see
 * weave_ioctls[]).
 */
static long weave_ioctl_run(struct file *filp, unsigned int cmd,
			    unsigned long arg, void __user *uarg,
			    long (*core)(struct file *filp, unsigned int cmd,
					 unsigned long arg))
{
	struct drm_file *file = filp->private_data;
	long ret;

	if (drm_dev_is_unplugged(file->minor->dev))
		return -ENODEV;
	if (weave_syncobj_guard(filp, cmd, uarg, &ret))
		return ret;
	return core(filp, cmd, arg);
}

static long weave_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg)
{
	return weave_ioctl_run(filp, cmd, arg, (void __user *)arg, drm_ioctl);
}

#ifdef CONFIG_COMPAT
/*
 * The syncobj ioctls have the same layout for 32-bit callers, and
 * drm_compat_ioctl() hands them, and weave's own, to drm_ioctl() as they
 * are: the same guard applies.
 */
static long weave_compat_ioctl(struct file *filp, unsigned int cmd,
			       unsigned long arg)
{
	return weave_ioctl_run(filp, cmd, arg, compat_ptr(arg),
			       drm_compat_ioctl);
}
#else
#define weave_compat_ioctl	NULL
#endif

/*
 * mmap() of the node: a shared ring's part below the fake offsets of
 * buffers (see "DOC: shared submission rings"), then the completion area
 * (see "DOC: completion page"), a buffer above.
 */
static int weave_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff < WEAVE_SRING_PGOFF_END)
		return weave_sring_mmap(filp, vma);
	if (vma->vm_pgoff < DRM_FILE_PAGE_OFFSET_START)
		return weave_cpage_mmap(filp, vma);
	return drm_gem_mmap(filp, vma);
}

/*
 * The last close of a file: its rings leave the polling thread before
 * drm_release() releases the file's buffer handles, which it looks up.
 */
static int weave_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;

	weave_sring_unpoll(file->driver_priv);
	return drm_release(inode, filp);
}

/* DRM_GEM_FOPS, with weave's entry points: ioctl, mmap() and release. */
static const struct file_operations weave_drm_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = weave_release,
	.unlocked_ioctl = weave_ioctl,
	.compat_ioctl = weave_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = weave_mmap,
	WEAVE_COMPAT_FOP_FLAGS
	WEAVE_COMPAT_FDINFO_FOPS(weave_show_fdinfo_file)
};

static const struct drm_driver weave_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.fops = &weave_drm_fops,
	.ioctls = weave_ioctls,
	.num_ioctls = ARRAY_SIZE(weave_ioctls),
	.open = weave_client_open,
	.postclose = weave_client_postclose,
	.debugfs_init = weave_debugfs_init,
	WEAVE_COMPAT_FDINFO_DRIVER(weave_show_fdinfo)

	.gem_create_object = weave_gem_create_object,
	.gem_prime_import_sg_table = weave_gem_prime_import_sg_table,

	.name = WEAVE_DRIVER_NAME,
	.desc = "weave multi-stream GPU task scheduler",
	.date = "20261202",
	.major = DRM_WEAVE_UAPI_MAJOR,
	.minor = DRM_WEAVE_UAPI_MINOR,

	WEAVE_COMPAT_PRIME_FD_OPS
	WEAVE_COMPAT_PRIME_MMAP_OPS
};

/* The drmm action that checks the failure graph went with the buffers. */
static void weave_failures_release(struct drm_device *drm, void *arg)
{
	weave_fg_fini(&to_weave_device(drm)->failures);
}

/* The drmm action that lets the engine go with its device. */
static void weave_engine_release(struct drm_device *drm, void *arg)
{
	struct weave_device *wdev = to_weave_device(drm);

	weave_eng_fini(wdev->engine);
	wdev->engine = NULL;
}

/*
 * Bind a platform device of the module: make its DRM device, with the
 * module parameters' limits, and register it.  Everything made here is
 * managed (devres, drmm), so a failure and the unbind undo it.
 */
static int weave_probe(struct platform_device *pdev)
{
	struct weave_device *wdev;
	int ret;

	/* Importers map buffers for this device: it can reach all memory. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	wdev = devm_drm_dev_alloc(&pdev->dev, &weave_drm_driver,
				  struct weave_device, drm);
	if (IS_ERR(wdev))
		return PTR_ERR(wdev);
	wdev->pdev = pdev;
	wdev->max_bo_size = max_bo_size;
	/* By default the rest of the machine keeps three quarters. */
	wdev->max_client_bo_bytes = max_client_bo_bytes ?:
		(u64)totalram_pages() / 4 << PAGE_SHIFT;
	wdev->max_client_bos = max_client_bos;
	wdev->limits = (struct weave_limits) {
		.num_queues = num_queues,
		.num_engine_queues = num_engine_queues,
		.max_streams = max_streams,
		.max_tasks = max_tasks,
		.strategy = strategy,
		.job_timeout_ms = job_timeout_ms,
		.max_client_streams = max_client_streams,
		.max_pending_tasks = max_pending_tasks,
		.max_staged_bytes = max_staged_bytes,
		.slot_staging_bytes = slot_staging_bytes,
		.max_buffer_claims = max_buffer_claims,
		.max_client_claims = max_client_claims,
	};
	INIT_LIST_HEAD(&wdev->clients);
	ret = drmm_mutex_init(&wdev->drm, &wdev->clients_lock);
	if (ret)
		return ret;
	weave_fg_init(&wdev->failures);
	wdev->failures.max_claims = max_buffer_claims;
	ret = drmm_add_action_or_reset(&wdev->drm, weave_failures_release,
				       NULL);
	if (ret)
		return ret;

	wdev->engine = weave_eng_create(wdev->drm.dev, &wdev->limits);
	if (IS_ERR(wdev->engine)) {
		ret = PTR_ERR(wdev->engine);
		wdev->engine = NULL;
		return ret;
	}
	ret = drmm_add_action_or_reset(&wdev->drm, weave_engine_release, NULL);
	if (ret)
		return ret;

	ret = weave_uengines_init(wdev);
	if (ret)
		return ret;
	ret = weave_spoll_start(wdev);
	if (ret)
		return ret;
	ret = drm_dev_register(&wdev->drm, 0);
	if (ret) {
		weave_spoll_stop(wdev);
		return ret;
	}

	platform_set_drvdata(pdev, wdev);
	return 0;
}

/*
 * Unbind: unplug the DRM device, then cancel every client's work.  The
 * device itself goes with its last reference; see "DOC: lifetimes".
 */
static void weave_remove(struct platform_device *pdev)
{
	struct weave_device *wdev = platform_get_drvdata(pdev);

	/* First: it reads the clients' rings, and enters sections. */
	weave_spoll_stop(wdev);
	/* Before the DRM core removes the directory they are in. */
	weave_debugfs_unplug(wdev);
	drm_dev_unplug(&wdev->drm);
	weave_clients_unplug(wdev);
}

static struct platform_driver weave_platform_driver = {
	.probe = weave_probe,
	WEAVE_COMPAT_PLATFORM_REMOVE(weave_remove)
	.driver = {
		.name = WEAVE_DRIVER_NAME,
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

/*
 * Add platform device @index of the module, which binds to weave's driver
 * as it is added.  Return: 0, or a negative errno and no device: -ENODEV
 * if the probe failed (it said why).
 */
static int weave_device_add(unsigned int index)
{
	struct platform_device *pdev;
	bool bound;

	pdev = platform_device_register_simple(WEAVE_DRIVER_NAME, index,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	device_lock(&pdev->dev);
	bound = pdev->dev.driver;
	device_unlock(&pdev->dev);
	if (!bound) {
		platform_device_unregister(pdev);
		return -ENODEV;
	}

	weave_pdevs[index] = pdev;
	return 0;
}

/* Unregister the first @n platform devices of the module, last first. */
static void weave_devices_unregister(unsigned int n)
{
	while (n--) {
		platform_device_unregister(weave_pdevs[n]);
		weave_pdevs[n] = NULL;
	}
}

static int __init weave_init(void)
{
	unsigned int i;
	int ret;

	if (num_devices < 1 || num_devices > WEAVE_MAX_DEVICES) {
		pr_err("num_devices=%u is outside 1..%u\n", num_devices,
		       WEAVE_MAX_DEVICES);
		return -EINVAL;
	}
	if (max_bo_size < PAGE_SIZE || max_bo_size > WEAVE_MAX_BO_SIZE_LIMIT ||
	    !IS_ALIGNED(max_bo_size, PAGE_SIZE)) {
		pr_err("max_bo_size=%llu is not a multiple of %lu in %lu..%llu\n",
		       max_bo_size, PAGE_SIZE, PAGE_SIZE,
		       WEAVE_MAX_BO_SIZE_LIMIT);
		return -EINVAL;
	}

	if (num_queues < 1 || num_queues > WEAVE_MAX_QUEUES ||
	    num_engine_queues > DRM_WEAVE_MAX_ENGINE_QUEUES ||
	    max_streams < 1 || max_streams > WEAVE_CORE_MAX_STREAMS ||
	    max_tasks < 1 || max_tasks > WEAVE_CORE_MAX_TASKS ||
	    strategy > DRM_WEAVE_STRATEGY_SEQUENTIAL ||
	    job_timeout_ms < WEAVE_TIMEOUT_MS_MIN ||
	    job_timeout_ms > WEAVE_TIMEOUT_MS_MAX ||
	    max_client_streams < 1 ||
	    max_client_streams > WEAVE_CLIENT_STREAMS_MAX ||
	    max_pending_tasks < 1 || max_staged_bytes < 1 ||
	    max_client_bos < 1 ||
	    max_staged_bytes > INT_MAX || slot_staging_bytes < SZ_4K ||
	    slot_staging_bytes > SZ_64M || slot_staging_bytes % SZ_4K ||
	    max_buffer_claims < 1 ||
	    max_buffer_claims > WEAVE_BUFFER_CLAIMS_MAX ||
	    max_client_claims > WEAVE_CLIENT_CLAIMS_MAX) {
		pr_err("a scheduler module parameter is out of range\n");
		return -EINVAL;
	}

	weave_eng_resident_params_apply();
	ret = weave_eng_module_init();
	if (ret)
		return ret;
	ret = platform_driver_register(&weave_platform_driver);
	if (ret)
		goto err_engine;

	for (i = 0; i < num_devices; i++) {
		ret = weave_device_add(i);
		if (ret) {
			pr_err("cannot create device %u: %d\n", i, ret);
			goto err_devices;
		}
	}

	return 0;

err_devices:
	weave_devices_unregister(i);
	platform_driver_unregister(&weave_platform_driver);
err_engine:
	weave_eng_module_exit();
	return ret;
}

static void __exit weave_exit(void)
{
	weave_devices_unregister(num_devices);
	platform_driver_unregister(&weave_platform_driver);
	weave_eng_module_exit();
	/*
	 * No fence or job is left, but the RCU callbacks that freed the last
	 * ones may still be returning from their module_put(): wait until
	 * every one has returned.  Then wait until every task has scheduled
	 * voluntarily, so that none is still in the few instructions of
	 * module text between queueing such a callback and returning to its
	 * caller (a preemptible kernel may run the callback meanwhile).  See
	 * "DOC: fences", Unload.
	 */
	rcu_barrier();
	synchronize_rcu_tasks();
	weave_eng_resident_exit();
}

module_init(weave_init);
module_exit(weave_exit);

MODULE_DESCRIPTION("weave multi-stream GPU task scheduler");
MODULE_LICENSE("GPL");
