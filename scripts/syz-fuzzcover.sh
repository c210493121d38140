#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Compares the KCOV coverage of kmod/ that a syzkaller campaign (make syz)
# reached with that of weave's own fuzzer suites (selftests/weave/fuzz_*,
# as `make fuzz` runs them) over SECONDS on the same KCOV debug kernel:
# runs the suites in the lane's VM under tools/kcov/kcov-collect.c, then
# measures both sets of PCs the same way with scripts/kcov-lines.py.
# The campaign's PCs and weave.ko's .text address in its guest are the
# ones scripts/syz-report.sh --fetch saved (OUT/cover/rawcover, modules).
#
# Usage: scripts/syz-fuzzcover.sh CACHE_DIR SECONDS CAMPAIGN_DIR
#   SECONDS "-": as long as the campaign ran (CAMPAIGN_DIR/seconds).
# Output: CAMPAIGN_DIR/fuzzcover/{guest.log,fuzz.pcs,compare.txt}
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
ko=build/kmod/$kver/weave.ko
[ -f "$ko" ] || { echo "syz-fuzzcover: no $ko (make syz builds it)" >&2; exit 1; }

mkdir -p build/kcov
cc -Wall -Wextra -Werror -O2 -shared -fPIC -o build/kcov/kcov-collect.so \
	tools/kcov/kcov-collect.c -ldl -lpthread

# The suites, from a random seed, as `make fuzz` runs them.
rc=0
WEAVE_FUZZ="$secs - " WEAVE_KCOV=$(pwd)/build/kcov/kcov-collect.so \
	WEAVE_VM_DIR=$out/vm WEAVE_VM_TIMEOUT=$((secs + 1200)) \
	nice -n 19 scripts/vm/run.sh "$cache" "$kver" fuzz > "$out/run.log" 2>&1 || rc=$?
cp "$out/vm/guest.log" "$out/guest.log" 2>/dev/null || true
grep -h '^WEAVE-FUZZ' "$out/guest.log" || true
[ "$rc" -eq 0 ] || echo "syz-fuzzcover: the fuzz run failed ($rc): see $out/run.log"
sed -n 's/^WEAVE-KCOV: //p' "$out/guest.log" > "$out/fuzz.pcs"
text=$(sed -n 's/^WEAVE-KCOV-TEXT: //p' "$out/guest.log")
[ -n "$text" ] || { echo "syz-fuzzcover: the guest printed no .text address" >&2; exit 1; }

# The campaign's weave.ko .text address, from syz-manager's /modules.
syztext=$(python3 -c '
import json, sys
mods = json.load(open(sys.argv[1]))
print(next(hex(m["Addr"]) for m in mods if m["Name"] == "weave"))' "$camp/cover/modules")
scripts/kcov-lines.py "$ko" "syzkaller=$camp/cover/rawcover@$syztext" \
	"fuzz_suites=$out/fuzz.pcs@$text" --unreached | tee "$out/compare.txt"
