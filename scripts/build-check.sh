#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The user-space build checks, as TAP files in BUILD_DIR/results: libweave's
# ABI against a uAPI that grew (tests/abi), `make install` and pkg-config,
# the kselftest suites built and run the kernel's way, which goals run
# scripts/setup.sh, that set-up installed no kernel, `dkms add` (sources
# only) and `dkms build` against both test kernels' headers, what `make
# demo` shows on the terminal (with a stand-in for the VM), and that
# README.md's program compiles and its index of Documentation/ holds
# (tests/build).
# Needs libweave built in BUILD_DIR/lib and the lane's suite list in
# BUILD_DIR/selftests; no VM.
#
# Usage: scripts/build-check.sh CACHE_DIR BUILD_DIR
set -u
cache=$1
build=$2
res=$build/results
mkdir -p "$res"
rc=0

# run NAME COMMAND...: NAME.tap, and one line of totals.
run() {
	name=$1
	shift
	"$@" > "$res/$name.tap" 2>&1
	grep -Eq '^not ok|^Bail out' "$res/$name.tap" && rc=1
	echo "$name: $(grep -c '^ok' "$res/$name.tap") of" \
		"$(sed -n 's/^1\.\.//p' "$res/$name.tap" | head -n 1) passed"
}

run abi tests/abi/run.sh "$build"
run install tests/build/install.sh "$build"
run kselftest-build tests/build/kselftest.sh "$cache" "$build"
run no-setup tests/build/no-setup.sh "$build"
run host-kernels tests/build/host-kernels.sh "$cache"
run dkms tests/build/dkms.sh "$cache" "$build"
run demo tests/build/demo.sh "$build"
run readme tests/build/readme.py "$build"
exit $rc
