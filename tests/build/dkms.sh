#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# DKMS from the source tree: `dkms add` of a copy of the tree, then `dkms
# build` against the headers of each stock test kernel that set-up unpacked
# into the cache, in a DKMS tree, source tree and install tree of the
# test's own (and a signing key of its own), so that nothing of the host's
# /var/lib/dkms, /usr/src, /lib/modules or /boot changes; each build must
# leave a weave.ko whose vermagic names its kernel.  dkms.conf's version
# must be libweave's.  The tree added has a build/ and a .cache, as a
# user's has after `make`: DKMS's copy must hold sources only (dkms.conf's
# POST_ADD, scripts/dkms-post-add.sh, which is also tried on a copy as
# later DKMS makes it, hidden files included, and where it must refuse).
# Prints TAP.
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

tap_plan $((7 + 2 * $(echo "$kernels" | wc -w)))

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
# The source tree as a user has it, with a build/ and a .cache of its own
# (small stand-ins for what the build and set-up make).
tar -c --exclude=./build --exclude=./.cache --exclude=./.git . |
	tar -x -C "$out/tree"
mkdir -p "$out/tree/build/kmod" "$out/tree/.cache/headers"
echo made > "$out/tree/build/kmod/weave.o"
echo cached > "$out/tree/.cache/headers/kernel"
# The private trees, and a signing key of the test's (DKMS would make one
# in /var/lib/dkms if the host has the kernel's sign-file).
export mok_signing_key="$out/mok.key" mok_certificate="$out/mok.pub"
trees="--dkmstree $out/dkms --sourcetree $out/src --installtree $out/install"

# shellcheck disable=SC2086
dkms add "$out/tree" $trees > "$log" 2>&1 &&
	[ -f "$out/src/weave-$version/dkms.conf" ] &&
	[ -L "$out/dkms/weave/$version/source" ]
tap_result $? "dkms add of the source tree, into a DKMS tree of the test's"

copy=$out/src/weave-$version
ls -A "$copy" > "$log" 2>&1
[ -f "$copy/kmod/weave_drv.c" ] && [ -x "$copy/scripts/kbuild.sh" ] &&
	[ ! -e "$copy/build" ] && [ ! -e "$copy/.cache" ] &&
	[ -f "$out/tree/build/kmod/weave.o" ] && [ -f "$out/tree/.cache/headers/kernel" ]
tap_result $? "dkms add copies sources only: no build/, no .cache (the tree keeps both)"

# DKMS 3.2.2 and later copy hidden files too; .cache is then a link in a
# work tree (or a folder), and the script removes the link, not its target.
later=$out/later
mkdir -p "$later/src/weave-$version" "$later/dkms/weave/$version" "$later/cache"
cp -a "$out/tree/." "$later/src/weave-$version/"
rm -rf "$later/src/weave-$version/.cache"
echo cached > "$later/cache/kernel"
ln -s "$later/cache" "$later/src/weave-$version/.cache"
ln -s "$later/src/weave-$version" "$later/dkms/weave/$version/source"
(cd "$later/dkms/weave/$version/source" && scripts/dkms-post-add.sh) > "$log" 2>&1 &&
	[ ! -e "$later/src/weave-$version/build" ] &&
	[ ! -e "$later/src/weave-$version/.cache" ] &&
	[ ! -L "$later/src/weave-$version/.cache" ] &&
	[ -f "$later/cache/kernel" ] && [ -f "$later/src/weave-$version/dkms.conf" ]
tap_result $? "POST_ADD on a copy with hidden files: build/ and the .cache link go, the link's target stays"

# Run anywhere but in a DKMS source link, it removes nothing.
(cd "$out/tree" && scripts/dkms-post-add.sh) > "$log" 2>&1
st=$?
[ $st -ne 0 ] && [ -f "$out/tree/build/kmod/weave.o" ] &&
	[ -f "$out/tree/.cache/headers/kernel" ]
tap_result $? "POST_ADD outside a DKMS source link refuses (status $st) and removes nothing"

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
