#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The static checks, as TAP: checkpatch --strict and kernel-doc on every
# module and uAPI file, tools/weave-trace on its fixtures (tests/trace/),
# the rendered documentation, the uAPI and library
# headers compiled standalone, libweave's exported ABI against its header
# and version script, the manual pages (mandoc -Tlint, one per function),
# the layering of kmod/ (scripts/layers.py), the KCOV coverage measure
# (scripts/kcov-lines.py --self-test), the syzkaller descriptions
# (scripts/syz-consts.py, scripts/syz-check.sh), the checks of make syz's
# tree and campaign (scripts/syz-tree.sh and scripts/syz-fuzzed.py
# --self-test), the Rust crates (rustfmt, clippy, rustdoc), and for each
# kernel a full
# W=1 build with sparse (C=2) that must print nothing.
#
# Usage: scripts/lint.sh CACHE_DIR RESULTS_DIR KVER...
set -u
. "$(dirname "$0")/../tests/build/tap.sh"
cache=$1
res=$2
shift 2
ks=$cache/ksrc/scripts
mkdir -p "$res"
tap=$res/lint.tap
log=$res/lint.log
: > "$log"

# result NAME STATUS OUTPUT_FILE: a test point in the body of the TAP file,
# whose plan comes last; OUTPUT_FILE, its diagnostics, goes to the log too.
result() {
	tap_log=$3
	tap_result "$2" "$1" >> "$tap.body"
	{ echo "== $1"; cat "$3"; } >> "$log"
}

