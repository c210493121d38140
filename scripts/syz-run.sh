#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs a syzkaller campaign on weave's node (make syz): builds the KCOV
# variant of the debug kernel and weave.ko for it, prepares the guest (an
# initramfs of busybox and scripts/syz-guest-rdinit, which links in the
# host's root shared over 9p; sshd unpacked from Debian's packages; the
# campaign's ssh key), writes syz-manager's config with the syscalls
# restricted to weave's node, runs syz-manager under TCG for HOURS hours
# of fuzzing (counted from the end of its machine check, not from the
# boot), then has scripts/syz-report.sh print what it found, and fail
# unless it fuzzed for those hours (scripts/syz-fuzzed.py).
#
# syzkaller's own "9p" image does not serve: its config loader takes
# "9p" for a file name, and it copies the executor to the guest's root,
# which must then be writable.  The image syzkaller requires is an empty
# disk the guest ignores.
#
# The campaign's folder (OUT) keeps the manager's workdir, so a second run
# starts from the first one's corpus.
#
# Usage: scripts/syz-run.sh CACHE_DIR SYZKALLER_DIR HOURS OUT_DIR
# Environment: SYZ_VMS (VMs, default 1), SYZ_CPUS (vCPUs each, default 2),
#   SYZ_PROCS (executor processes per VM, default 2), SYZ_LEAK=1 keeps
#   kmemleak on (syzkaller then reproduces nothing but leaks), SYZ_PORT
#   (the manager's http port, default 56741).
set -eu
[ $# -eq 4 ] || { echo "usage: $0 CACHE_DIR SYZKALLER_DIR HOURS OUT_DIR" >&2; exit 1; }
cache=$(cd "$1" && pwd -P)
syz=$(readlink -f "$2")
hours=$3
secs=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
[ "$secs" -gt 0 ] || { echo "syz: HOURS=$hours is no time to fuzz" >&2; exit 1; }
mkdir -p "$4"
out=$(cd "$4" && pwd -P)
top=$(pwd)
port=${SYZ_PORT:-56741}

say() {
	echo "syz: $*"
}

# The kernel: built once per machine (10 to 30+ minutes), then cached.
nice -n 19 scripts/debug-kernel.sh "$cache" kcov
. "$cache/debug-kernel-kcov.mk"
kver=$KKCOV
kdir=$cache/kernels/$kver
say "kernel $kver"

# weave.ko, instrumented by KCOV as the whole kernel is
# (CONFIG_KCOV_INSTRUMENT_ALL).
kmod=$top/build/kmod/$kver
nice -n 19 scripts/kbuild.sh "$kdir/build" "$kmod" > "$out/kbuild.log" 2>&1 ||
	{ tail -n 30 "$out/kbuild.log" >&2; exit 1; }
grep -q __sanitizer_cov_trace_pc "$kmod/weave.ko" ||
	{ echo "syz: $kmod/weave.ko is not instrumented by KCOV" >&2; exit 1; }
# The campaign keeps the weave.ko it fuzzes (OUT/ko/): the guest loads it,
# syz-manager symbolises it, and scripts/syz-report.sh and
# scripts/syz-fuzzcover.sh measure its PCs against it, however often
# build/kmod is rebuilt meanwhile.
mkdir -p "$out/ko"
cp "$kmod/weave.ko" "$out/ko/weave.ko"

# sshd for the guest, from Debian's packages, unpacked (not installed).
debs=$cache/syz-guest/debs
if [ ! -f "$debs/.done" ]; then
	mkdir -p "$debs"
	(cd "$debs" && apt-get download openssh-server openssh-sftp-server libwrap0)
	touch "$debs/.done"
fi
rm -rf "$out/sshd"
for deb in "$debs"/*.deb; do
	dpkg-deb -x "$deb" "$out/sshd"
done

# The guest's initramfs, its empty disk and the campaign's ssh key.
stage=$out/initramfs
rm -rf "$stage"
mkdir -p "$stage"
cp /bin/busybox "$stage/busybox"
cp scripts/syz-guest-rdinit "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.cpio.gz"
rm -rf "$stage"
[ -f "$out/disk.img" ] || head -c 1048576 /dev/zero > "$out/disk.img"
[ -f "$out/key" ] || ssh-keygen -q -t ed25519 -N '' -C '' -f "$out/key"

# The modules the guest loads, in order: weave.ko's dependencies, then it.
for m in $(modinfo -F depends "$kmod/weave.ko" | tr ',' ' '); do
	modprobe -d "$kdir" -S "$kver" --show-depends "$m" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | awk '!seen[$0]++' > "$out/modules"
echo "$out/ko/weave.ko" >> "$out/modules"

# The calls of weave's node: its own ioctls, PRIME and mmap on its
# buffers, and the DRM core calls dev_weave.txt lets take its fd.
syscalls='"openat$weave", "openat$weave_any", "ioctl$DRM_IOCTL_WEAVE_*",
	"ioctl$DRM_IOCTL_PRIME_HANDLE_TO_FD_WEAVE",
	"ioctl$DRM_IOCTL_PRIME_FD_TO_HANDLE_WEAVE", "mmap$weave", "munmap",
	"ioctl$DRM_IOCTL_GEM_CLOSE", "ioctl$DRM_IOCTL_SYNCOBJ_*",
	"ioctl$DRM_IOCTL_VERSION", "ioctl$DRM_IOCTL_GET_CAP",
	"ioctl$DRM_IOCTL_SET_CLIENT_CAP", "close"'
# See scripts/vm/run.sh for no_timer_check, acpi=noirq and no5lvl under
# TCG; net.ifnames=0 keeps eth0, which the guest's init configures.
cmdline="no_timer_check acpi=noirq no5lvl net.ifnames=0"
[ "${SYZ_LEAK:-0}" = 1 ] || cmdline="$cmdline kmemleak=off"
# The guest sees the host's files under /host (scripts/syz-guest-rdinit).
cmdline="$cmdline weave_init=/host$top/scripts/syz-guest-init weave_syz=/host$out"
# The sources: the kernel's debug info names them by their absolute paths
# (the KCOV kernel's build folder, .cache/debug-kernel-kcov/KEY/src), and
# weave.ko's by build/kmod/KVER/kmod/FILE.  syz-manager joins a path it
# cannot place under kernel_obj or kernel_build_src to kernel_src; with
# build/source there, it looked for build/source/work/..., found no file
# and left /filecover empty.  With "/" for both, every path is its own.
# (A crash's maintainers, which syz-manager asks scripts/get_maintainer.pl
# of kernel_src for once the report is symbolised, are then not found: its
# log says so; the report is kept.)
cat > "$out/manager.cfg" <<EOF
{
	"name": "weave",
	"target": "linux/amd64",
	"http": "127.0.0.1:$port",
	"workdir": "$out/workdir",
	"kernel_obj": "$kdir/build",
	"kernel_src": "/",
	"kernel_build_src": "/",
	"module_obj": ["$out/ko"],
	"image": "$out/disk.img",
	"sshkey": "$out/key",
	"ssh_user": "root",
	"syzkaller": "$syz",
	"procs": ${SYZ_PROCS:-2},
	"sandbox": "none",
	"cover": true,
	"reproduce": true,
	"enable_syscalls": [$syscalls],
	"type": "qemu",
	"vm": {
		"count": ${SYZ_VMS:-1},
		"cpu": ${SYZ_CPUS:-2},
		"mem": 2048,
		"kernel": "$kdir/boot/vmlinuz-$kver",
		"initrd": "$out/initramfs.cpio.gz",
		"cmdline": "$cmdline",
		"qemu_args": "-accel tcg,thread=multi -cpu max -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
		"network_device": "virtio-net-pci"
	}
}
EOF
mkdir -p "$out/workdir"
# What a former campaign fetched and measured must not count for this one.
rm -rf "$out/cover" "$out/seconds" "$out/stopped-at"
mkdir -p "$out/cover"

say "booting and checking the guest; http://127.0.0.1:$port; log $out/manager.log"
nice -n 19 "$syz/bin/syz-manager" -config "$out/manager.cfg" > "$out/manager.log" 2>&1 &
mgr=$!
echo "$mgr" > "$out/manager.pid"
# The hours count from the end of syzkaller's machine check, which the
# manager logs as "machine check:": under TCG, booting the debug kernel
# and the check take 10 to 20 minutes on a loaded host.  The executions
# counter is no sign of it, as the check's own programs count.
until grep -q '^[0-9/]* [0-9:]* machine check:' "$out/manager.log" 2> /dev/null; do
	kill -0 "$mgr" 2> /dev/null || break
	sleep 30
done
start=$(date +%s)
# The executions counter at the start: the machine check's own programs
# count in it, and must not count as fuzzing.
curl -sf --max-time 300 -o "$out/cover/metrics.start" \
	"http://127.0.0.1:$port/metrics" || rm -f "$out/cover/metrics.start"
say "fuzzing for $hours h ($secs s) from $(date -u +%H:%M) UTC"
# Coverage is fetched from the running manager just before it is stopped.
end=$((start + secs))
while kill -0 "$mgr" 2> /dev/null && [ "$(date +%s)" -lt "$end" ]; do
	sleep 30
done
# The fuzzing time stops here, not after the fetch (which may take
# minutes to symbolise the coverage).
echo $(($(date +%s) - start)) > "$out/seconds"
if kill -0 "$mgr" 2> /dev/null; then
	scripts/syz-report.sh --fetch "$port" "$out" || true
	# What the manager logs once told to stop is no failure of the
	# campaign (scripts/syz-fuzzed.py reads the log up to here).
	wc -c < "$out/manager.log" > "$out/stopped-at"
	kill -INT "$mgr"
	wait "$mgr" || true
else
	wait "$mgr" || true
	say "syz-manager stopped early; the end of its log:"
	tail -n 30 "$out/manager.log"
fi
rm -f "$out/manager.pid"
scripts/syz-report.sh "$port" "$out" "$hours"
