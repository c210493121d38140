#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Set-up leaves the host's boot alone: dpkg lists no kernel image that was
# not there before scripts/setup.sh first ran (it records them in
# CACHE_DIR/host-kernels), and the stock kernels' headers are unpacked in
# the cache instead of installed.  Prints TAP.
#
# Usage: tests/build/host-kernels.sh CACHE_DIR
set -u
. "$(dirname "$0")/tap.sh"
cache=${1:?usage: host-kernels.sh CACHE_DIR}
before=$cache/host-kernels
tap_log=$(mktemp)
trap 'rm -f "$tap_log"' EXIT

tap_plan 3
[ -f "$before" ]
tap_result $? "set-up recorded the host's kernel images before its first run"

dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-image-*' 2>/dev/null |
	awk '$1 == "ii" { print $2 }' | sort > "$tap_log.now"
sort "$before" 2>/dev/null | comm -13 - "$tap_log.now" > "$tap_log"
rm -f "$tap_log.now"
[ ! -s "$tap_log" ]
tap_result $? "dpkg lists no linux-image-* that set-up added"

K61= K612=
[ -f "$cache/kernels.mk" ] && . "$cache/kernels.mk"
: > "$tap_log"
for k in ${K61:-6.1-unresolved} ${K612:-6.12-unresolved}; do
	h=$cache/headers/usr/src/linux-headers-$k
	[ -f "$h/.config" ] && [ -f "$h/Module.symvers" ] &&
		grep -q '^include \.\./' "$h/Makefile" ||
		echo "$h: not unpacked, or its Makefile names an absolute path" >> "$tap_log"
done
[ ! -s "$tap_log" ]
tap_result $? "the stock kernels' headers are unpacked in the cache"
