#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds weave.ko against the kernel headers in KDIR, in a build folder of
# its own so that several kernels can be built side by side.  Only changed
# sources are copied, so kbuild rebuilds only what changed.
#
# Usage: scripts/kbuild.sh KDIR OUTDIR [extra kbuild arguments]
set -eu
kdir=$1
out=$2
shift 2

mkdir -p "$out/kmod" "$out/uapi"
cp -pu Kbuild "$out/"
cp -pu kmod/*.c kmod/*.h "$out/kmod/"
cp -pu uapi/*.h "$out/uapi/"
# Drop sources that were deleted from the tree.
for f in "$out"/kmod/*.[ch] "$out"/uapi/*.h; do
	case $f in *weave_probe.h) continue;; esac
	[ -e "${f#"$out"/}" ] || rm -f "$f"
done
if [ -x scripts/kernel-probe.sh ]; then
	scripts/kernel-probe.sh "$kdir" > "$out/kmod/weave_probe.h.tmp"
	if cmp -s "$out/kmod/weave_probe.h.tmp" "$out/kmod/weave_probe.h"; then
		rm "$out/kmod/weave_probe.h.tmp"
	else
		mv "$out/kmod/weave_probe.h.tmp" "$out/kmod/weave_probe.h"
	fi
fi
make -s -C "$kdir" M="$(cd "$out" && pwd)" W=1 "$@" modules
