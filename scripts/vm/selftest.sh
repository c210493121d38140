#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks the checker: console-check.sh must reject a console that shows each
# kind of kernel report, and accept a clean one.  Prints TAP.
set -u
tmp=$(mktemp)
n=0
set -- \
	'WARNING: CPU: 1 PID: 42 at kmod/weave_drv.c:10 weave_init+0x1/0x2 [weave]' \
	'BUG: kernel NULL pointer dereference, address: 0000000000000000' \
	'Oops: 0000 [#1] PREEMPT SMP NOPTI' \
	'WARNING: possible circular locking dependency detected' \
	'BUG: KASAN: slab-use-after-free in weave_bo_free+0x10/0x20 [weave]' \
	'weave: Unknown symbol drm_gem_shmem_create (err -2)' \
	'INFO: task weave-test:99 blocked for more than 120 seconds.' \
	'ODEBUG: free active (active state 0) object: 000000004e4e8bba object type: timer_list' \
	'kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)' \
	'INFO: lockdep is turned off.' \
	'INFO: trying to register non-static key.' \
	'turning off the locking correctness validator.' \
	'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
	'list_add corruption. next->prev should be prev (ffff888), but was 0000000000000000.' \
	'UBSAN: shift-out-of-bounds in kmod/weave_core.c:10:5'
echo "TAP version 13"
echo "1..$(($# + 1))"
for line in "$@"; do
	n=$((n + 1))
	printf '[    1.0] booted\n[    2.0] %s\n' "$line" > "$tmp"
	if scripts/vm/console-check.sh "$tmp" > /dev/null; then
		echo "not ok $n console check misses: $line"
	else
		echo "ok $n console check rejects: ${line%%:*}"
	fi
done
n=$((n + 1))
printf '[    1.0] booted\n[    1.1] rcu: \tRCU lockdep checking is enabled.\n[    1.2] kmemleak: Kernel memory leak detector initialized (mem pool available: 14765)\n[    2.0] weave: loaded\n' > "$tmp"
if scripts/vm/console-check.sh "$tmp" > /dev/null; then
	echo "ok $n console check accepts a clean console"
else
	echo "not ok $n console check rejects a clean console"
fi
rm -f "$tmp"
