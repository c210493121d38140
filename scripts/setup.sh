#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what building and testing weave needs on a Debian 12 host, and
# unpack the two test kernels (Debian 12's 6.1 and bookworm-backports' 6.12)
# and their headers into the cache folder.  It never installs a kernel image
# or an initramfs on the host: the 6.12 headers package depends on its
# image, so headers are unpacked, not installed, and an install that would
# bring a kernel is refused.  Idempotent: a second run installs nothing.
#
# Usage: scripts/setup.sh CACHE_DIR
set -eu

cache=${1:?usage: setup.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The host's kernel images before set-up first ran: the build checks
# (tests/build/host-kernels.sh) hold set-up to adding none.
[ -f "$cache/host-kernels" ] ||
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-image-*' 2>/dev/null |
	awk '$1 == "ii" { print $2 }' > "$cache/host-kernels"

pkgs="build-essential pkg-config libdrm-dev qemu-system-x86 busybox-static
      kmod cpio xz-utils sparse linux-source-6.1 python3
      bc bison flex libelf-dev libssl-dev gcc-12 pahole mandoc dkms
      liburing-dev mesa-vulkan-drivers libvulkan-dev glslc spirv-tools
      rustc-web cargo-web rustfmt-web rust-web-clippy librust-bindgen-dev
      librust-libc-dev librust-cc-dev"

# bookworm-backports: the host's own bookworm entry with another suite.
bpo=/etc/apt/sources.list.d/weave-backports.sources
need_update=
if [ ! -f "$bpo" ] && [ ! -f "${bpo%.sources}.list" ]; then
	src=/etc/apt/sources.list.d/debian.sources
	if [ -f "$src" ]; then
		awk -v RS= -v ORS='\n\n' '
			/Suites:[^\n]*bookworm( |\n|$)/ && !done {
				n = split($0, l, "\n")
				for (i = 1; i <= n; i++) {
					if (l[i] ~ /^Suites:/)
						l[i] = "Suites: bookworm-backports"
					if (l[i] !~ /^#/)
						printf "%s\n", l[i]
				}
				done = 1
			}' "$src" > "$bpo.tmp"
	else
		# deb [options] URI SUITE COMPONENTS...
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/)
				while ($i !~ /\]$/ && i < NF)
					i++
			if ($i ~ /^\[|\]$/)
				i++
			if ($(i + 1) == "bookworm") {
				$(i + 1) = "bookworm-backports"
				print
				exit
			}
		}' /etc/apt/sources.list > "${bpo%.sources}.list.tmp"
		bpo=${bpo%.sources}.list
	fi
	[ -s "$bpo.tmp" ] || { echo "setup: no bookworm apt source found" >&2; exit 1; }
	mv "$bpo.tmp" "$bpo"
	need_update=1
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
# A first run, or a missing package, reads a fresh index: Debian moves the
# kernels behind the meta-packages, and old versions leave the mirrors.
stamp=$cache/apt-updated
if [ -n "$need_update" ] || [ ! -f "$stamp" ] || [ -n "$missing" ] ||
	[ ! -f "$cache/kernels.mk" ]; then
	apt-get update -qq
	touch "$stamp"
fi

# Resolve the kernel behind each meta-package from the package index.
# Prints the ABI name, e.g. 6.1.0-42-amd64.
resolve() {
	apt-cache depends "linux-image-amd64${1:+/$1}" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)\(-unsigned\)\{0,1\}$/\1/p' |
		head -n 1
}
k61=$(resolve "")
k612=$(resolve bookworm-backports)
case $k61 in 6.1.*) ;; *) echo "setup: cannot resolve the 6.1 kernel ($k61)" >&2; exit 1;; esac
case $k612 in 6.12.*) ;; *) echo "setup: cannot resolve the 6.12 kernel ($k612)" >&2; exit 1;; esac

if [ -n "$missing" ]; then
	if apt-get install -s -qq --no-install-recommends $missing |
		grep -E '^Inst (linux-image-|initramfs-tools)'; then
		echo "setup: refusing to install a kernel on the host" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

# download DIR PACKAGE...: the packages' .deb files, into DIR.
download() {
	d=$1
	shift
	(cd "$d" && apt-get -o APT::Sandbox::User=root download -qq "$@")
}

# Kernel headers are unpacked into $cache/headers, with the kbuild tools
# and the shared headers each arch package depends on.  Their Makefile
# includes the shared one by an absolute path; make it relative, so that
# the folder works where it is.
for k in $k61 $k612; do
	[ -f "$cache/headers/.done-$k" ] && continue
	rm -rf "$cache/deb"
	mkdir -p "$cache/headers" "$cache/deb"
	deps=$(apt-cache depends "linux-headers-$k" |
		sed -n 's/^ *Depends: \(linux-\(headers-[^ ]*-common\|kbuild-[^ ]*\)\)$/\1/p')
	download "$cache/deb" "linux-headers-$k" $deps
	for deb in "$cache"/deb/*.deb; do
		dpkg-deb -x "$deb" "$cache/headers"
	done
	rm -rf "$cache/deb"
	sed -i 's|^include /usr/src/|include ../|' \
		"$cache/headers/usr/src/linux-headers-$k/Makefile"
	touch "$cache/headers/.done-$k"
done

# Kernel images are unpacked, never installed: the host never boots them.
for k in $k61 $k612; do
	dir=$cache/kernels/$k
	[ -f "$dir/.done" ] && continue
	rm -rf "$dir" "$cache/deb"
	mkdir -p "$dir" "$cache/deb"
	download "$cache/deb" "linux-image-$k" ||
		download "$cache/deb" "linux-image-$k-unsigned"
	dpkg-deb -x "$cache"/deb/linux-image-*.deb "$dir"
	rm -rf "$cache/deb"
	# Modules may ship compressed; keep plain copies for insmod.
	find "$dir/lib/modules" -name '*.ko.xz' -exec xz -d -f {} +
	depmod -b "$dir" "$k"
	touch "$dir/.done"
done

# Kernel sources used at build time only: the selftest harness and
# checkpatch.  Extracted from Debian's linux-source package, never committed.
ks=$cache/ksrc
if [ ! -f "$ks/.done" ]; then
	rm -rf "$ks"
	mkdir -p "$ks"
	tar -C "$ks" --strip-components=1 -xJf /usr/src/linux-source-6.1.tar.xz \
		--wildcards \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/tools/testing/selftests/kselftest/runner.sh' \
		'*/tools/testing/selftests/kselftest/prefix.pl' \
		'*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/scripts/kernel-doc'
	touch "$ks/.done"
fi

printf 'K61=%s\nK612=%s\n' "$k61" "$k612" > "$cache/kernels.mk.tmp"
mv "$cache/kernels.mk.tmp" "$cache/kernels.mk"