rm -f "$tap.body"
tmp=$(mktemp)
for f in kmod/*.[ch] uapi/*.h; do
	perl "$ks/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$f" > "$tmp" 2>&1
	result "checkpatch --strict $f" $? "$tmp"
	perl "$ks/kernel-doc" -none "$f" > "$tmp" 2>&1
	[ -s "$tmp" ]; result "kernel-doc $f" $((! $?)) "$tmp"
done

mkdir -p build/lint
scripts/layers.py --dot build/lint/kmod-layers.dot > "$tmp" 2>&1
result "kmod/ is a stack: the layer table of Documentation/weave.rst holds" $? "$tmp"
scripts/layers.py --self-test > "$tmp" 2>&1
result "the layer check names a planted upward call and an overlong function" $? "$tmp"
timeout 300 scripts/kcov-lines.py --self-test > "$tmp" 2>&1
result "kcov-lines.py maps planted KCOV PCs of both conventions to their functions" $? "$tmp"
scripts/syz-tree.sh --self-test > "$tmp" 2>&1
result "the syzkaller tree check fails a tree without .commit, without vendor/ or without Go 1.22, and passes a good one" $? "$tmp"
scripts/syz-fuzzed.py --self-test > "$tmp" 2>&1
result "make syz fails a campaign whose manager stopped (FATAL, early), made no executions or fetched no coverage of weave.ko, and passes one that fuzzed" $? "$tmp"

# The syzkaller descriptions of the uAPI (tools/syz): their const file is
# what the header makes now, and they name every constant of it; where a
# syzkaller tree is (SYZKALLER, or CACHE/syzkaller), syzkaller's compiler
# takes them, and the check names errors planted in them.  Without a tree
# (or Go), those two are not run and make no test point, as a skipped
# point counts as failed (scripts/tally.py); the log says why.
scripts/syz-consts.py --check tools/syz/dev_weave.txt.const > "$tmp" 2>&1
result "tools/syz/dev_weave.txt.const is generated from uapi/weave_drm.h, whose every constant the descriptions name" $? "$tmp"
syz=${SYZKALLER:-$cache/syzkaller}
for mode in "" --self-test; do
	case $mode in
	"") what="syzkaller's compiler takes tools/syz/dev_weave.txt" ;;
	*) what="the syzkaller check names planted errors in the descriptions" ;;
	esac
	if [ ! -d "$syz" ]; then
		echo "== $what: not run, no syzkaller tree at $syz" >> "$log"
		continue
	fi
	timeout 1500 scripts/syz-check.sh $mode "$syz" build/syz > "$tmp" 2>&1
	st=$?
	if [ $st -eq 77 ]; then
		{ echo "== $what: not run, no Go toolchain"; cat "$tmp"; } >> "$log"
	else
		result "$what" $st "$tmp"
	fi
done

mkdir -p build/doc
scripts/render-doc.py "$ks/kernel-doc" Documentation/weave.rst \
	build/doc/weave.rst > "$tmp" 2>&1
result "Documentation/weave.rst renders with every kernel-doc section" $? "$tmp"

# The manual pages, made afresh from the headers' kernel-doc: each one
# clean under mandoc -Tlint, and one for every function of weave.h.
rm -rf build/lint/man
scripts/man.py "$ks/kernel-doc" build/lint/man "$(sed -n 's/^Version: //p' \
	build/lib/weave.pc)" > "$tmp" 2>&1
result "the manual pages build from libshim/weave.h, uapi/weave_drm.h and man/" $? "$tmp"
scripts/man-tool.py tools/weave-trace build/lint/man "$(sed -n \
	's/^Version: //p' build/lib/weave.pc)" > "$tmp" 2>&1
result "weave-trace(1) builds from the tool's command line" $? "$tmp"
for kind in man1 man3 man7; do
	mandoc -Tlint build/lint/man/$kind/* > "$tmp" 2>&1 && [ ! -s "$tmp" ]
	result "mandoc -Tlint: every $kind page is clean" $? "$tmp"
done
scripts/man.py --check build/lint/man > "$tmp" 2>&1
result "every function of libshim/weave.h has its section 3 page" $? "$tmp"

# tools/weave-trace on its fixtures (tests/trace/check.py prints TAP, which
# goes to the log): one point each.
tests/trace/check.py > "$tmp.trace" 2>&1
echo "exit status $?" >> "$tmp.trace"
sed -n -e 's/^ok [0-9]* /0 /p' -e 's/^not ok [0-9]* /1 /p' "$tmp.trace" \
	> "$tmp.points"
while read -r st name; do
	result "$name" "$st" "$tmp.trace"
done < "$tmp.points"
grep -q '^exit status 0$' "$tmp.trace" && [ -s "$tmp.points" ]
result "tests/trace/check.py runs to the end, every point passed" $? "$tmp.trace"
rm -f "$tmp.trace" "$tmp.points"

gcc -fsyntax-only -Wall -Wextra -Werror $(pkg-config --cflags libdrm) \
	-x c uapi/weave_drm.h > "$tmp" 2>&1
result "uapi/weave_drm.h compiles standalone in user space" $? "$tmp"

for lang in c c++; do
	gcc -fsyntax-only -Wall -Wextra -Werror -Iuapi \
		$(pkg-config --cflags libdrm) -x "$lang" libshim/weave.h > "$tmp" 2>&1
	result "libshim/weave.h compiles standalone as $lang" $? "$tmp"
done

scripts/abi-check.py libshim/weave.h libshim/libweave.map \
	build/lib/libweave.so > "$tmp" 2>&1
result "libweave.so exports exactly weave.h's functions, all in libweave.map" $? "$tmp"

# The Rust crates (rust/), with Debian's tools: rustfmt's check, clippy
# with every warning an error, and rustdoc with none.  A tool Debian's
# packages did not install (rustfmt-web, rust-web-clippy) makes no point;
# the log says so.
if [ -x /usr/bin/rustfmt ] && [ -x /usr/bin/cargo-fmt ]; then
	scripts/cargo.sh fmt --all -- --check > "$tmp" 2>&1
	result "rust/: cargo fmt --check finds nothing to change" $? "$tmp"
else
	echo "== rust/: cargo fmt not run, no /usr/bin/rustfmt (rustfmt-web)" >> "$log"
fi
if [ -x /usr/bin/cargo-clippy ] && [ -x /usr/bin/clippy-driver ]; then
	scripts/cargo.sh clippy --workspace --all-targets -- -D warnings \
		> "$tmp" 2>&1
	result "rust/: cargo clippy -D warnings is silent" $? "$tmp"
else
	echo "== rust/: clippy not run, no /usr/bin/cargo-clippy (rust-web-clippy)" >> "$log"
fi
RUSTDOCFLAGS="-D warnings" scripts/cargo.sh doc --workspace --no-deps \
	> "$tmp" 2>&1
result "rust/: cargo doc builds with no warning" $? "$tmp"

for k in "$@"; do
	dir=build/lint/$k
	rm -rf "$dir"
	scripts/kbuild.sh "$cache/headers/usr/src/linux-headers-$k" "$dir" C=2 > "$tmp" 2>&1
	st=$?
	grep -E 'warning|error|sparse' "$tmp" > "$tmp.w"
	[ $st -eq 0 ] && [ ! -s "$tmp.w" ]
	result "W=1 and sparse build against $k is silent" $? "$tmp"
	rm -f "$tmp.w"
done
rm -f "$tmp"

{ tap_plan "$tap_n"; cat "$tap.body"; } > "$tap"
rm -f "$tap.body"
! grep -q '^not ok' "$tap"
