// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the bytes of buffers held resident, counted per user and for the
 * whole machine against their limits.
 */

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "weave_pinned.h"

/**
 * DOC: pinned memory
 *
 * A page that weave holds resident cannot be reclaimed: while it is
 * pinned for a job, mapped, or pinned or vmapped by a dma-buf importer,
 * its buffer's shmem pages stay in memory whatever the pressure.  A
 * client's buffer quota bounds what one file may create, but a user may
 * open as many files as it likes; so the bytes held resident are also
 * counted by user and for the whole machine, as io_uring counts a user's
 * registered buffers and TTM caps the pages of all its drivers.
 *
 * - What counts.  A buffer weave created is charged its whole size while
 *   it has any hold (&weave_bo.holds): weave's own pins of its pages (a
 *   queued or running task that binds it, a replay, a READ), each mapping
 *   of it (the shmem helper populates every page at mmap()), and each pin
 *   and vmap of it by a dma-buf importer.  The first hold charges and the
 *   last gives back.  An imported buffer's pages are its exporter's, and
 *   are not counted here.
 * - Who pays.  The charge goes to a user, by uid: for weave's pins the
 *   user that opened the file whose call pins (its ring's polling thread
 *   included), for a mapping or an importer's pin the user of the process
 *   that maps or pins.  A buffer shared between users is charged once, to
 *   whoever held it first.
 * - The limits.  Module parameters, writable by root at run time:
 *   max_user_pinned_bytes (default a quarter of the RAM) for one user,
 *   and max_pinned_bytes (default half of the RAM, which always leaves
 *   the other half to the rest of the machine) for all users together.
 *   Past the user's limit the call that would hold gets -EDQUOT, past the
 *   machine's -ENOMEM, and nothing is held, queued or mapped.  Lowering a
 *   limit takes nothing back; it refuses the next charge.  The counts
 *   never exceed a limit: two charges racing at the edge may both be
 *   refused.
 * - Where to see it.  Each client's fdinfo shows its user's bytes
 *   (weave-user-pinned-memory) and debugfs's ``weave_pinned`` the machine's
 *   total, both limits and every user's bytes.
 *
 * A user's entry (&struct weave_pin_user) lives while a client of that
 * user is open or a buffer is charged to it, in an xarray by uid whose
 * lock is the entries' lock: the last reference is dropped under it, and
 * readers find an entry under RCU.
 */

/**
 * struct weave_pin_user - The bytes one user holds resident.
 */
struct weave_pin_user {
	/** @ref: Its clients' references, and one per charge. */
	refcount_t ref;
	/** @uid: The user. */
	kuid_t uid;
	/** @bytes: The bytes charged to it. */
	atomic64_t bytes;
	/** @rcu: Frees it after readers of weave_pin_users. */
	struct rcu_head rcu;
};

/* The users' entries, by uid; its lock serialises the last put. */
static DEFINE_XARRAY(weave_pin_users);
/* The bytes charged to every user. */
static atomic64_t weave_pinned_bytes = ATOMIC64_INIT(0);
static u64 weave_pinned_max_user;
static u64 weave_pinned_max_total;

/**
 * weave_eng_pinned_user_get() - The entry of a user, made if it has none.
 * @uid: The user.
 *
 * Context: Process context; may sleep.
 * Return: The entry, with a reference that weave_eng_pinned_user_put()
 * drops, or ERR_PTR(-ENOMEM).
 */
struct weave_pin_user *weave_eng_pinned_user_get(kuid_t uid)
{
	unsigned long key = __kuid_val(uid);
	struct weave_pin_user *pu, *old;

	rcu_read_lock();
	pu = xa_load(&weave_pin_users, key);
	if (pu && !refcount_inc_not_zero(&pu->ref))
		pu = NULL;
	rcu_read_unlock();
	if (pu)
		return pu;

	pu = kzalloc(sizeof(*pu), GFP_KERNEL_ACCOUNT);
	if (!pu)
		return ERR_PTR(-ENOMEM);
	refcount_set(&pu->ref, 1);
	pu->uid = uid;
	xa_lock(&weave_pin_users);
	/* Under the lock, an entry found has not dropped its last reference. */
	old = __xa_cmpxchg(&weave_pin_users, key, NULL, pu, GFP_KERNEL_ACCOUNT);
	if (old && !xa_is_err(old))
		refcount_inc(&old->ref);
	xa_unlock(&weave_pin_users);
	if (!old)
		return pu;
	kfree(pu);
	return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
}

/**
 * weave_eng_pinned_user_put() - Drop a reference to a user's entry.
 * @pu: The entry.
 *
 * Context: Process or softirq context, no hard interrupt.
 */
