// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the polling thread of a device, which consumes the published
 * descriptors of every polled ring of every client.
 */

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kcov.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/platform_device.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "weave_client.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_sring.h"
#include "weave_sring_enter.h"
#include "weave_sring_poll.h"

/**
 * DOC: ring polling
 *
 * Each device has one polling thread, weave-poll/N, started at probe and
 * stopped first thing at the unbind (before drm_dev_unplug()), so that
 * nothing it reads is freed under it and unload never waits for it.  It
 * sleeps while the device has no ring of poll mode.
 *
 * Awake, it makes passes over &weave_spoll.rings: each visit takes the
 * ring at the front and moves it to the back (round robin across rings
 * and clients), and consumes at most %WEAVE_SRING_POLL_BUDGET descriptors
 * of it with weave_sring_poll_ring(), the doorbell's consume, under the
 * client's mutex, in the ring creator's address space (mmget_not_zero(),
 * kthread_use_mm(): host writes read it; a ring whose address space is
 * gone is skipped) and memory cgroup (set_active_memcg(): what the
 * thread allocates for the client is charged to it), in a drm_dev_enter()
 * section per pass.  It yields (cond_resched()) after each visit.  The
 * submit path's other uses of current are harmless in the thread: it
 * has no signals to see, and the only credential check (CAP_SYS_NICE)
 * is at stream creation, not on the submit path.
 *
 * References: the thread takes a client's mutex only with
 * mutex_trylock() while it holds &weave_spoll.lock, and every ring is
 * taken off the list under both, so a ring it visits, its client and
 * its file live while it holds the mutex; a busy client is visited again
 * later.  A ring leaves the list when it is destroyed, when its stream's
 * client is closed (the file's release, before the DRM core releases its
 * buffer handles), and with the process's exit, which closes the file.
 * The ring holds its creator's mm_struct (mmgrab()) and memory cgroup.
 *
 * Coverage: a ring of poll mode keeps its creator's kcov_common_handle()
 * (&weave_sring.kcov_handle, taken at RING_CREATE: a collector enables
 * remote coverage before it makes its rings), and the thread consumes it
 * between kcov_remote_start_common() and kcov_remote_stop(), as a queue's
 * worker runs a job (see "DOC: hardware queues", Coverage), so that a
 * fuzzer sees what its rings' descriptors reached.  The jobs the thread
 * commits carry the same handle (&weave_ectx.kcov_handle), for the runs
 * on other threads; one it runs at its push is inside its section, which
 * such a run does not open again (sections do not nest in a task).  Both
 * calls are no-ops without CONFIG_KCOV.
 *
 * Idling: after a pass that consumed nothing, the thread naps for
 * %WEAVE_SPOLL_NAP_US to twice that, so that a producer that shares its
 * CPU can publish: a thread that spun would keep it off until the tick.
 * It naps in TASK_IDLE (usleep_idle_range()), as it sleeps
 * (wait_event_idle()): an uninterruptible nap would count in the load
 * average, about one task for each device with an idle polled ring.
 *
 * Sleeping: when no visit has consumed anything for ring_poll_idle_us
 * microseconds of the clock and %WEAVE_SPOLL_IDLE_NAPS naps (fewer for
 * a short idle time; a thread kept off its CPU finds the time spent
 * without having looked), and no ring has anything to consume that it
 * did not find blocked (read first with no flag set, so that a producer
 * does not see the flag come and go while it publishes), the thread
 * sets %DRM_WEAVE_RING_NEED_WAKEUP in every polled ring's header (fully
 * ordered), makes a full barrier, and reads every tail again: if a ring
 * has something published that it did not find blocked (a limit, a full
 * arena) at that same tail, it clears the flags and polls on; else it
 * sleeps until a doorbell, a new polled ring or the unbind wakes it,
 * and clears the flags as it wakes (and on every visit, for rings made
 * while it polls; a doorbell clears its own client's first,
 * weave_sring_poll_waking()).  User space stores its tail, makes a full
 * barrier, then reads the flags: either the thread sees the tail, or
 * user space sees the flag and rings the doorbell.
 */

/*
 * Microseconds the thread naps after a pass that consumed nothing: the
 * CPU goes to whoever will publish, whom a thread spinning on a shared
 * CPU would keep off it until the tick, past the idle time.
 */
#define WEAVE_SPOLL_NAP_US	20
/*
 * The naps an idle time must also hold (fewer for a short one): a nap
 * on a CPU shared with a producer can last until the tick, and the idle
 * time is the clock's, so without them a thread kept off its CPU would
 * find the producer quiet when it only had no turn.
 */
