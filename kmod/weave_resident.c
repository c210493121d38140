// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the bytes of buffers made resident, counted per user and for the
 * whole machine against their limits.
 */

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/xarray.h>

#include "weave_resident.h"

/**
 * DOC: resident memory
 *
 * A buffer's quota bounds what one file may create, but a user may open
 * as many files as it likes, and the pages weave makes resident are taken
 * from everyone: while they are pinned for a job, mapped, or pinned or
 * vmapped by a dma-buf importer they cannot be reclaimed at all, and on a
 * machine without swap a shmem page, once there, stays until its buffer
 * is freed.  So the bytes of buffers made resident are also counted by
 * user and for the whole machine, as io_uring counts a user's registered
 * buffers and TTM caps the pages its drivers populate at half of the RAM.
 *
 * - What counts.  A buffer weave created is charged its whole size from
 *   the first call that makes its pages resident until it is freed: the
 *   first pin of weave's (an enqueue or replay of a task that binds it, a
 *   READ), the first mapping of it (the shmem helper populates every page
 *   at mmap()), or the first pin or vmap of it by a dma-buf importer.  A
 *   call that charged the buffer and then fails to make its pages
 *   resident (shmem cannot allocate them, a signal) gives the charge
 *   back, unless another call has made them resident meanwhile
 *   (weave_eng_bo_charge_settle()).  A page that swap took since stays
 *   counted: the bound holds whether or not there is swap.  An imported
 *   buffer's pages are its exporter's, and are not counted here.
 * - Who pays.  A user, by uid: for weave's pins the user that opened the
 *   file whose call pins (a ring's polling thread pins for its file), for
 *   a mapping or an importer's pin the user of the process that maps or
 *   pins.  A buffer shared between users is charged once, to the first.
 * - The limits.  Module parameters, writable by root at run time:
 *   max_user_resident_bytes (default a quarter of the RAM) for one user,
 *   and max_resident_bytes (default half of the RAM, which always leaves
 *   the other half to the rest of the machine) for all users together.
 *   Past the user's limit the call that would make a buffer resident gets
 *   -EDQUOT, past the machine's -ENOMEM, and nothing is queued, mapped or
 *   attached.  Freeing a buffer gives its bytes back at once.  Lowering
 *   a limit takes nothing back; it refuses the next charge.  The counts
 *   never exceed a limit: two charges racing at the edge may both be
 *   refused.
 * - Where to see it.  %DRM_WEAVE_QUERY_DEVICE_INFO reports the limits,
 *   %DRM_WEAVE_QUERY_MEMORY_USAGE the machine's total, and
 *   %DRM_WEAVE_QUERY_CLIENT_USAGE and the file's fdinfo
 *   (weave-user-resident-memory) the bytes of the user who opened it;
 *   debugfs's ``weave_resident`` has the total, the limits and every
 *   user's bytes.
 *
 * A user's entry (&struct weave_res_user) lives while a client of that
 * user is open or a buffer is charged to it, in an xarray by uid whose
 * lock is the entries' lock: the last reference is dropped under it, and
 * readers find an entry under RCU.
 */

/**
 * struct weave_res_user - The bytes of buffers charged to one user.
 */
struct weave_res_user {
	/** @ref: Its clients' references, and one per charge. */
	refcount_t ref;
	/** @uid: The user. */
	kuid_t uid;
	/** @bytes: The bytes charged to it. */
	atomic64_t bytes;
	/** @rcu: Frees it after readers of weave_res_users. */
	struct rcu_head rcu;
};

/* The users' entries, by uid; its lock serialises the last put. */
static DEFINE_XARRAY(weave_res_users);
/* The bytes charged to every user. */
static atomic64_t weave_resident_bytes = ATOMIC64_INIT(0);
static u64 weave_resident_max_user;
static u64 weave_resident_max_total;

