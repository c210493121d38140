#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# DKMS's POST_ADD (dkms.conf): leaves only sources in DKMS's copy of the tree.
# `dkms add .` copies the tree into /usr/src/weave-VERSION as it is (DKMS
# 3.0 copies what `*` matches, later ones the hidden files too), and DKMS
# then runs this script there, in /var/lib/dkms/weave/VERSION/source, its
# link to the copy.  It removes what `make` and its set-up made: build/ and
# .cache (a link is removed, never what it points to).  Anywhere else it
# refuses and removes nothing, so that it cannot empty a working tree.
set -eu
case $PWD in
*/weave/*/source) ;;
*)
	echo "dkms-post-add.sh: $PWD is no DKMS source link; nothing removed" >&2
	exit 1
	;;
esac
[ -f dkms.conf ] || {
	echo "dkms-post-add.sh: no dkms.conf in $PWD; nothing removed" >&2
	exit 1
}
rm -rf ./build ./.cache
