// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the doorbell of shared submission rings, which copies their
 * published descriptors in once each, checks the copies and queues them.
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_client.h"
#include "weave_drm.h"
#include "weave_enqueue.h"
#include "weave_staging.h"
#include "weave_sring.h"
#include "weave_sring_enter.h"
#include "weave_submit.h"

/**
 * DOC: ring doorbell
 *
 * %DRM_IOCTL_WEAVE_RING_ENTER visits the client's rings in turn, starting
 * after the one the last call ended with, under the client's mutex, in a
 * drm_dev_enter() section and with page faults disabled, as ENQUEUE's
 * tries.  On each ring it reads the tail once (acquire), then copies up to
 * %WEAVE_SRING_BATCH descriptors into the client's scratch, each once,
 * checks the copies' format and hands them to weave_submit_ktasks(), the
 * path of ENQUEUE from the copied task on.  If that refuses the batch, it
 * queues the same copies one by one, so that the tasks before the bad one
 * are queued and the ring stops at it.  Only then is the head published
 * (release).  The call stops after %DRM_WEAVE_RING_ENTER_MAX descriptors.
 *
 * As in ENQUEUE, a host write whose bytes are not resident makes the try
 * stop with -EFAULT: the call faults them in with no lock held and tries
 * again, and -EFAULT stands (and stops the ring) only if they cannot be.
 * A full staging arena is waited for in the same way.
 */

/* What one doorbell has done so far, across its tries. */
struct weave_sring_call {
	struct weave_room room;
	u32 budget;		/* descriptors it may still consume */
	u32 consumed;		/* descriptors consumed */
	u32 resume;		/* the ring to resume first, or zero */
	bool fault_final;	/* -EFAULT stands */
	u64 fault_ptr;		/* the host write's bytes that faulted */
	u64 fault_len;
};

/*
 * Errors that leave the descriptor published: limits and memory for now,
 * signals, the device, and what a new try can fix.
 */
static bool weave_sring_transient(int err, const struct weave_sring_call *call)
{
	switch (err) {
	case -EBUSY:
	case -ENOMEM:
	case -EAGAIN:
	case -EINTR:
	case -ERESTARTSYS:
	case -ENODEV:
		return true;
	case -EFAULT:
		return !call->fault_final;
	}
	return false;
}

/*
 * Copy the descriptor at ring position @at, with @avail units published
 * from there, into @raw once, and decode the copy into @kt.  *@units is
 * set to its size; *@skip if it is a skip.
 */
static int weave_sring_fetch(const struct weave_sring *r, u32 at, u32 avail,
			     u8 *raw, struct weave_ktask *kt, u32 *units,
			     bool *skip)
{
	const u32 unit = DRM_WEAVE_RING_UNIT;
	u32 pos = at & (r->units - 1);
	const u8 *src = r->descs + (size_t)pos * unit;
	struct drm_weave_ring_desc d;
	size_t nb, need;
	u32 u;

	memcpy(raw, src, unit);
	u = raw[0];
	*units = u;
	*skip = raw[1] == DRM_WEAVE_RING_DESC_SKIP;
	if (!u || u > avail || pos + u > r->units)
		return -EINVAL;
	if (*skip)
		return 0;
	if (u < sizeof(d) / unit || u > DRM_WEAVE_RING_DESC_MAX_UNITS)
		return -EINVAL;
	memcpy(raw + unit, src + unit, (size_t)(u - 1) * unit);
	/* From here on only the copy is read. */
	memcpy(&d, raw, sizeof(d));
	nb = d.num_bindings;
	if (nb > WEAVE_MAX_BINDINGS || d.uniforms_size > WEAVE_MAX_UNIFORM_BYTES)
		return -EINVAL;
	need = sizeof(d) + nb * sizeof(struct drm_weave_binding) +
	       d.uniforms_size;
	if (DIV_ROUND_UP(need, unit) != u)
		return -EINVAL;
	kt->task = (struct drm_weave_task) {
		.type = d.type,
		.kernel = d.kernel,
		.bindings = {
			.stride = sizeof(struct drm_weave_binding),
			.count = nb,
		},
		.uniforms_size = d.uniforms_size,
		.grid = { d.grid[0], d.grid[1], d.grid[2] },
		.data = d.data,
		.label = d.label,
	};
	memcpy(kt->bindings, raw + sizeof(d), nb * sizeof(kt->bindings[0]));
	memcpy(kt->uniforms, raw + sizeof(d) + nb * sizeof(kt->bindings[0]),
	       d.uniforms_size);
	return 0;
}