/**
 * weave_eng_resident_user_get() - The entry of a user, made if it has none.
 * @uid: The user.
 *
 * Context: Process context; may sleep.
 * Return: The entry, with a reference that weave_eng_resident_user_put()
 * drops, or ERR_PTR(-ENOMEM).
 */
struct weave_res_user *weave_eng_resident_user_get(kuid_t uid)
{
	unsigned long key = __kuid_val(uid);
	struct weave_res_user *ru, *old;

	rcu_read_lock();
	ru = xa_load(&weave_res_users, key);
	if (ru && !refcount_inc_not_zero(&ru->ref))
		ru = NULL;
	rcu_read_unlock();
	if (ru)
		return ru;

	ru = kzalloc(sizeof(*ru), GFP_KERNEL_ACCOUNT);
	if (!ru)
		return ERR_PTR(-ENOMEM);
	refcount_set(&ru->ref, 1);
	ru->uid = uid;
	xa_lock(&weave_res_users);
	/* Under the lock, an entry found has not dropped its last reference. */
	old = __xa_cmpxchg(&weave_res_users, key, NULL, ru, GFP_KERNEL_ACCOUNT);
	if (old && !xa_is_err(old))
		refcount_inc(&old->ref);
	xa_unlock(&weave_res_users);
	if (!old)
		return ru;
	kfree(ru);
	return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
}

/**
 * weave_eng_resident_user_put() - Drop a reference to a user's entry.
 * @ru: The entry.
 *
 * Context: Process or softirq context, no hard interrupt.
 */
void weave_eng_resident_user_put(struct weave_res_user *ru)
{
	if (refcount_dec_not_one(&ru->ref))
		return;
	/* The last reference goes under the lock that lookups take. */
	xa_lock(&weave_res_users);
	if (!refcount_dec_and_test(&ru->ref)) {
		xa_unlock(&weave_res_users);
		return;
	}
	__xa_erase(&weave_res_users, __kuid_val(ru->uid));
	xa_unlock(&weave_res_users);
	WARN_ON_ONCE(atomic64_read(&ru->bytes));
	kfree_rcu(ru, rcu);
}

/**
 * weave_eng_resident_charge() - Charge the bytes of a buffer made resident to a user.
 * @ru: The user's entry, of which the caller holds a reference.
 * @bytes: The bytes.
 *
 * The charge takes a reference to @ru of its own, which
 * weave_eng_resident_uncharge() drops.
 *
 * Context: Any but a hard interrupt.
 * Return: 0; -EDQUOT past the user's limit or -ENOMEM past the machine's,
 * with nothing charged.
 */
int weave_eng_resident_charge(struct weave_res_user *ru, u64 bytes)
{
	if (atomic64_add_return(bytes, &ru->bytes) >
	    READ_ONCE(weave_resident_max_user)) {
		atomic64_sub(bytes, &ru->bytes);
		return -EDQUOT;
	}
	if (atomic64_add_return(bytes, &weave_resident_bytes) >
	    READ_ONCE(weave_resident_max_total)) {
		atomic64_sub(bytes, &weave_resident_bytes);
		atomic64_sub(bytes, &ru->bytes);
		return -ENOMEM;
	}
	refcount_inc(&ru->ref);
	return 0;
}

/**
 * weave_eng_resident_uncharge() - Undo weave_eng_resident_charge().
 * @ru: The user's entry charged.
 * @bytes: The bytes charged.
 *
 * Context: Process or softirq context, no hard interrupt.
 */
void weave_eng_resident_uncharge(struct weave_res_user *ru, u64 bytes)
{
	atomic64_sub(bytes, &weave_resident_bytes);
	atomic64_sub(bytes, &ru->bytes);
	weave_eng_resident_user_put(ru);
}

/**
 * weave_eng_resident_user_bytes() - The bytes charged to a user.
 * @ru: The user's entry, of which the caller holds a reference.
 *
 * Return: A snapshot of its bytes.
 */
u64 weave_eng_resident_user_bytes(const struct weave_res_user *ru)
{
	return atomic64_read(&ru->bytes);
}

