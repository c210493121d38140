#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the tests of weave-engine's executor (build/engine/tests/*) on the
# host's Vulkan device, each bounded by a timeout, their TAP into RESULTS_DIR
# (default BUILD_DIR/results); prints each one's last line.  Exits non-zero
# if one failed.
#
# Usage: scripts/engine-check.sh BUILD_DIR [RESULTS_DIR]
set -u
build=${1:?usage: engine-check.sh BUILD_DIR [RESULTS_DIR]}
res=${2:-$build/results}
mkdir -p "$res"
rc=0
for t in "$build"/engine/tests/*_test; do
	[ -x "$t" ] || continue
	echo "== engine: $t"
	out=$res/engine-$(basename "$t").tap
	# Every test has its own timeout in the harness; this bounds the lot.
	timeout -k 10 900 "$t" > "$out" 2>&1 || rc=1
	tail -n 1 "$out"
done
exit $rc