/* Publish the head of @r, after the tasks before it are queued. */
static void weave_sring_publish(struct weave_sring *r, u32 head, u64 seqno,
				struct weave_sring_call *call, u32 n)
{
	r->head = head;
	call->consumed += n;
	call->budget -= n;
	if (seqno)
		WRITE_ONCE(r->hdr->seqno, seqno);
	/*
	 * User space that loads the head (acquire) sees the seqno, and may
	 * reuse the units before it: the kernel has read them for good.
	 */
	smp_store_release(&r->hdr->head, head);
}

/* Queue the @n tasks at @kt on @r's stream; the stream's seqno to *@seqno. */
static int weave_sring_queue(struct weave_client *c, struct drm_file *file,
			     struct weave_sring *r, const struct weave_ktask *kt,
			     u32 n, struct weave_sring_call *call, u64 *seqno)
{
	struct drm_weave_enqueue args = {
		.stream = r->stream,
		.tasks.count = n,
	};
	bool record = weave_core_capture_recording(&c->capture, r->stream);
	int ret;

	ret = weave_submit_ktasks(c, file, &args, kt,
				  record ? &weave_graph_recorder : NULL,
				  &call->room);
	if (!ret) {
		*seqno = args.seqno;
	} else if (ret == -EAGAIN && call->room.full) {
		call->room.seen = weave_eng_staging_reclaimed(c->ectx,
							      call->room.slot);
	} else if (ret == -EFAULT && n == 1 && kt->task.bindings.count == 1) {
		call->fault_ptr = kt->task.data;
		call->fault_len = kt->bindings[0].size;
	}
	return ret;
}

/*
 * Queue the @n copied tasks of a batch that ends at ring position @end,
 * then one by one if the batch is refused.  Returns the error of the
 * first task refused alone, with @r's head at it.
 */
static int weave_sring_queue_batch(struct weave_client *c,
				   struct drm_file *file, struct weave_sring *r,
				   u32 n, u32 end, u32 nskips,
				   struct weave_sring_call *call)
{
	struct weave_sring_scratch *s = c->sring_scratch;
	u64 seqno = 0;
	u32 i;
	int ret;

	ret = n ? weave_sring_queue(c, file, r, s->kt, n, call, &seqno) : 0;
	if (!ret) {
		weave_sring_publish(r, end, seqno, call, n + nskips);
		return 0;
	}
	for (i = 0; i < n && n > 1; i++) {
		ret = weave_sring_queue(c, file, r, &s->kt[i], 1, call,
					&seqno);
		if (ret)
			break;
		weave_sring_publish(r, s->end[i], seqno, call, 1);
	}
	if (!ret)	/* the skips after the last task */
		weave_sring_publish(r, end, 0, call, 0);
	return ret;
}

/*
 * One batch of @r: copy in what is published from its head, up to a
 * skip-free batch or @call's budget, queue it, and stop the ring at a
 * bad descriptor.  Return: a transient error, or 0; *@more if the ring
 * may have more to consume.
 */
static int weave_sring_batch(struct weave_client *c, struct drm_file *file,
			     struct weave_sring *r, u32 avail,
			     struct weave_sring_call *call, bool *more)
{
	struct weave_sring_scratch *s = c->sring_scratch;
	u32 n = 0, nskips = 0, used = 0, units;
	int bad = 0, ret;
	bool skip;