#define WEAVE_SPOLL_IDLE_NAPS	16

/*
 * 10 ms: long enough that a producer descheduled by a loaded host, a
 * tick or two, finds the thread still polling; with naps, polling idle
 * costs a wake-up every 20 to 40 us.  io_uring's SQPOLL default is 1 s.
 */
static unsigned int ring_poll_idle_us = 10000;

/* Set ring_poll_idle_us, at load or later, within its bounds. */
static int weave_spoll_idle_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, WEAVE_RING_POLL_IDLE_US_MAX);
}

static const struct kernel_param_ops weave_spoll_idle_ops = {
	.set = weave_spoll_idle_set,
	.get = param_get_uint,
};

module_param_cb(ring_poll_idle_us, &weave_spoll_idle_ops, &ring_poll_idle_us,
		0644);
MODULE_PARM_DESC(ring_poll_idle_us,
		 "Microseconds the ring polling thread polls with nothing to consume before it sleeps (0-"
		 __stringify(WEAVE_RING_POLL_IDLE_US_MAX) ", default 10000)");

/* Whether @r has published what the thread may consume now. */
static bool weave_spoll_ring_pending(const struct weave_sring *r)
{
	u32 tail = READ_ONCE(r->sq->tail);

	if (READ_ONCE(r->stopped) || !READ_ONCE(r->stream) ||
	    tail == READ_ONCE(r->hdr->head) || !atomic_read(&r->mm->mm_users))
		return false;
	return !READ_ONCE(r->poll_blocked) ||
	       tail != READ_ONCE(r->poll_blocked_tail);
}

/* Whether a polled ring of @sp, whose lock is held, has work for now. */
static bool weave_spoll_pending_locked(struct weave_spoll *sp)
{
	struct weave_sring *r;

	lockdep_assert_held(&sp->lock);
	list_for_each_entry(r, &sp->rings, poll_link)
		if (weave_spoll_ring_pending(r))
			return true;
	return false;
}

/* Whether a polled ring of @sp has work for now. */
static bool weave_spoll_pending(struct weave_spoll *sp)
{
	bool pending;

	mutex_lock(&sp->lock);
	pending = weave_spoll_pending_locked(sp);
	mutex_unlock(&sp->lock);
	return pending;
}

/*
 * Set (or clear) NEED_WAKEUP on every polled ring; when setting, return
 * whether one has something to consume, read after a full barrier.
 */
static bool weave_spoll_need_wakeup(struct weave_spoll *sp, bool set)
{
	struct weave_sring *r;
	bool pending = false;

	mutex_lock(&sp->lock);
	list_for_each_entry(r, &sp->rings, poll_link)
		weave_sring_flags(r, set ? DRM_WEAVE_RING_NEED_WAKEUP : 0,
				  set ? 0 : DRM_WEAVE_RING_NEED_WAKEUP);
	if (set) {
		/* Pairs with user space's barrier between tail and flags. */
		smp_mb();
		pending = weave_spoll_pending_locked(sp);
	}
	mutex_unlock(&sp->lock);
	return pending;
}

/*
 * Consume @r of @c, whose mutex is held, in its creator's context, and
 * as its creator's remote coverage (see the DOC).
 */
static int weave_spoll_consume(struct weave_client *c, struct weave_sring *r)
{
	struct mm_struct *mm = r->mm;
	struct weave_sring_fault fault;
	struct mem_cgroup *old;
	int ret;

	if (!mmget_not_zero(mm)) {
		mutex_unlock(&c->lock);
		return 0;
	}
	kthread_use_mm(mm);
	kcov_remote_start_common(r->kcov_handle);
	old = set_active_memcg(r->memcg);
	c->ectx->kcov_handle = r->kcov_handle;
	ret = weave_sring_poll_ring(c, r, WEAVE_SRING_POLL_BUDGET, &fault);
	c->ectx->kcov_handle = 0;
	set_active_memcg(old);
	mutex_unlock(&c->lock);
	/* With no lock held, as the doorbell does; @r may be gone now. */
	if (fault.len)
		fault_in_readable(u64_to_user_ptr(fault.ptr), fault.len);
	kcov_remote_stop();
	kthread_unuse_mm(mm);
	mmput(mm);
	return ret;
}

/*
 * Visit the ring at the front of @sp's list and move it to the back.
 * Return: whether it consumed something.
 */
