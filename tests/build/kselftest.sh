#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The weave suites built and run the kernel's way: selftests/weave dropped
# into a scratch kernel tree's tools/testing/selftests, built and installed
# by kselftest's own Makefile and lib.mk against an installed libweave
# (pkg-config), listed and run by run_kselftest.sh.  Prints TAP.
#
# lib.mk, the selftests Makefile and run_kselftest.sh come from Debian's
# linux-source-6.1 (which scripts/setup.sh installs), unpacked once into
# BUILD_DIR/ksft-src; the harness headers from CACHE_DIR/ksrc.
#
# Usage: tests/build/kselftest.sh CACHE_DIR BUILD_DIR
set -u
. "$(dirname "$0")/tap.sh"
cache=${1:?usage: kselftest.sh CACHE_DIR BUILD_DIR}
build=${2:?usage: kselftest.sh CACHE_DIR BUILD_DIR}
tarball=${WEAVE_KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
src=$build/ksft-src
out=$build/ksft-tree
tree=$out/linux/tools/testing/selftests
log=$out.log
tap_log=$log
tap_tail=30

tap_plan 5

rm -rf "$out"
: > "$log"
if [ ! -f "$src/.done" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xJf "$tarball" --wildcards \
		'*/tools/testing/selftests/lib.mk' \
		'*/tools/testing/selftests/Makefile' \
		'*/tools/testing/selftests/run_kselftest.sh' \
		'*/tools/testing/selftests/kselftest/module.sh' \
		'*/scripts/subarch.include' > "$log" 2>&1 &&
		touch "$src/.done"
fi
mkdir -p "$tree/kselftest" "$out/linux/scripts" &&
	cp "$src/scripts/subarch.include" "$out/linux/scripts/" &&
	cp "$src/tools/testing/selftests/lib.mk" \
		"$src/tools/testing/selftests/Makefile" \
		"$src/tools/testing/selftests/run_kselftest.sh" \
		"$cache/ksrc/tools/testing/selftests/kselftest.h" \
		"$cache/ksrc/tools/testing/selftests/kselftest_harness.h" "$tree/" &&
	cp "$src/tools/testing/selftests/kselftest/module.sh" \
		"$cache/ksrc/tools/testing/selftests/kselftest/runner.sh" \
		"$cache/ksrc/tools/testing/selftests/kselftest/prefix.pl" \
		"$tree/kselftest/" &&
	cp -r selftests/weave "$tree/weave" >> "$log" 2>&1
tap_result $? "a kernel tree's tools/testing/selftests, with selftests/weave in it"

# An installed libweave, found the way the Makefile says: pkg-config.
prefix=$(pwd)/$out/prefix
make --no-print-directory install PREFIX="$prefix" >> "$log" 2>&1 &&
	PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
	make --no-print-directory -j2 -C "$tree" TARGETS=weave \
		USERCFLAGS="-O0 -Werror" >> "$log" 2>&1
tap_result $? "make -C tools/testing/selftests TARGETS=weave builds them with lib.mk"

missing=
for c in selftests/weave/*.c; do
	t=$(basename "$c" .c)
	[ -x "$tree/weave/$t" ] || missing="$missing $t"
done
echo "not built:$missing" > "$log"
[ -z "$missing" ]
tap_result $? "every suite is built"

# The list kselftest's install writes (without its rsync of the files):
# run_kselftest.sh then runs the suites in place.  They are those the VM
# lane runs by default.
make -s --no-print-directory -C "$tree/weave" COLLECTION=weave emit_tests \
	> "$tree/kselftest-list.txt" 2> "$log" &&
	"$tree/run_kselftest.sh" -l | sort > "$out/listed" 2>> "$log"
for t in $(cat "$build/selftests/weave/tests"); do
	echo "weave:${t#./}"
done | sort > "$out/lane"
diff -u "$out/lane" "$out/listed" >> "$log" 2>&1
tap_result $? "run_kselftest.sh lists the suites of the VM lane's default list"

# No device here: the suite fails, but it must have run, against the
# installed libweave.so.1.  (The runner reopens /dev/stdout: a pipe keeps
# its lines in order.)
LD_LIBRARY_PATH=$prefix/lib timeout 120 \
	"$tree/run_kselftest.sh" -t weave:query 2>&1 | cat > "$log"
grep -q '^# selftests: weave: query$' "$log" &&
	grep -Eq '^# # Starting [0-9]+ tests from' "$log" &&
	grep -Eq '^# (ok|not ok) 1 query\.' "$log"
tap_result $? "run_kselftest.sh -t weave:query runs the suite"
