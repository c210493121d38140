// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: what a completed job held for its run, its buffers and in-syncs,
 * let go of outside the fences' signalling path, and the job's two
 * references.
 */

#include <linux/llist.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>

#include "weave_insync.h"
#include "weave_job.h"
#include "weave_job_release.h"

/**
 * DOC: job release
 *
 * What a job holds for its run, a reference and a pin of each buffer it
 * binds (&weave_job.bos) and its tallies' in-syncs (whose failure records
 * they keep), it lets go of when it completes, not when the scheduler
 * frees it, which may be much later (on 6.12 its free_job is a work item
 * of the scheduler's, behind its run_job items).  So once a client has
 * waited for its work and closed a buffer's handle, the buffer's bytes are
 * off its quota, and its next BO_CREATE of the same size succeeds.
 *
 * Who owns what, and when it goes:
 *
 * - From its allocation until its completion, the job owns them: what
 *   runs it (run_job inline, the queue's worker, or its push for an
 *   eager run) uses them, failure recording included, up to the end of
 *   weave_eng_task_execute() and weave_eng_job_fail_from().  A job never
 *   run (freed unpushed, or by the scheduler without run_job) lets go of
 *   them in weave_eng_job_free(), as before.
 * - At its completion, in the thread that ran it, after its last task and
 *   its failure recording and before anything tells that it is done (its
 *   stream's completed count, its hardware fence),
 *   weave_eng_job_completed() hands them over: it puts the job, with a
 *   reference of its own (&weave_job.refs), on a module-wide list.  That
 *   thread is a fence signalling path, where a buffer's last unpin (which
 *   takes its reservation lock) or free may not happen: nothing is let go
 *   there.
 * - The list is emptied under a mutex, weave_job_release_lock, which is
 *   held from taking the jobs off the list until their buffers and
 *   in-syncs are let go and their references dropped: by a work item on
 *   weave_eng_wq that the worker and run_job queue once they are out of
 *   the signalling path (weave_eng_job_release_kick()), by the pusher of
 *   an eager run, which does it itself when the mutex is free
 *   (weave_eng_job_release_now()), and by whoever must see them let go
 *   (weave_eng_job_release_drain()).
 * - So a caller that has seen a job completed, then takes the mutex, finds
 *   the job's buffers let go, by itself or by whoever held the mutex
 *   before: BO_CREATE and PRIME import drain the list before they refuse
 *   a handle with -EDQUOT, ENQUEUE drains it and tries again once before
 *   it refuses a pin past a limit of resident bytes (the buffers of
 *   completed jobs, closed by their clients, are charged until the
 *   release frees them), and closing a handle drains it, so that the
 *   handle's reference is then the last and frees the buffer, and its
 *   quota, at once.  (Not only for a pinned buffer: the release unpins
 *   a buffer before it drops its reference.)  No wait is involved but
 *   the mutex, whose holders wait for nothing but the locks that a
 *   buffer's unpin and free take (&weave_bo.pin_lock, its reservation
 *   lock): never for a fence, a job or a client's mutex.
 *
 * The job itself is freed by the last of its two references: the
 * scheduler's free_job, which frees nothing of the run but the scheduler
 * job, or the release.  A job's replay borrows its template's tasks, and
 * holds buffer references of its own, which go the same way; the
 * template's stay with it.
 */

/* Completed jobs whose buffers and in-syncs are still to be let go. */
static LLIST_HEAD(weave_job_released);
/* Held from taking jobs off weave_job_released until they are let go. */
static DEFINE_MUTEX(weave_job_release_lock);

/**
 * weave_eng_job_put() - Drop a reference to a job.
 * @job: The job; freed by its last reference (weave_eng_job_free()).
 *
 * Context: Process context; may sleep, as weave_eng_job_free() does.
 */
void weave_eng_job_put(struct weave_job *job)
{
	if (refcount_dec_and_test(&job->refs))
		weave_eng_job_free(job);
}

/**
 * weave_eng_job_completed() - Hand over what a completed job holds for its
 * run, to be let go of outside the fences' signalling path.
 * @job: The job, whose tasks are all run or cut short, and whose failures
 *	are recorded.
 *
 * The caller then lets weave_eng_job_release_kick() or
 * weave_eng_job_release_now() let go of it, once out of the signalling
 * path (see "DOC: job release").
 *
 * Context: The thread that ran the job, a fence signalling path, before
 * it tells that the job is done.
 */
void weave_eng_job_completed(struct weave_job *job)
{
	refcount_inc(&job->refs);
	llist_add(&job->release, &weave_job_released);
}

/* Let go of the buffers and in-syncs of @job, handed over completed. */
static void weave_job_let_go(struct weave_job *job)
{
	u32 i;

	for (i = 0; i < job->nbos; i++)
		weave_eng_job_put_bo(job->bos[i].obj);
	job->nbos = 0;
	for (i = 0; i < job->ntallies; i++) {
		weave_eng_insync_put(job->tallies[i].insync);
		job->tallies[i].insync = NULL;
	}
}

/* Empty the list of completed jobs; the release lock held. */
static void weave_job_release_locked(void)
{
	struct llist_node *list;
	struct weave_job *job, *next;

	lockdep_assert_held(&weave_job_release_lock);
	list = llist_del_all(&weave_job_released);
	llist_for_each_entry_safe(job, next, list, release) {
		weave_job_let_go(job);
		weave_eng_job_put(job);
	}
}

static void weave_job_release_work_fn(struct work_struct *work)
{
	weave_eng_job_release_drain();
}

static DECLARE_WORK(weave_job_release_work, weave_job_release_work_fn);

/**
 * weave_eng_job_release_kick() - Have the completed jobs let go of what
 * they hold, on weave_eng_wq.
 *
 * Context: Any but a hard interrupt; a fence signalling path too.
 */
void weave_eng_job_release_kick(void)
{
	if (!llist_empty(&weave_job_released))
		queue_work(weave_eng_wq, &weave_job_release_work);
}

/**
 * weave_eng_job_release_now() - Let go of what the completed jobs hold,
 * in the caller's thread if no one else is at it, else on weave_eng_wq.
 *
 * Context: Process context, out of any fence signalling path; the
 * client's mutex may be held.
 */
void weave_eng_job_release_now(void)
{
	if (!mutex_trylock(&weave_job_release_lock)) {
		weave_eng_job_release_kick();
		return;
	}
	weave_job_release_locked();
	mutex_unlock(&weave_job_release_lock);
}

/**
 * weave_eng_job_release_drain() - Make sure that every job seen completed
 * has let go of its buffers.
 *
 * When it returns, each job whose completion was handed over
 * (weave_eng_job_completed()) before the call began holds no buffer
 * and no in-sync any more.
 *
 * Context: Process context; sleeps.  No weave lock held, nor any lock a
 * buffer's unpin or free takes (see "DOC: locking").
 */
void weave_eng_job_release_drain(void)
{
	mutex_lock(&weave_job_release_lock);
	weave_job_release_locked();
	mutex_unlock(&weave_job_release_lock);
}