/*
 * The limits as module parameters, machine-wide: root may change them
 * while the module is loaded, and reading one shows the limit in force.
 * 0 is the default, a share of the RAM.
 */
static unsigned long long max_user_resident_bytes;
static unsigned long long max_resident_bytes;

/**
 * weave_eng_resident_params_apply() - Put the module parameters' limits
 * in force for every later charge.
 *
 * Context: Any; module load, and the parameters' setter.
 */
void weave_eng_resident_params_apply(void)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	WRITE_ONCE(weave_resident_max_user, max_user_resident_bytes ?: ram / 4);
	WRITE_ONCE(weave_resident_max_total, max_resident_bytes ?: ram / 2);
}

static int weave_resident_param_set(const char *val,
				    const struct kernel_param *kp)
{
	int ret = param_set_ullong(val, kp);

	if (!ret)
		weave_eng_resident_params_apply();
	return ret;
}

static int weave_resident_param_get(char *buffer, const struct kernel_param *kp)
{
	u64 user, total;

	weave_eng_resident_limits(&user, &total);
	return sysfs_emit(buffer, "%llu\n",
			  kp->arg == &max_resident_bytes ? total : user);
}

static const struct kernel_param_ops weave_resident_param_ops = {
	.set = weave_resident_param_set,
	.get = weave_resident_param_get,
};

module_param_cb(max_user_resident_bytes, &weave_resident_param_ops,
		&max_user_resident_bytes, 0644);
MODULE_PARM_DESC(max_user_resident_bytes,
		 "Bytes of buffers one user may make resident through all weave files (0, the default: a quarter of the RAM)");

module_param_cb(max_resident_bytes, &weave_resident_param_ops,
		&max_resident_bytes, 0644);
MODULE_PARM_DESC(max_resident_bytes,
		 "Bytes of buffers all users together may make resident (0, the default: half of the RAM)");

/**
 * weave_eng_resident_limits() - The limits in force.
 * @max_user: Where to put the most bytes charged to one user.
 * @max_total: Where to put the most bytes charged to all users.
 */
void weave_eng_resident_limits(u64 *max_user, u64 *max_total)
{
	*max_user = READ_ONCE(weave_resident_max_user);
	*max_total = READ_ONCE(weave_resident_max_total);
}

/**
 * weave_eng_resident_total() - The bytes charged to all users.
 *
 * Return: A snapshot of the total.
 */
u64 weave_eng_resident_total(void)
{
	return atomic64_read(&weave_resident_bytes);
}

/**
 * weave_eng_resident_show() - Print the total, the limits and each user's
 * bytes, for debugfs.
 * @m: The seq_file.
 *
 * Context: Process context.  A snapshot; the users are listed by uid.
 */
void weave_eng_resident_show(struct seq_file *m)
{
	struct weave_res_user *ru;
	unsigned long key;
	u64 max_user, max_total;

	weave_eng_resident_limits(&max_user, &max_total);
	seq_printf(m, "resident_bytes: %llu\nmax_resident_bytes: %llu\nmax_user_resident_bytes: %llu\n",
		   (u64)atomic64_read(&weave_resident_bytes), max_total,
		   max_user);
	/* Entries are freed after RCU readers; skip those on their way out. */
	rcu_read_lock();
	xa_for_each(&weave_res_users, key, ru)
		seq_printf(m, "uid_%lu: %llu\n", key,
			   (u64)atomic64_read(&ru->bytes));
	rcu_read_unlock();
}

/**
 * weave_eng_resident_exit() - Check at module unload that nothing is left.
 *
 * Every buffer and client is gone by then, and with them every charge and
 * entry.
 */
void weave_eng_resident_exit(void)
{
	WARN_ON_ONCE(atomic64_read(&weave_resident_bytes));
	WARN_ON_ONCE(!xa_empty(&weave_res_users));
	xa_destroy(&weave_res_users);
}
