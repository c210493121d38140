// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: faulting in the user memory that an ioctl reads, with no lock
 * held and outside drm_dev_enter(), for its next try, which reads it with
 * page faults disabled.
 */

#include <linux/kernel.h>
#include <linux/pagemap.h>
#include <linux/types.h>

#include "weave_client.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_fault_in.h"
#include "weave_uarray.h"

/**
 * DOC: user memory
 *
 * No weave ioctl touches user memory inside a drm_dev_enter() section or
 * under a client's mutex with page faults enabled: a fault may sleep for
 * as long as the page's owner likes (a userfaultfd that is never served,
 * a FUSE file), and the unplug waits for every section to end and takes
 * every client's mutex (see "DOC: locking").  drm_ioctl() copies each
 * argument struct in before the handler and out after it, outside the
 * handler's section; QUERY, CHECK and the failure reports write their
 * arrays outside it.  ENQUEUE and REPLAY read their arrays, uniforms and
 * host-write bytes as they go, under the mutex, so they read them with
 * page faults disabled: a page that is not present fails the copy, the
 * call undoes what it did, leaves its section and the mutex, faults in
 * everything it reads (weave_enqueue_fault_in(), weave_syncs_fault_in())
 * and tries again.  A page that cannot be faulted in fails the call with
 * -EFAULT, at the element where the last try stopped, so that the
 * elements before it have had their say, as they would have with faults
 * enabled.  A page taken away again between the fault-in and the try (by
 * reclaim, or by a thread of the caller's) costs one more round, up to
 * %WEAVE_FAULT_IN_TRIES, and a signal ends the call between rounds.  The
 * fault-in itself, as any access to user memory, waits for a page until
 * it comes or a fatal signal arrives (a userfaultfd's wait for a kernel
 * fault is not cut short by other signals): it holds nothing meanwhile.
 */

/* Fault in @len bytes at user address @ptr.  Return: true if it failed. */
static bool weave_fault_in_range(u64 ptr, u64 len)
{
	return len && fault_in_readable(u64_to_user_ptr(ptr), len);
}

/**
 * weave_syncs_fault_in() - Fault in an array of &struct drm_weave_sync.
 * @syncs: The array, checked: at most %WEAVE_MAX_IN_SYNCS elements of a
 *	valid stride.
 *
 * Context: No lock held, outside drm_dev_enter(); may sleep on a fault.
 * Return: true if part of it cannot be faulted in.
 */
bool weave_syncs_fault_in(const struct drm_weave_array *syncs)
{
	return syncs->count &&
	       weave_fault_in_range(syncs->ptr,
				    (u64)syncs->count * syncs->stride);
}

/**
 * weave_enqueue_fault_in() - Fault in what an ENQUEUE reads.
 * @c: The client.
 * @args: The checked ENQUEUE arguments.
 *
 * Walks the tasks as the ENQUEUE does, in its order: each task, its
 * bindings, its uniforms or host-write bytes, then the in-syncs.  It stops
 * where the ENQUEUE would stop anyway: at a task it would refuse, or once
 * the host writes pass max_staged_bytes, or at memory it cannot fault in.
 *
 * Context: No lock held, outside drm_dev_enter(); may sleep on a fault.
 * Return: true if it stopped at memory it cannot fault in; false if what
 * the ENQUEUE reads is now present (or it will fail before reading more).
 */
bool weave_enqueue_fault_in(struct weave_client *c,
			    const struct drm_weave_enqueue *args)
{
	u64 room = c->wdev->limits.max_staged_bytes;
	struct drm_weave_binding ub;
	struct drm_weave_task ut;
	u32 i, done;
	int ret;

	for (i = 0; i < args->tasks.count; i++) {
		ret = weave_uarray_read(&ut, sizeof(ut), WEAVE_TASK_SIZE_V0,
					&args->tasks, i, 1, NULL, &done);
		if (ret)
			return ret == -EFAULT;
		if (ut.bindings.count > WEAVE_MAX_BINDINGS ||
		    !weave_uarray_valid(&ut.bindings, sizeof(ub)) ||
		    ut.uniforms_size > WEAVE_MAX_UNIFORM_BYTES)
			return false;
		if (weave_fault_in_range(ut.bindings.ptr,
					 (u64)ut.bindings.count *
					 ut.bindings.stride))
			return true;
		if (ut.type == DRM_WEAVE_TASK_LAUNCH &&
		    weave_fault_in_range(ut.uniforms, ut.uniforms_size))
			return true;
		if (ut.type != DRM_WEAVE_TASK_HOST_WRITE ||
		    ut.bindings.count != 1)
			continue;
		ret = weave_uarray_elem(&ub, sizeof(ub), &ut.bindings, 0);
		if (ret)
			return ret == -EFAULT;
		/* The ENQUEUE fails with -E2BIG or -EBUSY there. */
		if (ub.size > room)
			return false;
		room -= ub.size;
		if (weave_fault_in_range(ut.data, ub.size))
			return true;
		cond_resched();
	}
	return weave_syncs_fault_in(&args->in_syncs);
}