void weave_eng_pinned_user_put(struct weave_pin_user *pu)
{
	if (!refcount_dec_and_lock(&pu->ref, &weave_pin_users.xa_lock))
		return;
	__xa_erase(&weave_pin_users, __kuid_val(pu->uid));
	xa_unlock(&weave_pin_users);
	WARN_ON_ONCE(atomic64_read(&pu->bytes));
	kfree_rcu(pu, rcu);
}

/**
 * weave_eng_pinned_charge() - Charge bytes held resident to a user.
 * @pu: The user's entry, of which the caller holds a reference.
 * @bytes: The bytes.
 *
 * The charge takes a reference to @pu of its own, which
 * weave_eng_pinned_uncharge() drops.
 *
 * Context: Any but a hard interrupt.
 * Return: 0; -EDQUOT past the user's limit or -ENOMEM past the machine's,
 * with nothing charged.
 */
int weave_eng_pinned_charge(struct weave_pin_user *pu, u64 bytes)
{
	if (atomic64_add_return(bytes, &pu->bytes) >
	    READ_ONCE(weave_pinned_max_user)) {
		atomic64_sub(bytes, &pu->bytes);
		return -EDQUOT;
	}
	if (atomic64_add_return(bytes, &weave_pinned_bytes) >
	    READ_ONCE(weave_pinned_max_total)) {
		atomic64_sub(bytes, &weave_pinned_bytes);
		atomic64_sub(bytes, &pu->bytes);
		return -ENOMEM;
	}
	refcount_inc(&pu->ref);
	return 0;
}

/**
 * weave_eng_pinned_uncharge() - Undo weave_eng_pinned_charge().
 * @pu: The user's entry charged.
 * @bytes: The bytes charged.
 *
 * Context: Process or softirq context, no hard interrupt.
 */
void weave_eng_pinned_uncharge(struct weave_pin_user *pu, u64 bytes)
{
	atomic64_sub(bytes, &weave_pinned_bytes);
	atomic64_sub(bytes, &pu->bytes);
	weave_eng_pinned_user_put(pu);
}

/**
 * weave_eng_pinned_user_bytes() - The bytes charged to a user.
 * @pu: The user's entry, of which the caller holds a reference.
 *
 * Return: A snapshot of its bytes.
 */
u64 weave_eng_pinned_user_bytes(const struct weave_pin_user *pu)
{
	return atomic64_read(&pu->bytes);
}

/**
 * weave_eng_pinned_set_limits() - Set the limits of every later charge.
 * @max_user: The most bytes charged to one user.
 * @max_total: The most bytes charged to all users together.
 *
 * Context: Any; the module parameters' setter, and module load.
 */
void weave_eng_pinned_set_limits(u64 max_user, u64 max_total)
{
	WRITE_ONCE(weave_pinned_max_user, max_user);
	WRITE_ONCE(weave_pinned_max_total, max_total);
}

/**
 * weave_eng_pinned_limits() - The limits in force.
 * @max_user: Where to put the most bytes charged to one user.
 * @max_total: Where to put the most bytes charged to all users.
 */
void weave_eng_pinned_limits(u64 *max_user, u64 *max_total)
{
	*max_user = READ_ONCE(weave_pinned_max_user);
	*max_total = READ_ONCE(weave_pinned_max_total);
}

/**
 * weave_eng_pinned_total() - The bytes charged to all users.
 *
 * Return: A snapshot of the total.
 */
u64 weave_eng_pinned_total(void)
{
	return atomic64_read(&weave_pinned_bytes);
}

/**
 * weave_eng_pinned_show() - Print the total, the limits and each user's
 * bytes, for debugfs.
 * @m: The seq_file.
 *
 * Context: Process context.  A snapshot; the users are listed by uid.
 */
void weave_eng_pinned_show(struct seq_file *m)
{
	struct weave_pin_user *pu;
	unsigned long key;
	u64 max_user, max_total;

	weave_eng_pinned_limits(&max_user, &max_total);
	seq_printf(m, "pinned_bytes: %llu\nmax_pinned_bytes: %llu\nmax_user_pinned_bytes: %llu\n",
		   (u64)atomic64_read(&weave_pinned_bytes), max_total,
		   max_user);
	/* Entries are freed after RCU readers; skip those on their way out. */
	rcu_read_lock();
	xa_for_each(&weave_pin_users, key, pu)
		seq_printf(m, "uid_%lu: %llu\n", key,
			   (u64)atomic64_read(&pu->bytes));
	rcu_read_unlock();
}

/**
 * weave_eng_pinned_exit() - Check at module unload that nothing is left.
 *
 * Every buffer and client is gone by then, and with them every charge and
 * entry.
 */
void weave_eng_pinned_exit(void)
{
	WARN_ON_ONCE(atomic64_read(&weave_pinned_bytes));
	WARN_ON_ONCE(!xa_empty(&weave_pin_users));
	xa_destroy(&weave_pin_users);
}
