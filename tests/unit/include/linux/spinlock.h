/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/spinlock.h>: single-threaded, tracks "held".
 * Taking a held lock (a self-deadlock in the kernel) or releasing a free
 * one traps.  weave_test_spins_held counts the locks held, for the slab
 * stand-in: no allocation here may sleep under a spinlock.
 */
#ifndef _WEAVE_TEST_LINUX_SPINLOCK_H
#define _WEAVE_TEST_LINUX_SPINLOCK_H

#include <linux/bug.h>
#include <linux/types.h>

typedef struct {
	bool locked;
} spinlock_t;

/* One definition for the whole program, whichever files include this. */
__attribute__((weak)) int weave_test_spins_held;

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = false;
}

static inline void spin_lock(spinlock_t *lock)
{
	WARN_ON(lock->locked);
	lock->locked = true;
	weave_test_spins_held++;
}

static inline void spin_unlock(spinlock_t *lock)
{
	WARN_ON(!lock->locked);
	lock->locked = false;
	weave_test_spins_held--;
}

#define spin_lock_irqsave(lock, flags)	do {				\
	(flags) = 0;							\
	spin_lock(lock);						\
} while (0)
#define spin_unlock_irqrestore(lock, flags)	do {			\
	(void)(flags);							\
	spin_unlock(lock);						\
} while (0)

#endif