	while (used < avail && n < WEAVE_SRING_BATCH &&
	       n + nskips < call->budget) {
		bad = weave_sring_fetch(r, r->head + used, avail - used, s->raw,
					&s->kt[n], &units, &skip);
		if (bad)
			break;
		used += units;
		if (skip) {
			nskips++;
			continue;
		}
		s->end[n++] = r->head + used;
	}
	ret = weave_sring_queue_batch(c, file, r, n, r->head + used, nskips,
				      call);
	if (!ret && bad)
		ret = bad;
	if (ret && !weave_sring_transient(ret, call))
		weave_sring_stop(r, ret);
	*more = !ret && used < avail && call->budget;
	return ret && weave_sring_transient(ret, call) ? ret : 0;
}

/* Consume what is published on @r, within @call's budget. */
static int weave_sring_consume(struct weave_client *c, struct drm_file *file,
			       struct weave_sring *r,
			       struct weave_sring_call *call)
{
	bool more = true;
	u32 avail;
	int ret = 0;

	while (more && !ret && !r->stopped && call->budget) {
		/* Pairs with the producer's release: descriptors, then tail. */
		avail = smp_load_acquire(&r->sq->tail) - r->head;
		if (avail > r->units) {
			/* Past capacity, or backwards. */
			weave_sring_stop(r, -EINVAL);
			break;
		}
		if (!avail)
			break;
		ret = weave_sring_batch(c, file, r, avail, call, &more);
	}
	return ret;
}

/* Acknowledge the error of ring @handle and let it go on. */
static int weave_sring_resume(struct weave_client *c, u32 handle)
{
	struct weave_sring *r = xa_load(&c->srings, handle);
	struct drm_weave_ring_header *h;

	if (!r)
		return -ENOENT;
	if (!r->stopped)
		return -EALREADY;
	h = r->hdr;
	r->stopped = false;
	r->poll_faults = 0;
	WRITE_ONCE(h->error, 0);
	WRITE_ONCE(h->error_index, 0);
	/* After the error word is cleared, as weave_sring_stop() sets it. */
	weave_sring_flags(r, 0, DRM_WEAVE_RING_STOPPED);
	/* A ring whose stream is gone stops again at once. */
	if (!r->stream)
		weave_sring_stop(r, -ENOENT);
	return 0;
}

/* Consume the rings of @c, starting after the last one visited. */
static int weave_sring_consume_all(struct weave_client *c,
				   struct drm_file *file,
				   struct weave_sring_call *call)
{
	unsigned long first = c->sring_next, i;
	struct weave_sring *r;
	int ret = 0, pass;

	for (pass = 0; pass < 2 && !ret; pass++) {
		i = pass ? 0 : first;
		xa_for_each_start(&c->srings, i, r, i) {
			if ((pass && i >= first) || ret || !call->budget)
				break;
			ret = weave_sring_consume(c, file, r, call);
			c->sring_next = i + 1;
		}
	}
	return ret;
}

/* One try of a doorbell: its section, the client's mutex, no faults. */
static int weave_sring_enter_try(struct drm_device *drm,
				 struct drm_file *file,
				 struct weave_sring_call *call)
{
	struct weave_client *c = file->driver_priv;
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (!ret) {
		call->room.full = false;
		if (call->resume)
			ret = weave_sring_resume(c, call->resume);
		call->resume = 0;
		pagefault_disable();
		if (!ret)
			ret = weave_sring_consume_all(c, file, call);
		pagefault_enable();
		/* The call ends with a kick of the polling thread. */
		if (c->npolled)
			weave_sring_poll_waking(c);
		mutex_unlock(&c->lock);
	}
	drm_dev_exit(idx);
	return ret;
}

/*
 * Between tries, with nothing held: wait for room in a staging arena, or
 * fault a host write's bytes in.  Return: 0 to try again, or the error.
 */
