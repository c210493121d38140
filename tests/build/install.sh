#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# `make install` into a scratch DESTDIR, with a PREFIX and LIBDIR of its
# own; the examples built from their installed sources with nothing but
# `pkg-config --cflags --libs weave`; the tools and the manual pages
# installed and readable with man -l; then `make uninstall`.  The DESTDIR
# is the sysroot pkg-config sees; libdrm, which weave.pc requires, is
# linked into it from the host.  Prints TAP.
#
# Usage: tests/build/install.sh BUILD_DIR
set -u
. "$(dirname "$0")/tap.sh"
build=${1:?usage: install.sh BUILD_DIR}
out=$(pwd)/$build/install-test
root=$out/root
prefix=/opt/weave
libdir=$prefix/lib64
cc=${CC:-cc}
log=$out.log
tap_log=$log
tap_tail=30
vars="DESTDIR=$root PREFIX=$prefix LIBDIR=$libdir"

tap_plan 8

rm -rf "$out"
mkdir -p "$out"
make --no-print-directory install $vars > "$log" 2>&1
tap_result $? "make install $vars"

version=$(sed -n 's/^Version: //p' "$build/lib/weave.pc")
l=$root$libdir
(
	[ -f "$l/libweave.so.$version" ] && [ ! -L "$l/libweave.so.$version" ] &&
	[ "$(readlink "$l/libweave.so.1")" = "libweave.so.$version" ] &&
	[ "$(readlink "$l/libweave.so")" = libweave.so.1 ] &&
	[ -f "$l/libweave.a" ] &&
	[ -f "$root$prefix/include/weave.h" ] &&
	[ -f "$root$prefix/include/weave_drm.h" ] &&
	[ -f "$l/pkgconfig/weave.pc" ] &&
	"$root$prefix/bin/weave-info" --help | grep -q '^usage: weave-info' &&
	"$root$prefix/bin/weave-trace" --help | grep -q '^usage: weave-trace' &&
	for e in examples/*.c; do
		[ -f "$root$prefix/share/doc/weave/examples/${e#examples/}" ] || exit 1
	done
) > "$log" 2>&1
st=$?
find "$root" >> "$log"
tap_result $st "the library $version, its links, libweave.a, the headers, weave.pc, the examples, weave-info and weave-trace are installed"

# A page for every function of weave.h, weave(7) and weave-trace(1), under
# MANDIR.
m=$root$prefix/share/man
(
	[ -f "$m/man7/weave.7" ] && [ -f "$m/man1/weave-trace.1" ] &&
	sed -n 's/^[^#].*\b\(weave_[a-z0-9_]*\)(.*/\1/p' libshim/weave.h |
		sort -u > "$out/functions" &&
	[ "$(wc -l < "$out/functions")" -gt 30 ] &&
	while read -r f; do
		[ -f "$m/man3/$f.3" ] || { echo "no page for $f"; exit 1; }
	done < "$out/functions"
) > "$log" 2>&1
tap_result $? "the manual pages are installed: weave(7), weave-trace(1) and one per function of weave.h"

# man -l renders an installed page: its name, synopsis and cross-references.
MANWIDTH=80 man -l "$m/man3/weave_enqueue.3" > "$out/weave_enqueue.txt" 2> "$log" &&
	grep -q '^NAME' "$out/weave_enqueue.txt" &&
	grep -q 'int weave_enqueue(int fd,' "$out/weave_enqueue.txt" &&
	grep -q 'drm_weave_task(3)' "$out/weave_enqueue.txt" &&
	! grep -q '()(' "$out/weave_enqueue.txt" &&
	MANWIDTH=80 man -l "$m/man7/weave.7" | grep -q 'SCHEDULING MODEL' &&
	MANWIDTH=80 man -l "$m/man1/weave-trace.1" | grep -q -- '--svg FILE'
st=$?
cat "$out/weave_enqueue.txt" >> "$log"
tap_result $st "man -l renders weave_enqueue(3), weave(7) and weave-trace(1)"

pc() {
	PKG_CONFIG_PATH=$l/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
		pkg-config "$@" weave
}
# (Without the sysroot, which pkg-config prepends to the paths.)
for v in prefix libdir includedir; do
	PKG_CONFIG_PATH=$l/pkgconfig pkg-config --variable=$v weave
done > "$log" 2>&1
pc --modversion >> "$log" 2>&1
printf '%s\n' "$prefix" "$libdir" "$prefix/include" "$version" |
	diff - "$log" > "$log.diff" 2>&1
st=$?
cat "$log.diff" >> "$log"
tap_result $st "weave.pc names the prefix, libdir, includedir and version installed"

# libdrm, from the host, where the sysroot's pkg-config looks for it.
for d in "$(pkg-config --variable=includedir libdrm)/libdrm" \
	"$(pkg-config --variable=libdir libdrm)"; do
	mkdir -p "$root$(dirname "$d")"
	[ -e "$root$d" ] || ln -s "$d" "$root$d"
done
# Built in a folder of their own: nothing of the weave tree is on the paths.
mkdir -p "$out/work"
st=0
: > "$log"
for e in "$root$prefix"/share/doc/weave/examples/*.c; do
	x=$out/work/$(basename "$e" .c)
	(cd "$out/work" && $cc -Wall -Werror -o "$x" "$e" $(pc --cflags --libs)) \
		>> "$log" 2>&1 &&
		readelf -d "$x" | grep -q 'NEEDED.*\[libweave\.so\.1\]' || st=1
done
tap_result $st "the installed examples build with pkg-config --cflags --libs weave alone"

cat > "$out/work/version.c" <<'END'
#include <stdio.h>
#include <weave.h>

int main(void)
{
	unsigned int v = weave_version();

	printf("library %06x, header %d.%d.%d\n", v, WEAVE_VERSION_MAJOR,
	       WEAVE_VERSION_MINOR, WEAVE_VERSION_PATCH);
	return v != WEAVE_VERSION(WEAVE_VERSION_MAJOR, WEAVE_VERSION_MINOR,
				  WEAVE_VERSION_PATCH);
}
END
(cd "$out/work" && $cc -Wall -Werror -o version version.c $(pc --cflags --libs) &&
	LD_LIBRARY_PATH=$l ./version) > "$log" 2>&1
tap_result $? "a program built against the installed header runs with the installed library, same version"

make --no-print-directory uninstall $vars > "$log" 2>&1 &&
	[ -z "$(find "$root$prefix" ! -type d)" ]
st=$?
find "$root$prefix" ! -type d >> "$log"
tap_result $st "make uninstall $vars removes every file"
