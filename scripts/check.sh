#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs every test and totals them: the core's unit tests, the tests of
# weave-engine's executor on the host's Vulkan device, the user-space
# build checks (scripts/build-check.sh), the VM lane's self-test, the static
# checks, and the kselftest suites in the VM on each kernel (the debug
# kernel's lane, if one is named, in the background from the start).  Ends
# with one line: "N passed, N failed".
#
# Usage: scripts/check.sh CACHE_DIR KVER...
set -u
cache=$1
shift
res=build/results
rm -rf "$res"
mkdir -p "$res"

# Each guest runs on one host thread.  The debug kernel's lane, the
# longest, runs beside everything else; its output is shown when it ends.
bg=
for k in "$@"; do
	[ -f "$cache/kernels/$k/.debug" ] || continue
	echo "== kselftest in the VM: $k (in the background)"
	mkdir -p "build/vm/$k"
	scripts/vm/run.sh "$cache" "$k" check > "build/vm/$k.run.log" 2>&1 &
	bg="$bg $!:$k"
done
# The stock kernels, for the static checks.
stock=
for k in "$@"; do
	[ -f "$cache/kernels/$k/.debug" ] || stock="$stock $k"
done

for t in build/unit/*; do
	[ -x "$t" ] || continue
	echo "== unit: $t"
	"$t" > "$res/unit-$(basename "$t").tap" 2>&1
	tail -n 1 "$res/unit-$(basename "$t").tap"
done

# weave-engine's executor on the host's Vulkan device (lavapipe).
scripts/engine-check.sh build "$res"

# The Rust crates' host tests (rust/): cargo test of Debian's toolchain.
scripts/rust-check.sh build "$res"

echo "== user-space build checks: libweave's ABI, install, kselftest build, set-up"
scripts/build-check.sh "$cache" build

echo "== the VM lane's console check"
scripts/vm/selftest.sh > "$res/lane-selftest.tap"
cat "$res/lane-selftest.tap"

echo "== static checks"
scripts/lint.sh "$cache" "$res" $stock
grep -E '^(not )?ok' "$res/lint.tap" | grep -c '^ok' | sed 's/$/ static checks passed/'

# collect KVER: keep a lane's results.
collect() {
	# No guest log: the guest died before weave.ko was loaded, which
	# lane.tap reports as the lane's failure.
	if [ -f "build/vm/$1/guest.log" ]; then
		cp "build/vm/$1/guest.log" "$res/kselftest-$1.tap"
	fi
	if ! cp "build/vm/$1/lane.tap" "$res/lane-$1.tap" 2>/dev/null; then
		printf 'TAP version 13\n1..1\nnot ok 1 vm %s: the lane produced no result\n' \
			"$1" > "$res/lane-$1.tap"
	fi
}

for k in "$@"; do
	[ -f "$cache/kernels/$k/.debug" ] && continue
	echo "== kselftest in the VM: $k"
	scripts/vm/run.sh "$cache" "$k" check
	collect "$k"
done
for job in $bg; do
	wait "${job%%:*}"
	k=${job#*:}
	echo "== kselftest in the VM: $k"
	cat "build/vm/$k.run.log"
	collect "$k"
done

echo "== seconds per suite"
for k in "$@"; do
	f=$res/kselftest-$k.tap
	[ -f "$f" ] || continue
	printf '%s:' "$k"
	sed -n 's/^# WEAVE-TIME: \([^ ]*\) \([0-9.]*\) s$/ \1 \2/p' "$f" | tr -d '\n'
	echo
done

echo "== totals"
python3 scripts/tally.py "$res"/*.tap
