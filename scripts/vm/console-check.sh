#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fails if a kernel console log shows a warning, BUG, Oops, lockdep or
# sanitizer report, a hung task or a module symbol problem.
#
# Usage: console-check.sh CONSOLE_LOG
set -u
bad='WARNING:|BUG:|Oops|lockdep|possible circular locking|possible recursive locking|KASAN:|UBSAN:|kmemleak|[Uu]nknown symbol|Kernel panic|general protection fault|blocked for more than|RCU stall|stack-protector'
if grep -E "$bad" "$1"; then
	exit 1
fi
exit 0
