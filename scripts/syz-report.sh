#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Prints what a syzkaller campaign of `make syz` found: its executions,
# the coverage of weave.ko's functions and lines of kmod/ (syz-manager's
# raw PCs, measured by scripts/kcov-lines.py), the functions it never
# reached, and each crash with its report and C reproducer; then whether
# it fuzzed for the HOURS asked (scripts/syz-fuzzed.py).  Only then does
# it print the count of crashes, "crashes: N", and exit 0: a campaign
# that did not fuzz ends with one line saying why, and exits 1.
#
# --fetch saves, from the running manager, what the report needs once it
# has stopped (OUT/cover/): its metrics, its coverage by function and by
# file, and the raw PCs with the modules' addresses that
# scripts/syz-fuzzcover.sh compares with weave's own fuzzer.
#
# Usage: scripts/syz-report.sh PORT OUT_DIR HOURS
#        scripts/syz-report.sh --fetch PORT OUT_DIR
set -eu
fetch=0
if [ "${1:-}" = --fetch ]; then
	fetch=1
	shift
fi
[ $# -eq $((fetch ? 2 : 3)) ] ||
	{ echo "usage: $0 PORT OUT_DIR HOURS, or --fetch PORT OUT_DIR" >&2; exit 1; }
url=http://127.0.0.1:$1
out=$2
hours=${3:-}
cover=$out/cover

if [ "$fetch" = 1 ]; then
	mkdir -p "$cover"
	# The coverage report symbolises every PC once: minutes under load.
	for page in metrics 'modules?raw=1' rawcover funccover filecover; do
		file=${page%%\?*}
		curl -sf --max-time 1800 -o "$cover/$file.tmp" "$url/$page" &&
			mv "$cover/$file.tmp" "$cover/$file" ||
			echo "syz-report: cannot fetch $url/$page" >&2
	done
	exit 0
fi

secs=$(cat "$out/seconds" 2>/dev/null || echo 0)
echo "== syzkaller campaign on weave's node: $((secs / 60)) min"
metric() {
	awk -v m="$1" '$1 == m { printf "%d", $2; found = 1 }
		END { if (!found) printf "?" }' "$cover/metrics" 2>/dev/null || echo "?"
}
echo "executions:     $(metric syz_exec_total)"
echo "corpus:         $(metric syz_corpus_cover) PCs of coverage (whole kernel)"
echo "crashes seen:   $(metric syz_crash_total)"

# Coverage of kmod/: syzkaller's raw PCs (/rawcover) measured by
# scripts/kcov-lines.py against the weave.ko the campaign fuzzed
# (OUT/ko/weave.ko; for an older campaign, the file /modules names), at
# the .text address /modules gives.  syz-manager's own /funccover
# attributes the .cold parts of weave.ko's functions to the wrong
# functions (it places every section's code at .text's address).
if [ -s "$cover/rawcover" ] && [ -s "$cover/modules" ]; then
	set -- $(python3 -c '
import json, sys
m = next(m for m in json.load(open(sys.argv[1])) if m["Name"] == "weave")
print(hex(m["Addr"]), m["Path"])' "$cover/modules")
	text=$1 ko=$2
	[ ! -f "$out/ko/weave.ko" ] || ko=$out/ko/weave.ko
	if [ -n "$(find "$ko" -newer "$out/manager.cfg" 2>/dev/null)" ]; then
		echo "syz-report: $ko was rebuilt after the campaign began:" \
			"its coverage cannot be measured" >&2
	else
		"$(dirname "$0")/kcov-lines.py" --unreached \
			--set syzkaller "$ko" "$cover/rawcover" call "$text" |
			sed 's/^syzkaller: //; s/^functions none of them reaches/functions never reached/'
	fi
else
	echo "weave.ko coverage: none fetched (see $out/manager.log)"
fi

crashes=$out/workdir/crashes
n=0
for d in "$crashes"/*/; do
	[ -f "$d/description" ] || continue
	n=$((n + 1))
	echo
	echo "== crash $n: $(cat "$d/description")"
	if [ -f "$d/report0" ]; then
		sed -n '1,60p' "$d/report0"
	else
		echo "(no report; the log is $d/log0)"
	fi
	if [ -f "$d/repro.cprog" ]; then
		echo "C reproducer: $d/repro.cprog"
	elif [ -f "$d/repro.prog" ]; then
		echo "syzkaller reproducer (no C one): $d/repro.prog"
	else
		echo "no reproducer"
	fi
done
echo
if "$(dirname "$0")/syz-fuzzed.py" "$out" "$hours"; then
	echo "crashes: $n"
else
	[ "$n" -eq 0 ] || echo "crashes saved before it stopped: $n"
	exit 1
fi
