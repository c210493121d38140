#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the VM lane's debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault
# injection, sw_sync) from Debian's linux-source-6.1, with the options in
# scripts/debug-kernel.config merged over tinyconfig, and lays it out as
# setup.sh lays out Debian's kernels: CACHE/kernels/KVER/{boot,lib/modules},
# plus CACHE/kernels/KVER/build, the tree external modules build against.
# Writes CACHE/debug-kernel.mk (KDBG=KVER).
#
# VARIANT kcov builds the same kernel with scripts/debug-kernel-kcov.config
# merged last (KCOV and debug info, for syzkaller: make syz), cached apart
# in CACHE/debug-kernel-kcov, and writes CACHE/debug-kernel-kcov.mk
# (KKCOV=KVER) instead.
#
# The result is cached by the source package's version, the fragments and
# this script's recipe number: a warm run only checks the key.
#
# Usage: scripts/debug-kernel.sh CACHE_DIR [kcov]
set -eu

# The real path: a worktree may reach a shared cache through a symlink,
# and the kernel's build link must not depend on that worktree.
cache=$(cd "${1:?usage: debug-kernel.sh CACHE_DIR}" && pwd -P)
frags=$(pwd)/scripts/debug-kernel.config
name=debug-kernel
var=KDBG
case ${2-} in
'') ;;
kcov)
	frags="$frags $(pwd)/scripts/debug-kernel-kcov.config"
	name=debug-kernel-kcov
	var=KKCOV ;;
*)
	echo "debug-kernel: unknown variant '$2'" >&2
	exit 1 ;;
esac
tarball=/usr/src/linux-source-6.1.tar.xz
# Raise when the way the kernel is built changes.
recipe=1

[ -f "$tarball" ] || { echo "debug-kernel: no $tarball (make setup)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# shellcheck disable=SC2086 # the fragments are a list of paths
key=$({ echo "$srcver"; echo "$recipe"; cat $frags; } | sha256sum | cut -c1-12)
top=$cache/$name
dbg=$top/$key

if [ -f "$dbg/.done" ]; then
	cp "$dbg/$name.mk" "$cache/$name.mk"
	exit 0
fi

start=$(date +%s)
say() {
	echo "debug-kernel: $* ($(($(date +%s) - start)) s)"
}
say "building the debug kernel from linux-source $srcver, config $key; once per machine, 10 to 30 minutes"
# This key resumes where an interrupted build stopped; others are removed
# once it is built.
mkdir -p "$dbg"
src=$dbg/src
obj=$dbg/obj
log=$dbg/build.log
mkdir -p "$src" "$obj"
if [ ! -f "$dbg/.unpacked" ]; then
	say "unpacking the source"
	tar -C "$src" --strip-components=1 -xJf "$tarball"
	touch "$dbg/.unpacked"
fi

# DRM_SCHED and DRM_GEM_SHMEM_HELPER have no prompt: only drivers select
# them.  Give each a prompt so that the fragment can ask for them.
for sym in DRM_SCHED DRM_GEM_SHMEM_HELPER; do
	sed -i "/^config $sym\$/{n;s/^\ttristate\$/\ttristate \"$sym (weave debug kernel)\"/}" \
		"$src/drivers/gpu/drm/Kconfig"
	grep -q "\"$sym (weave debug kernel)\"" "$src/drivers/gpu/drm/Kconfig" ||
		{ echo "debug-kernel: cannot give $sym a prompt" >&2; exit 1; }
done

# The fragments as one, the last setting of an option winning.
frag=$dbg/fragment.config
# shellcheck disable=SC2086 # the fragments are a list of paths
cat $frags | awk '
	/^CONFIG_/ { sym = $0; sub(/=.*/, "", sym) }
	/^# CONFIG_.* is not set$/ { sym = $2 }
	/^(CONFIG_|# CONFIG_.* is not set$)/ {
		if (!(sym in at))
			order[n++] = sym
		at[sym] = $0
	}
	END { for (i = 0; i < n; i++) print at[order[i]] }' > "$frag"

say "configuring"
make -s -C "$src" O="$obj" tinyconfig > "$log" 2>&1
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" >> "$log" 2>&1
make -s -C "$src" O="$obj" olddefconfig >> "$log" 2>&1
# Every line of the fragment must survive: a dependency that is not met
# drops an option silently.
grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$frag" | while read -r line; do
	case $line in
	'# '*)
		sym=${line#\# }
		sym=${sym%% *}
		! grep -q "^$sym=" "$obj/.config" ;;
	*)
		grep -qxF "$line" "$obj/.config" ;;
	esac || { echo "debug-kernel: .config lacks: $line" >&2; echo x; }
done > "$dbg/missing"
[ -s "$dbg/missing" ] && exit 1

say "compiling with $(nproc) jobs; the log is $log"
make -C "$src" O="$obj" -j"$(nproc)" bzImage modules >> "$log" 2>&1 &
pid=$!
while kill -0 $pid 2> /dev/null; do
	sleep 60
	kill -0 $pid 2> /dev/null &&
		say "$(grep -c '^  CC' "$log") files compiled"
done
wait $pid || { tail -n 40 "$log" >&2; echo "debug-kernel: build failed" >&2; exit 1; }

kver=$(cat "$obj/include/config/kernel.release")
say "installing $kver"
kdir=$cache/kernels/$kver
rm -rf "$kdir"
mkdir -p "$kdir/boot"
cp "$obj/arch/x86/boot/bzImage" "$kdir/boot/vmlinuz-$kver"
make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$kdir" modules_install >> "$log" 2>&1
ln -sfn "$obj" "$kdir/build"
touch "$kdir/.debug" "$kdir/.done"
echo "$var=$kver" > "$dbg/$name.mk"
touch "$dbg/.done"
cp "$dbg/$name.mk" "$cache/$name.mk"
find "$top" -mindepth 1 -maxdepth 1 ! -name "$key" -exec rm -rf {} +
say "done: $kdir"
