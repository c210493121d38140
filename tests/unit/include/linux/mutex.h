/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/mutex.h>: single-threaded, tracks "held". */
#ifndef _WEAVE_TEST_LINUX_MUTEX_H
#define _WEAVE_TEST_LINUX_MUTEX_H

#include <linux/bug.h>
#include <linux/types.h>

struct mutex {
	bool locked;
};

static inline void mutex_init(struct mutex *lock)
{
	lock->locked = false;
}

static inline void mutex_lock(struct mutex *lock)
{
	WARN_ON(lock->locked);
	lock->locked = true;
}

static inline void mutex_unlock(struct mutex *lock)
{
	WARN_ON(!lock->locked);
	lock->locked = false;
}

static inline bool mutex_is_locked(struct mutex *lock)
{
	return lock->locked;
}

#endif
