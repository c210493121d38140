#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# DKMS from the source tree: `dkms add` of a copy of the tree, then `dkms
# build` against the headers of each stock test kernel that set-up unpacked
# into the cache, in a DKMS tree, source tree and install tree of the
# test's own (and a signing key of its own), so that nothing of the host's
# /var/lib/dkms, /usr/src, /lib/modules or /boot changes; each build must
# leave a weave.ko whose vermagic names its kernel.  dkms.conf's version
# must be libweave's.  Prints TAP.
#
# Usage: tests/build/dkms.sh CACHE_DIR BUILD_DIR
set -u
. "$(dirname "$0")/tap.sh"
cache=${1:?usage: dkms.sh CACHE_DIR BUILD_DIR}
build=${2:?usage: dkms.sh CACHE_DIR BUILD_DIR}
out=$(pwd)/$build/dkms-test
log=$out.log
tap_log=$log
tap_tail=30
hdr=$(cd "$cache/headers/usr/src" 2>/dev/null && pwd)
kernels=$(sed -n 's/^K61=//p; s/^K612=//p' "$cache/kernels.mk" 2>/dev/null)

tap_plan $((4 + 2 * $(echo "$kernels" | wc -w)))

# What of the host's a DKMS run could change.
host_state() {
	for d in /boot /var/lib/dkms /usr/src /lib/modules; do
		[ -d "$d" ] && find "$d" -maxdepth 2 -printf '%p %s %T@\n'
	done | sort
}
mkdir -p "$(dirname "$out")"
host_state > "$out.host-before"

version=$(sed -n 's/^#define WEAVE_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*//p' \
	libshim/weave.h | paste -sd.)
conf_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
echo "weave.h $version, dkms.conf $conf_version" > "$log"
[ -n "$version" ] && [ "$version" = "$conf_version" ]
tap_result $? "dkms.conf's PACKAGE_VERSION is libweave's version, $version"

rm -rf "$out"
mkdir -p "$out/tree" "$out/src" "$out/dkms" "$out/install"
# The source tree as a user has it, without what the build and set-up made.
tar -c --exclude=./build --exclude=./.cache --exclude=./.git . |
	tar -x -C "$out/tree"
# The private trees, and a signing key of the test's (DKMS would make one
# in /var/lib/dkms if the host has the kernel's sign-file).
export mok_signing_key="$out/mok.key" mok_certificate="$out/mok.pub"
trees="--dkmstree $out/dkms --sourcetree $out/src --installtree $out/install"

# shellcheck disable=SC2086
dkms add "$out/tree" $trees > "$log" 2>&1 &&
	[ -f "$out/src/weave-$version/dkms.conf" ] &&
	[ -L "$out/dkms/weave/$version/source" ]
tap_result $? "dkms add of the source tree, into a DKMS tree of the test's"

for k in $kernels; do
	# shellcheck disable=SC2086
	timeout 900 dkms build -m weave -v "$version" -k "$k" \
		--kernelsourcedir "$hdr/linux-headers-$k" $trees > "$log" 2>&1
	st=$?
	cat "$out/dkms/weave/$version/build/make.log" >> "$log" 2>/dev/null
	tap_result $st "dkms build against the headers of $k"

	ko=$(find "$out/dkms/weave/$version/$k" -name 'weave.ko*' 2>/dev/null |
		head -n 1)
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null)
	echo "module: $ko; vermagic: $magic" > "$log"
	[ -n "$ko" ] && [ "${magic%% *}" = "$k" ]
	tap_result $? "dkms made a weave.ko for $k, its vermagic $k"
done

# shellcheck disable=SC2086
dkms remove -m weave -v "$version" --all $trees > "$log" 2>&1 &&
	[ ! -e "$out/dkms/weave/$version" ]
tap_result $? "dkms remove takes it out of the test's DKMS tree"

host_state > "$out.host-after"
diff "$out.host-before" "$out.host-after" > "$log" 2>&1
tap_result $? "nothing changed in the host's /boot, /var/lib/dkms, /usr/src or /lib/modules"
