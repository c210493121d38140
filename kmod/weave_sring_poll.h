/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the polling thread of a device, which consumes its polled rings.
 */
#ifndef _WEAVE_SRING_POLL_H_
#define _WEAVE_SRING_POLL_H_

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

struct task_struct;
struct weave_device;
struct weave_sring;

/** WEAVE_RING_POLL_IDLE_US_MAX - The largest ring_poll_idle_us, 1 s. */
#define WEAVE_RING_POLL_IDLE_US_MAX	1000000

/**
 * struct weave_spoll - The polling thread of a device and its rings (see
 * "DOC: ring polling").
 */
struct weave_spoll {
	/** @lock: Protects @rings and each ring's &weave_sring.poll_link. */
	struct mutex lock;
	/** @rings: The polled rings of every client, in visiting order. */
	struct list_head rings;
	/** @nrings: Entries of @rings. */
	u32 nrings;
	/** @thread: The thread, from probe until the unbind stops it. */
	struct task_struct *thread;
	/** @wq: Where it sleeps. */
	wait_queue_head_t wq;
	/** @kicked: A doorbell or a new ring asked it to wake. */
	atomic_t kicked;
};

int weave_spoll_start(struct weave_device *wdev);
void weave_spoll_stop(struct weave_device *wdev);
void weave_spoll_add(struct weave_device *wdev, struct weave_sring *r);
void weave_spoll_del(struct weave_device *wdev, struct weave_sring *r);
void weave_spoll_kick(struct weave_device *wdev);

#endif /* _WEAVE_SRING_POLL_H_ */
