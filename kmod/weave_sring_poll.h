/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the polling thread of a device, which consumes its polled rings.
 */
#ifndef _WEAVE_SRING_POLL_H_
#define _WEAVE_SRING_POLL_H_

struct weave_device;

/** WEAVE_RING_POLL_IDLE_US_MAX - The largest ring_poll_idle_us, 1 s. */
#define WEAVE_RING_POLL_IDLE_US_MAX	1000000

int weave_spoll_start(struct weave_device *wdev);
void weave_spoll_stop(struct weave_device *wdev);

#endif /* _WEAVE_SRING_POLL_H_ */
