#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Compiles tools/syz/dev_weave.txt with syzkaller's own compiler: copies
# the parts of a syzkaller tree that the compiler needs into a scratch
# directory (once per tree, again when the tree changes), puts the
# descriptions, their const file and tools/syz/check.go into that copy,
# and runs the check there (see check.go for what it rejects).  The tree
# must vendor its modules (syzkaller of January 2025, before 7b4377ad9)
# and name its revision, as scripts/syz-tree.sh checks: nothing is
# downloaded.
#
# --self-test plants four errors, one at a time, in a copy of the
# descriptions (a syntax error, an unknown type, a missing const, a
# struct that lost a field) and fails unless the check rejects each one
# and names the file or the struct.
#
# Usage: scripts/syz-check.sh [--self-test] SYZKALLER_DIR SCRATCH_DIR
# Exit status: 0 passed, 1 failed, 77 cannot run here (no Go toolchain).
set -u
self_test=
if [ "${1:-}" = --self-test ]; then
	self_test=1
	shift
fi
[ $# -eq 2 ] || { echo "usage: $0 [--self-test] SYZKALLER_DIR SCRATCH_DIR" >&2; exit 1; }
syz=$(readlink -f "$1")
scratch=$2
top=$(cd "$(dirname "$0")/.." && pwd)
txt=$top/tools/syz/dev_weave.txt
# The tree and the toolchain, checked by scripts/syz-tree.sh (77: no Go).
env=$("$top/scripts/syz-tree.sh" --env "$syz") || exit $?
eval "$env"
go=$SYZ_GO

# The scratch copy: go.mod, vendor/, pkg/, prog/ and sys/ are what the
# compiler and the check build from and read.
mkdir -p "$scratch"
scratch=$(readlink -f "$scratch")
tree=$scratch/tree
stamp=$tree/.weave-source
if [ "$(cat "$stamp" 2>/dev/null)" != "$syz" ] ||
   [ -n "$(find "$syz/go.mod" "$syz/vendor/modules.txt" "$syz/pkg" \
	"$syz/prog" "$syz/sys" -newer "$stamp" 2>/dev/null | head -n 1)" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	for p in go.mod go.sum vendor pkg prog sys; do
		cp -a "$syz/$p" "$tree/" || exit 1
	done
	echo "$syz" > "$stamp"
fi
mkdir -p "$tree/tools/syz-weave-check"
cp "$top/tools/syz/check.go" "$tree/tools/syz-weave-check/main.go"
cp "$txt.const" "$tree/sys/linux/dev_weave.txt.const"

export GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off
export GOCACHE="$scratch/gocache"
(cd "$tree" && "$go" build -o "$scratch/syz-weave-check" ./tools/syz-weave-check) ||
	{ echo "building the check in $tree failed"; exit 1; }

# check FILE: compiles the tree with FILE as dev_weave.txt.
check() {
	cp "$1" "$tree/sys/linux/dev_weave.txt"
	"$scratch/syz-weave-check" -src "$tree" -file dev_weave.txt
}

if [ -z "$self_test" ]; then
	check "$txt"
	exit $?
fi

# plant NAME EXPECT SED: the check must fail on the descriptions edited
# by SED, and say EXPECT.
fails=0
planted=$scratch/planted.txt
plant() {
	sed "$3" "$txt" > "$planted"
	if cmp -s "$txt" "$planted"; then
		echo "not planted: $1 (the sed script changed nothing)"
		fails=$((fails + 1))
		return
	fi
	out=$(check "$planted")
	st=$?
	if [ $st -ne 0 ] && echo "$out" | grep -q -- "$2"; then
		echo "caught: $1: $(echo "$out" | grep -m 1 -- "$2")"
	else
		echo "missed: $1 (status $st):"
		echo "$out"
		fails=$((fails + 1))
	fi
}
plant "a syntax error" "dev_weave.txt:" '$a\
drm_weave_bogus {'
plant "an unknown type" "dev_weave.txt:.*weave_no_such_type" \
	's/handle	weave_bo	(out)/handle	weave_no_such_type	(out)/'
plant "a missing const" "dev_weave.txt:.*DRM_IOCTL_WEAVE_WAITX" \
	's/const\[DRM_IOCTL_WEAVE_WAIT\]/const[DRM_IOCTL_WEAVE_WAITX]/'
plant "a struct short of a field" "drm_weave_enqueue is described with" \
	'/^drm_weave_enqueue {/,/^}/{/out_syncs/d}'
rm -f "$planted"
[ $fails -eq 0 ]
