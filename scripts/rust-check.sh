#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the Rust crates' host tests (cargo test: the unit tests and the
# documentation's examples, none of which needs a weave device) with
# Debian's toolchain, their results as TAP in RESULTS_DIR/rust.tap (default
# BUILD_DIR/results); a build that fails is one failed point.  Prints the
# total of its points.  Exits non-zero if a test failed.
#
# Usage: scripts/rust-check.sh BUILD_DIR [RESULTS_DIR]
set -u
build=${1:?usage: rust-check.sh BUILD_DIR [RESULTS_DIR]}
res=${2:-$build/results}
mkdir -p "$res"
out=$res/rust.tap
log=$res/rust.log
echo "== rust: cargo test (host)"
cargo="$(dirname "$0")/cargo.sh"
# The unit tests of both crates, then the safe crate's documentation
# examples (weave-sys's docs are the headers' kernel-doc, not Rust).
{
	BUILD_DIR=$build timeout -k 10 900 "$cargo" test --workspace --lib &&
	BUILD_DIR=$build timeout -k 10 900 "$cargo" test -p weave --doc
} > "$log" 2>&1
rc=$?
# libtest prints "test NAME ... ok" or "... FAILED"; an ignored test
# counts as failed (scripts/tally.py counts a skip so too).
awk -v rc=$rc '
	/^test .* \.\.\. (ok|FAILED|ignored)$/ {
		n++
		name = $0
		sub(/^test /, "", name)
		sub(/ \.\.\. [a-zA-Z]+$/, "", name)
		res[n] = ($NF == "ok" ? "ok " : "not ok ") n " rust " name
	}
	END {
		if (rc != 0 && !failed_seen())
			res[++n] = "not ok " n " rust: cargo test exited " rc
		print "TAP version 13"
		print "1.." n
		for (i = 1; i <= n; i++)
			print res[i]
	}
	function failed_seen(  i) {
		for (i = 1; i <= n; i++)
			if (res[i] ~ /^not ok/)
				return 1
		return 0
	}' "$log" > "$out"
python3 "$(dirname "$0")/tally.py" "$out" | tail -n 1
[ $rc -eq 0 ] || tail -n 30 "$log"
exit $rc
