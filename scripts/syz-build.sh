#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds syzkaller with weave's descriptions: copies tools/syz/dev_weave.txt
# and its const file into SYZKALLER_DIR/sys/linux, and the seed programs
# tools/syz/seeds/* into SYZKALLER_DIR/sys/linux/test (syz-manager runs
# the programs there first on every start), regenerates syzkaller's
# tables from every description (make descriptions) and builds the
# manager, the executor and the tools `make syz` uses (syz-execprog,
# syz-prog2c, syz-cover, syz-symbolize), all offline: the tree must vendor
# its modules (syzkaller of January 2025, before 7b4377ad9; Go 1.22) and
# name its revision, which scripts/syz-tree.sh checks first.
#
# Usage: scripts/syz-build.sh SYZKALLER_DIR
set -eu
syz=$(readlink -f "${1:?usage: syz-build.sh SYZKALLER_DIR}")
top=$(cd "$(dirname "$0")/.." && pwd)
env=$("$top/scripts/syz-tree.sh" --env "$syz")
eval "$env"
go=$SYZ_GO
rev=$SYZ_REV

for f in dev_weave.txt dev_weave.txt.const; do
	cmp -s "$top/tools/syz/$f" "$syz/sys/linux/$f" ||
		cp "$top/tools/syz/$f" "$syz/sys/linux/$f"
done

rm -f "$syz"/sys/linux/test/weave_*
cp "$top"/tools/syz/seeds/weave_* "$syz/sys/linux/test/"

PATH=$(dirname "$go"):$PATH
export PATH GOFLAGS=-mod=vendor GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off
# The revision goes to syzkaller's Makefile, which would take it from
# git (and git complains where the tree has no .git, so the output goes
# to a log): without it the build is "unknown", which syz-manager
# refuses to run.
log=$syz/weave-build.log
echo "syz-build: building syzkaller in $syz (a few minutes; log $log)"
{
	make -C "$syz" REV="$rev" descriptions &&
	make -C "$syz" REV="$rev" manager execprog executor prog2c cover symbolize
} > "$log" 2>&1 || { grep -v '^    \|^$' "$log" | tail -n 30 >&2; exit 1; }
for b in syz-manager syz-prog2c syz-cover syz-symbolize \
	linux_amd64/syz-execprog linux_amd64/syz-executor; do
	[ -x "$syz/bin/$b" ] || { echo "syz-build: $syz/bin/$b was not built" >&2; exit 1; }
done
# A seed the descriptions no longer parse would be dropped with one line
# in the manager's log: parse each as syz-manager does (not strictly:
# fields left at their defaults may be left out).
for f in "$top"/tools/syz/seeds/weave_*; do
	"$syz/bin/syz-prog2c" -prog "$f" > /dev/null ||
		{ echo "syz-build: seed $f does not parse" >&2; exit 1; }
done
echo "syz-build: syzkaller built in $syz/bin with dev_weave.txt and its seeds"
