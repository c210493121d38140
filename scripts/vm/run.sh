#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Boots one test kernel under TCG with the host's root shared read-only over
# 9p, runs scripts/vm/guest.sh in it and checks the kernel console.
#
# Usage: scripts/vm/run.sh CACHE_DIR KVER MODE
#   MODE is check, demo, bench, profile, fuzz or boot (see guest.sh).  Run
#   from the top of the weave tree.
# Output: build/vm/KVER/{console.log,guest.log}, or $WEAVE_VM_DIR if set (so
# that two runs can share a tree); exit status 0 only if the
# guest finished, weave.ko unloaded and the console is clean.
# WEAVE_VM_QUIET=1 (make demo): the terminal shows only what the guest's
# programs print, none of the lane's own WEAVE-* lines (a trace among
# them), and the lane's results only if it failed; guest.log keeps all.
set -eu
. "$(dirname "$0")/../../tests/build/tap.sh"

cache=$(cd "$1" && pwd)
kver=$2
mode=$3
root=$(pwd)
kdir=$cache/kernels/$kver
out=${WEAVE_VM_DIR:-$root/build/vm/$kver}
timeout=${WEAVE_VM_TIMEOUT:-900}
# A loaded host can starve TCG's first timer interrupts long enough for the
# kernel's IO-APIC timer check to give up and panic ("IO-APIC + timer
# doesn't work"); the emulated timer is fine, so skip the check.
append=no_timer_check
# The debug kernel (scripts/debug-kernel.sh) is several times slower under
# TCG.  Under KASAN and lockdep, ACPI's PCI interrupt routing can run past
# its loop timeout and leave virtio without an interrupt: acpi=noirq.  With
# five-level paging (TCG's -cpu max has LA57), an interrupt that comes
# early in boot can touch a direct-map address that KASAN has no shadow for
# yet, and KASAN reports a wild-memory-access in do_raw_spin_lock() from
# handle_edge_irq() (1 boot in 7 under load): no5lvl.
if [ -f "$kdir/.debug" ]; then
	timeout=${WEAVE_VM_TIMEOUT:-2700}
	append="$append acpi=noirq no5lvl"
fi

