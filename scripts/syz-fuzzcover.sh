#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Compares the KCOV coverage of kmod/ that a syzkaller campaign (make syz)
# reached with that of weave's own fuzzer suites (selftests/weave/fuzz_*,
# as `make fuzz` runs them) over SECONDS on the same KCOV debug kernel:
# runs the suites in the lane's VM under tools/kcov/kcov-collect.c, then
# measures both sets of PCs the same way with scripts/kcov-lines.py, each
# against the weave.ko that produced it.
#
# The campaign's side: its PCs (OUT/cover/rawcover, syzkaller's convention:
# the address of each call to the KCOV hook) and weave.ko's .text address
# in its guest (OUT/cover/modules), which scripts/syz-report.sh --fetch
# saved, and the weave.ko it fuzzed (OUT/ko/weave.ko, which make syz
# keeps; for an older campaign, the file cover/modules names).  The suites' side:
# KCOV's raw PCs (return addresses) and the address of each of weave.ko's
# sections, as the guest printed them, and a copy of the weave.ko the
# suites ran (fuzzcover/weave.ko).
#
# Usage: scripts/syz-fuzzcover.sh CACHE_DIR SECONDS CAMPAIGN_DIR
#   SECONDS "-": as long as the campaign ran (CAMPAIGN_DIR/seconds);
#   "0": no run, only measure again what fuzzcover/ holds.
# Output: CAMPAIGN_DIR/fuzzcover/{run.log,guest.log,fuzz.pcs,fuzz.sections,
#   weave.ko,compare.txt}
set -eu
[ $# -eq 3 ] || { echo "usage: $0 CACHE_DIR SECONDS CAMPAIGN_DIR" >&2; exit 1; }
cache=$1
secs=$2
camp=$(cd "$3" && pwd -P)
out=$camp/fuzzcover
[ "$secs" != - ] || secs=$(cat "$camp/seconds")
mkdir -p "$out"
. "$cache/debug-kernel-kcov.mk"
kver=$KKCOV

if [ "$secs" != 0 ]; then
	ko=build/kmod/$kver/weave.ko
	[ -f "$ko" ] || { echo "syz-fuzzcover: no $ko (make syz builds it)" >&2; exit 1; }
	cp "$ko" "$out/weave.ko"
	mkdir -p build/kcov
	cc -Wall -Wextra -Werror -O2 -shared -fPIC -o build/kcov/kcov-collect.so \
		tools/kcov/kcov-collect.c -ldl -lpthread
	# The suites, from a random seed, as `make fuzz` runs them.  Under
	# TCG and KCOV a suite overruns its seconds by half, and the debug
	# kernel boots in minutes: the VM gets twice the time, and more.
	rc=0
	WEAVE_FUZZ="$secs - " WEAVE_KCOV=$(pwd)/build/kcov/kcov-collect.so \
		WEAVE_VM_DIR=$out/vm WEAVE_VM_TIMEOUT=$((2 * secs + 1800)) \
		nice -n 19 scripts/vm/run.sh "$cache" "$kver" fuzz > "$out/run.log" 2>&1 || rc=$?
	cp "$out/vm/guest.log" "$out/guest.log" 2>/dev/null || true
	grep -h '^WEAVE-FUZZ' "$out/guest.log" || true
	[ "$rc" -eq 0 ] || echo "syz-fuzzcover: the fuzz run failed ($rc): see $out/run.log"
	# The guest printed the PCs after each suite: what a run cut short
	# reached still counts.
	sed -n 's/^WEAVE-KCOV: //p' "$out/guest.log" | sort -u > "$out/fuzz.pcs"
	sed -n 's/^WEAVE-KCOV-SECTION: //p' "$out/guest.log" > "$out/fuzz.sections"
fi
[ -s "$out/fuzz.sections" ] ||
	{ echo "syz-fuzzcover: the guest printed no section address" >&2; exit 1; }
[ -s "$out/fuzz.pcs" ] ||
	echo "syz-fuzzcover: the suites gave no PC in weave.ko (see $out/guest.log)" >&2

# The campaign's weave.ko and its .text address, from syz-manager's
# /modules.
set -- $(python3 -c '
import json, sys
m = next(m for m in json.load(open(sys.argv[1])) if m["Name"] == "weave")
print(hex(m["Addr"]), m["Path"])' "$camp/cover/modules")
syztext=$1 syzko=$2
[ ! -f "$camp/ko/weave.ko" ] || syzko=$camp/ko/weave.ko
scripts/kcov-lines.py --unreached \
	--set syzkaller "$syzko" "$camp/cover/rawcover" call "$syztext" \
	--set fuzz_suites "$out/weave.ko" "$out/fuzz.pcs" ret "$out/fuzz.sections" |
	tee "$out/compare.txt"
