// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's built-in kernels and host writes, run by the
 * worker against the pinned pages of a job's buffers.
 */

#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/wait.h>

#include <drm/drm_gem_shmem_helper.h>

#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_job.h"
#include "weave_kernels.h"

/* Delays up to this many microseconds sleep without waking for an abort. */
#define WEAVE_SHORT_DELAY_US	2000

/* Copy between a pinned shmem range and @buf. */
static void weave_bo_io(struct drm_gem_shmem_object *shmem, u64 off,
			void *buf, size_t len, bool write)
{
	while (len) {
		size_t po = off & ~PAGE_MASK;
		size_t n = min_t(size_t, len, PAGE_SIZE - po);
		u8 *va = kmap_local_page(shmem->pages[off >> PAGE_SHIFT]);

		if (write)
			memcpy(va + po, buf, n);
		else
			memcpy(buf, va + po, n);
		kunmap_local(va);
		buf += n;
		off += n;
		len -= n;
	}
}

static int weave_run_delay(struct weave_job *job, u32 us)
{
	if (us <= WEAVE_SHORT_DELAY_US) {
		fsleep(us);
		return 0;
	}
	/*
	 * An hrtimer, not jiffies: a timeout of N jiffies may end up to a
	 * tick early, and DELAY promises at least @us.
	 */
	wait_event_hrtimeout(job->queue->abort_wq, weave_eng_job_aborted(job),
			     ns_to_ktime((u64)us * NSEC_PER_USEC));
	return 0;
}

int weave_eng_run_task(struct weave_job *job, struct weave_etask *t)
{
	u8 *s0 = job->queue->scratch;
	u8 *s1 = s0 + PAGE_SIZE, *s2 = s1 + PAGE_SIZE;
	u64 at, done, size;
	u32 crc, i, n;
	bool back;

	if (t->kind == WEAVE_TASK_HOST_WRITE) {
		weave_bo_io(t->b[0].shmem, t->b[0].offset, t->data, t->b[0].size,
			    true);
		return 0;
	}

	size = t->b[0].size;
	switch (t->kernel) {
	case DRM_WEAVE_KERNEL_NOOP:
		return 0;
	case DRM_WEAVE_KERNEL_DELAY:
		return weave_run_delay(job, t->arg);
	case DRM_WEAVE_KERNEL_FAIL:
		return -(int)t->arg;
	case DRM_WEAVE_KERNEL_FILL:
		for (i = 0; i < PAGE_SIZE / 4; i++)
			((u32 *)s0)[i] = t->arg;
		break;
	case DRM_WEAVE_KERNEL_CRC32C:
		crc = ~0u;
		break;
	}

	/*
	 * A COPY within one buffer is a memmove: when the destination lies
	 * after the source, the chunks go last to first, so that none is
	 * read after a chunk before it overwrote it.
	 */
	back = t->kernel == DRM_WEAVE_KERNEL_COPY &&
	       t->b[0].shmem == t->b[1].shmem &&
	       t->b[1].offset > t->b[0].offset;
	for (done = 0; done < size; done += n) {
		if (weave_eng_job_aborted(job))
			return 0;
		n = min_t(u64, size - done, PAGE_SIZE);
		at = back ? size - done - n : done;
		switch (t->kernel) {
		case DRM_WEAVE_KERNEL_FILL:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_COPY:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + at, s0, n,
				    false);
			weave_bo_io(t->b[1].shmem, t->b[1].offset + at, s0, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_ADD_U32:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    false);
			weave_bo_io(t->b[1].shmem, t->b[1].offset + done, s1, n,
				    false);
			for (i = 0; i < n / 4; i++)
				((u32 *)s2)[i] = ((u32 *)s0)[i] + ((u32 *)s1)[i];
			weave_bo_io(t->b[2].shmem, t->b[2].offset + done, s2, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_CRC32C:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    false);
			/* A raw update: the inversions are done here. */
			crc = __crc32c_le(crc, s0, n);
			break;
		}
		cond_resched();
	}
	if (t->kernel == DRM_WEAVE_KERNEL_CRC32C) {
		crc = ~crc;
		weave_bo_io(t->b[1].shmem, t->b[1].offset, &crc, 4, true);
	}
	return 0;
}
