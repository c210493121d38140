#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails if a kernel console log shows a warning, BUG, Oops, lockdep,
# sanitizer, debug-objects, list or kmemleak report, an RCU stall, a hung
# task or a module symbol problem, or lockdep turning itself off (after
# which it checks nothing).  The debug kernel's banners ("RCU
# lockdep checking is enabled", kmemleak's start) are not reports.
#
# Usage: console-check.sh CONSOLE_LOG
set -u
bad='WARNING:|BUG:|Oops|INFO: lockdep is turned off|turning off the locking correctness validator|trying to register non-static key|DEBUG_LOCKS_WARN_ON|possible circular locking|possible recursive locking|KASAN:|UBSAN:|ODEBUG:|kmemleak: [0-9]+ new suspected|unreferenced object|list_(add|del) corruption|[Uu]nknown symbol|Kernel panic|general protection fault|blocked for more than|detected stall|stack-protector'
if grep -E "$bad" "$1"; then
	exit 1
fi
exit 0