[ -f "$kdir/.done" ] || { echo "vm: kernel $kver is not unpacked" >&2; exit 1; }
[ -f "build/kmod/$kver/weave.ko" ] || { echo "vm: no weave.ko for $kver" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Print the module files NAME needs, in load order, one per line.
deps_of() {
	modprobe -d "$kdir" -S "$kver" --show-depends "$1" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
}

# The initramfs: busybox, /init, and what mounting 9p needs.
initrd=$out/initramfs.cpio.gz
if [ ! -f "$initrd" ] || [ scripts/vm/init -nt "$initrd" ]; then
	stage=$out/initramfs
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/modules" "$stage/proc" "$stage/sys" \
		"$stage/dev" "$stage/mnt"
	cp /bin/busybox "$stage/bin/busybox"
	cp scripts/vm/init "$stage/init"
	for m in virtio_pci 9pnet_virtio 9p; do
		deps_of $m
	done | awk '!seen[$0]++' | while read -r ko; do
		cp "$ko" "$stage/modules/"
		basename "$ko" >> "$stage/modules/order"
	done
	touch "$stage/modules/order"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd"
	rm -rf "$stage"
fi

# weave.ko's dependencies, as paths the guest sees through the shared root.
for m in $(modinfo -F depends "build/kmod/$kver/weave.ko" | tr ',' ' '); do
	deps_of "$m"
done | awk '!seen[$0]++' > "$out/deps"
# The kernel's module tree (with its modules.dep), where the guest's
# modprobe finds vgem for the suites' gates.
echo "$kdir" > "$out/modroot"

# The arguments of weave-bench in `make bench`, one line per run (none:
# everything), and the configuration `make profile` runs:
# BATCH,STREAMS,STRATEGY,MAX_TASKS, or weave-bench's arguments (-r 64 65536).
printf '%s\n' "${WEAVE_BENCH:-}" > "$out/bench"
# `make fuzz`: how long to fuzz, in seconds, the first seed ("-": random)
# and the fuzzer suites (none: all of them).
printf '%s\n' "${WEAVE_FUZZ:-}" > "$out/fuzz"
# The KCOV collector the fuzzer suites run under (none: they run bare),
# for scripts/syz-fuzzcover.sh.
printf '%s\n' "${WEAVE_KCOV:-}" > "$out/kcov"
# The suites `check` runs, by name (none: all of them); a shorter loop
# while working on one suite.
printf '%s\n' "${WEAVE_SUITES:-}" > "$out/suites"
# A kernel built by scripts/debug-kernel.sh runs the suites that need it.
if [ -f "$kdir/.debug" ]; then echo 1; else echo 0; fi > "$out/debug"
echo "${WEAVE_PROFILE:-64,1,interleave,1024}" > "$out/profile"

quiet=${WEAVE_VM_QUIET:-}
show=cat
if [ -n "$quiet" ]; then
	show="sed -u /^WEAVE-/d"
else
	echo "vm: booting $kver ($mode)"
fi
rm -f "$out/rc" "$out/guest.log" "$out/console.log" "$out/lane.tap"
{
rc=0
timeout "$timeout" qemu-system-x86_64 \
	-accel tcg,thread=single -cpu max -smp 2 -m 2G \
	-display none -monitor none -no-reboot \
	-kernel "$kdir/boot/vmlinuz-$kver" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 loglevel=7 $append weave_root=$root weave_mode=$mode weave_kver=$kver weave_vm=$out" \
	-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
	-serial "file:$out/console.log" -serial stdio \
	< /dev/null || rc=$?
echo $rc > "$out/rc"
} | tr -d '\r' | tee "$out/guest.log" | $show
rc=$(cat "$out/rc" 2>/dev/null || echo 255)
touch "$out/console.log"

# The lane's own results, as TAP.  A guest that never got as far as
# loading weave.ko is the lane's failure, not the tests': it is reported as
# one result, with the end of its console, and no test result is kept.
set +e
if ! grep -q '^WEAVE-VM: weave.ko loaded' "$out/guest.log"; then
	{
		tap_plan 1
		tap_point 1 "vm $kver: booted and loaded weave.ko (status $rc)"
		tail -n 40 "$out/console.log" | sed 's/^/# console: /'
		sed 's/^/# guest: /' "$out/guest.log"
	} > "$out/lane.tap"
	rm -f "$out/guest.log"
	cat "$out/lane.tap"
	exit 1
fi
[ "$rc" -eq 0 ]
off=$?
grep -q '^WEAVE-RMMOD: ok' "$out/guest.log"
unload=$?
scripts/vm/console-check.sh "$out/console.log" > "$out/console.bad"
clean=$?
grep -q '^WEAVE-RESULT: 0$' "$out/guest.log"
ran=$?
# The debug kernel's kmemleak scan after rmmod: guest.sh prints the number
# of suspects it reports, and each report.
leak=0
if [ -f "$kdir/.debug" ]; then
	grep -q '^WEAVE-KMEMLEAK: 0$' "$out/guest.log"
	leak=$?
fi
{
	tap_plan "$(if [ -f "$kdir/.debug" ]; then echo 6; else echo 5; fi)"
	tap_point 0 "vm $kver: booted and loaded weave.ko"
	tap_point $off "vm $kver: powered off within ${timeout}s (status $rc)"
	tap_point $unload "vm $kver: rmmod weave succeeded"
	tap_point $clean "vm $kver: kernel console is clean"
	sed 's/^/# /' "$out/console.bad"
	tap_point $ran "vm $kver: $mode ran to completion"
	if [ -f "$kdir/.debug" ]; then
		tap_point $leak "vm $kver: kmemleak reports no leak after rmmod"
		sed -n 's/^WEAVE-KMEMLEAK-REPORT: /# /p' "$out/guest.log"
	fi
} > "$out/lane.tap"
pass=1
[ $off -eq 0 ] && [ $unload -eq 0 ] && [ $clean -eq 0 ] && [ $ran -eq 0 ] &&
	[ $leak -eq 0 ] && pass=0
if [ -z "$quiet" ] || [ $pass -ne 0 ]; then
	cat "$out/lane.tap"
fi
[ $pass -eq 0 ]
