#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Boots one test kernel N times in a row, each time loading and unloading
# weave.ko and nothing else, and counts the boots whose lane failed: a lane
# must never fail by itself.  Prints TAP, one result per boot, with the
# lane's own results of a failed boot; exits non-zero if any boot failed.
#
# Usage: scripts/vm/boot-check.sh CACHE_DIR KVER [N]   (N defaults to 50)
set -u
cache=$1
kver=$2
boots=${3:-50}
dir=build/vm/boot-check/$kver
mkdir -p "$dir"
failed=0
echo "TAP version 13"
echo "1..$boots"
i=1
while [ "$i" -le "$boots" ]; do
	start=$(date +%s)
	if WEAVE_VM_DIR=$dir WEAVE_VM_TIMEOUT=300 \
		scripts/vm/run.sh "$cache" "$kver" boot > "$dir/run.log" 2>&1; then
		echo "ok $i boot $kver ($(($(date +%s) - start)) s)"
	else
		echo "not ok $i boot $kver ($(($(date +%s) - start)) s)"
		sed 's/^/# /' "$dir/lane.tap"
		cp "$dir/console.log" "$dir/console-$i.log"
		failed=$((failed + 1))
	fi
	i=$((i + 1))
done
echo "# $kver: $failed of $boots boots failed"
[ "$failed" -eq 0 ]
