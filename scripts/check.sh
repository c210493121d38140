#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs every test and totals them: the core's unit tests, the VM lane's
# self-test, the static checks, and the kselftest suites in the VM on each
# kernel.  Ends with one line: "N passed, N failed".
#
# Usage: scripts/check.sh CACHE_DIR KVER...
set -u
cache=$1
shift
res=build/results
rm -rf "$res"
mkdir -p "$res"

for t in build/unit/*; do
	[ -x "$t" ] || continue
	echo "== unit: $t"
	"$t" > "$res/unit-$(basename "$t").tap" 2>&1
	tail -n 1 "$res/unit-$(basename "$t").tap"
done

echo "== the VM lane's console check"
scripts/vm/selftest.sh > "$res/lane-selftest.tap"
cat "$res/lane-selftest.tap"

echo "== static checks"
scripts/lint.sh "$cache" "$res" "$@"
grep -E '^(not )?ok' "$res/lint.tap" | grep -c '^ok' | sed 's/$/ static checks passed/'

for k in "$@"; do
	echo "== kselftest in the VM: $k"
	scripts/vm/run.sh "$cache" "$k" check
	# No guest log: the guest died before weave.ko was loaded, which
	# lane.tap reports as the lane's failure.
	if [ -f "build/vm/$k/guest.log" ]; then
		cp "build/vm/$k/guest.log" "$res/kselftest-$k.tap"
	fi
	if ! cp "build/vm/$k/lane.tap" "$res/lane-$k.tap" 2>/dev/null; then
		printf 'TAP version 13\n1..1\nnot ok 1 vm %s: the lane produced no result\n' \
			"$k" > "$res/lane-$k.tap"
	fi
done

echo "== totals"
python3 scripts/tally.py "$res"/*.tap