static int weave_sring_enter_wait(struct weave_client *c,
				  struct weave_sring_call *call, int err,
				  u32 *tries)
{
	int ret = err;

	if (err == -EAGAIN && call->room.full) {
		ret = weave_eng_staging_wait(c->ectx, call->room.slot,
					     call->room.seen,
					     c->wdev->limits.job_timeout_ms);
		call->room.last = ret == -ETIME;
		if (call->room.last)
			ret = 0;
	} else if (err == -EFAULT && !call->fault_final) {
		call->fault_final = !call->fault_len ||
				    fault_in_readable(u64_to_user_ptr(call->fault_ptr),
						      call->fault_len) ||
				    ++*tries >= WEAVE_FAULT_IN_TRIES;
		call->fault_len = 0;
		call->room.last = false;
		ret = 0;
	}
	if (!ret && signal_pending(current))
		ret = -ERESTARTSYS;
	return ret;
}

/**
 * weave_ring_enter_ioctl() - Handle %DRM_IOCTL_WEAVE_RING_ENTER.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_ring_enter.
 * @file: The client's file.
 *
 * See "DOC: ring doorbell".
 *
 * Return: 0 or a negative errno as documented on the struct; an error
 * that came after descriptors were consumed is not returned.
 */
int weave_ring_enter_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_weave_ring_enter *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_sring_call call = {
		.budget = DRM_WEAVE_RING_ENTER_MAX,
	};
	u32 tries = 0;
	int ret;

	args->consumed = 0;
	if (args->flags & ~DRM_WEAVE_RING_ENTER_RESUME || args->pad ||
	    (!(args->flags & DRM_WEAVE_RING_ENTER_RESUME) && args->ring))
		return -EINVAL;
	if (args->flags & DRM_WEAVE_RING_ENTER_RESUME)
		call.resume = args->ring ? args->ring : U32_MAX;
	for (;;) {
		ret = weave_sring_enter_try(drm, file, &call);
		if (ret != -EAGAIN && ret != -EFAULT)
			break;
		ret = weave_sring_enter_wait(c, &call, ret, &tries);
		if (ret)
			break;
		cond_resched();
	}
	args->consumed = call.consumed;
	/* What the doorbell left, or is published next, is the thread's. */
	if (READ_ONCE(c->npolled))
		weave_sring_poll_kick(c->wdev);
	return call.consumed && ret != -ENODEV ? 0 : ret;
}

/**
 * weave_sring_poll_ring() - Consume one ring for the polling thread.
 * @c: The ring's client.
 * @r: The ring, of poll mode.
 * @budget: The most descriptors to consume.
 * @fault: Out: a host write's bytes to fault in with no lock held before
 *	the next visit, or a zero length.
 *
 * As one try of the doorbell on @r alone, with page faults disabled: the
 * same function consumes, so the same rules hold.  A host write whose
 * bytes are not resident is faulted in by the caller and tried again at
 * the next visits, up to %WEAVE_FAULT_IN_TRIES rounds, after which
 * -EFAULT stands and stops the ring.  A task that cannot be queued for
 * now stays published, and marks the ring blocked at its tail.
 *
 * Context: The client's mutex held, inside a drm_dev_enter() section, in
 * the address space and memory cgroup of the ring's creator.
 * Return: The descriptors consumed, or a negative transient errno.
 */
int weave_sring_poll_ring(struct weave_client *c, struct weave_sring *r,
			  u32 budget, struct weave_sring_fault *fault)
{
	struct weave_sring_call call = {
		.budget = budget,
		.fault_final = r->poll_faults >= WEAVE_FAULT_IN_TRIES,
	};
	int ret;

	fault->len = 0;
	pagefault_disable();
	ret = weave_sring_consume(c, r->file, r, &call);
	pagefault_enable();
	if (call.consumed)
		r->poll_faults = 0;
	if (ret == -EFAULT) {
		fault->ptr = call.fault_ptr;
		fault->len = call.fault_len;
		/* Bytes nobody knows cannot be faulted in: final next time. */
		r->poll_faults = fault->len ? r->poll_faults + 1 :
					      WEAVE_FAULT_IN_TRIES;
	}
	WRITE_ONCE(r->poll_blocked_tail, READ_ONCE(r->sq->tail));
	WRITE_ONCE(r->poll_blocked, ret && ret != -EFAULT);
	return ret ? ret : call.consumed;
}