static bool weave_spoll_visit(struct weave_spoll *sp)
{
	struct weave_client *c;
	struct weave_sring *r;

	mutex_lock(&sp->lock);
	r = list_first_entry_or_null(&sp->rings, struct weave_sring,
				     poll_link);
	if (!r) {
		mutex_unlock(&sp->lock);
		return false;
	}
	list_move_tail(&r->poll_link, &sp->rings);
	if (READ_ONCE(r->hdr->flags) & DRM_WEAVE_RING_NEED_WAKEUP)
		weave_sring_flags(r, 0, DRM_WEAVE_RING_NEED_WAKEUP);
	c = r->client;
	/* Never waits for a client under the list's lock: see the DOC. */
	if (!mutex_trylock(&c->lock)) {
		mutex_unlock(&sp->lock);
		return false;
	}
	mutex_unlock(&sp->lock);
	return weave_spoll_consume(c, r) > 0;
}

/* One pass: each ring of @wdev visited once.  Return: any progress. */
static bool weave_spoll_pass(struct weave_device *wdev)
{
	struct weave_spoll *sp = &wdev->spoll;
	bool progress = false;
	u32 i, n;
	int idx;

	if (!drm_dev_enter(&wdev->drm, &idx))
		return false;
	mutex_lock(&sp->lock);
	n = sp->nrings;
	mutex_unlock(&sp->lock);
	for (i = 0; i < n && !kthread_should_stop(); i++) {
		progress |= weave_spoll_visit(sp);
		cond_resched();
	}
	drm_dev_exit(idx);
	return progress;
}

/*
 * The thread: poll while there is work, then sleep (see the DOC).  The
 * clock is read only on passes that consume nothing (@idle_since is zero
 * until the first), so that a pass that consumes is not slowed by it:
 * under TCG the clocksource is the HPET, each read of which is emulated.
 */
static int weave_spoll_thread(void *arg)
{
	struct weave_device *wdev = arg;
	struct weave_spoll *sp = &wdev->spoll;
	u64 idle_since = 0, now;
	u32 idle_us, naps = 0;

	while (!kthread_should_stop()) {
		if (weave_spoll_pass(wdev)) {
			idle_since = 0;
			naps = 0;
			continue;
		}
		now = ktime_get_ns();
		if (!idle_since)
			idle_since = now;
		idle_us = READ_ONCE(ring_poll_idle_us);
		if (now - idle_since < (u64)idle_us * NSEC_PER_USEC ||
		    naps < min(idle_us / WEAVE_SPOLL_NAP_US / 4,
			       WEAVE_SPOLL_IDLE_NAPS)) {
			usleep_idle_range(WEAVE_SPOLL_NAP_US,
					  2 * WEAVE_SPOLL_NAP_US);
			naps++;
			continue;
		}
		/*
		 * The idle time is the clock's, and a thread preempted
		 * for longer finds it spent: look first without the flag,
		 * which a producer seeing would answer with a doorbell.
		 */
		if (weave_spoll_pending(sp)) {
			idle_since = 0;
			naps = 0;
			continue;
		}
		if (weave_spoll_need_wakeup(sp, true)) {
			weave_spoll_need_wakeup(sp, false);
			cond_resched();
			continue;
		}
		wait_event_idle(sp->wq,
				atomic_xchg(&sp->kicked, 0) ||
				kthread_should_stop());
		weave_spoll_need_wakeup(sp, false);
		idle_since = 0;
		naps = 0;
	}
	return 0;
}

/**
 * weave_spoll_start() - Start a device's polling thread, at probe.
 * @wdev: The device.
 *
 * Return: 0, or the negative errno of kthread_run().
 */
int weave_spoll_start(struct weave_device *wdev)
{
	struct weave_spoll *sp = &wdev->spoll;
	struct task_struct *t;
	int ret;

	ret = drmm_mutex_init(&wdev->drm, &sp->lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&sp->rings);
	init_waitqueue_head(&sp->wq);
	atomic_set(&sp->kicked, 0);
	t = kthread_run(weave_spoll_thread, wdev, "weave-poll/%d",
			wdev->pdev->id);
	if (IS_ERR(t))
		return PTR_ERR(t);
	sp->thread = t;
	return 0;
}

/**
 * weave_spoll_stop() - Stop a device's polling thread, at the unbind.
 * @wdev: The device.
 *
 * Waits until it has returned; its rings stay on the list, unvisited,
 * until their files are closed.
 */
void weave_spoll_stop(struct weave_device *wdev)
{
	struct weave_spoll *sp = &wdev->spoll;

	if (sp->thread)
		kthread_stop(sp->thread);
	sp->thread = NULL;
}
