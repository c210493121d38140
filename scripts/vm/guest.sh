#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the test VM, in a chroot of the host's root: loads weave.ko and
# its dependencies, runs the kselftest suites (check, with vgem loaded too),
# the examples (demo, weave-pipeline traced), the benchmark (bench), the
# benchmark under perf (profile), the ioctl fuzzer (fuzz) or nothing (boot),
# then unloads weave.ko.
#
# Usage: guest.sh ROOT MODE KVER VMDIR
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
root=$1 mode=$2 kver=$3 vm=$4
build=$root/build

# Writable /run and /tmp.  The weave tree itself may live under /tmp (a CI
# clone, say): keep it reachable at its own path through a bind mount.
mount -t tmpfs tmpfs /run
mkdir /run/weave-root
mount --bind "$root" /run/weave-root
mount -t tmpfs tmpfs /tmp
if [ ! -d "$root/scripts" ]; then
	mkdir -p "$root"
	mount --bind /run/weave-root "$root"
fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

echo "WEAVE-VM: $(uname -r), mode $mode"
while read -r ko; do
	insmod "$ko" || { echo "WEAVE-VM: cannot load $ko"; exit 1; }
done < "$vm/deps"
# The debug kernel's kmemleak: the scan after rmmod below counts only what
# was allocated from now on (each report gives its allocation's jiffies),
# so what the kernel itself left while booting does not count.  That takes
# no scan now, which would cost the lane most of a minute.
kmemleak=/sys/kernel/debug/kmemleak
debug=$(cat "$vm/debug")
if [ "$debug" = 1 ]; then
	since=$(sed -n 's/^jiffies: //p' /proc/timer_list | head -n 1)
	[ -n "$since" ] && [ -e $kmemleak ] ||
		echo "WEAVE-VM: no kmemleak or jiffies on a debug kernel"
fi
# The benchmark sweeps max_tasks up to the largest the core accepts.
params=
case $mode in bench|profile) params=max_tasks=1024 ;; esac
if ! insmod "$build/kmod/$kver/weave.ko" $params; then
	echo "WEAVE-VM: cannot load weave.ko"
	exit 1
fi
echo "WEAVE-VM: weave.ko loaded"

# Module parameters out of range must fail the load with EINVAL; then
# reload weave.ko with two devices for the multi-device suite.  Prints TAP.
module_params() {
	ko=$build/kmod/$kver/weave.ko
	n=1
	echo "TAP version 13"
	echo "1..13"
	if rmmod weave && [ ! -e /sys/module/weave ]; then
		echo "ok $n rmmod weave before reloading"
	else
		echo "not ok $n rmmod weave before reloading"
	fi
	for p in num_devices=0 num_devices=9 max_bo_size=4097 max_streams=0 \
		 max_staged_bytes=2147483648 slot_staging_bytes=6000 \
		 slot_staging_bytes=134217728 max_buffer_claims=0 \
		 max_buffer_claims=1048577 max_client_claims=16777217 \
		 max_client_bos=0; do
		n=$((n + 1))
		if insmod "$ko" "$p" 2> /tmp/insmod.err; then
			echo "not ok $n insmod weave.ko $p is refused"
			rmmod weave
		elif grep -q 'Invalid parameters' /tmp/insmod.err; then
			echo "ok $n insmod weave.ko $p is refused with EINVAL"
		else
			echo "not ok $n insmod weave.ko $p is refused with EINVAL"
			sed 's/^/# /' /tmp/insmod.err
		fi
	done
	n=$((n + 1))
	if insmod "$ko" num_devices=2; then
		echo "ok $n insmod weave.ko num_devices=2"
	else
		echo "not ok $n insmod weave.ko num_devices=2"
	fi
}

# Reloads weave.ko with the module parameters given, for the suites of
# tests-wide (max_streams=256); a failed reload fails those suites.
reload_weave() {
	if rmmod weave && insmod "$build/kmod/$kver/weave.ko" "$@"; then
		echo "WEAVE-VM: weave.ko reloaded with $*"
	else
		echo "WEAVE-VM: cannot reload weave.ko with $*"
	fi
}

# The examples `make demo` runs, which the check lane runs too; the first,
# weave-readme, is the program README.md shows.
examples="weave-readme weave-demo weave-pipeline weave-failures weave-graph"

# Runs the examples; prints TAP, with a failed example's output.
run_examples() {
	echo "TAP version 13"
	echo "1..$(echo $examples | wc -w)"
	n=0
	for ex in $examples; do
		n=$((n + 1))
		if "$build/examples/$ex" > /tmp/example.out 2>&1; then
			echo "ok $n example $ex"
		else
			echo "not ok $n example $ex"
			sed 's/^/# /' /tmp/example.out
		fi
	done
}

# Runs a command with the weave, gpu_scheduler and dma_fence events on in a
# trace instance of its own, then prints the trace on the guest's output,
# each line prefixed "WEAVE-TRACE: " (the shared root is read-only): `make
# demo` cuts it out of guest.log into build/demo/ and draws it with
# tools/weave-trace.  Returns the command's status.
traced() {
	tr=/sys/kernel/tracing
	[ -d $tr/instances ] || mount -t tracefs tracefs $tr
	inst=$tr/instances/weave-demo
	rmdir $inst 2>/dev/null
	if ! mkdir $inst; then
		echo "WEAVE-VM: no trace instance; $* runs untraced"
		"$@"
		return
	fi
	echo 4096 > $inst/buffer_size_kb
	# One clock for both CPUs, so that events of two CPUs keep their order.
	echo global > $inst/trace_clock
	for sys in weave gpu_scheduler dma_fence; do
		[ -e $inst/events/$sys/enable ] &&
			echo 1 > $inst/events/$sys/enable
	done
	"$@"
	st=$?
	echo 0 > $inst/tracing_on
	echo "WEAVE-TRACE-BEGIN: $*"
	sed 's/^/WEAVE-TRACE: /' $inst/trace
	echo "WEAVE-TRACE-END: $(grep -c . $inst/trace) lines"
	rmdir $inst
	return $st
}

# Seconds since boot, to the hundredth.
uptime_cs() {
	cut -d' ' -f1 /proc/uptime | tr -d .
}

# kselftest's run_many, which also says how long each suite took.
timed_run_many() {
	echo "TAP version 13"
	DIR="${PWD#${BASE_DIR}/}"
	test_num=0
	echo "1..$#"
	for TEST in "$@"; do
		test_num=$((test_num + 1))
		t0=$(uptime_cs)
		run_one "$DIR" "$TEST" "$test_num"
		t1=$(uptime_cs)
		printf '# WEAVE-TIME: %s%s %d.%02d s\n' "${time_prefix:-}" "${TEST#./}" \
			$(((t1 - t0) / 100)) $(((t1 - t0) % 100))
	done
}

# The scenario suites named, a second time with WEAVE_TEST_SUBMIT=ring: their
# plain ENQUEUEs through shared rings (selftests/weave/weave_test_ring.h).
# From weave/viaring, whose names link to the suites, so that their TAP
# points read "selftests: weave/viaring: NAME".
run_viaring() {
	[ $# -gt 0 ] || return 0
	cd "$BASE_DIR/weave/viaring" || return 1
	export WEAVE_TEST_SUBMIT=ring
	time_prefix=viaring/
	timed_run_many "$@"
	unset WEAVE_TEST_SUBMIT time_prefix
	cd "$BASE_DIR/weave" || return 1
}

# The suites named, again on a device of 16 queues, the most weave allows:
# weave.ko reloaded with num_queues=16.  From weave/queues16, whose names
# link to the suites, so that their TAP points read
# "selftests: weave/queues16: NAME".
run_queues16() {
	[ $# -gt 0 ] || return 0
	reload_weave num_queues=16
	cd "$BASE_DIR/weave/queues16" || return 1
	time_prefix=queues16/
	timed_run_many "$@"
	unset time_prefix
	cd "$BASE_DIR/weave" || return 1
}

# vgem, whose fences are the suites' gates (struct weave_test_gate in
# selftests/weave/weave_test.h), with what it needs that is not loaded.
# Without it those tests fail, each saying why; the lane goes on.
load_vgem() {
	if modprobe -d "$(cat "$vm/modroot")" vgem; then
		echo "WEAVE-VM: vgem loaded"
	else
		echo "WEAVE-VM: cannot load vgem: the tests that use gates will fail"
	fi
}

case $mode in
check)
	load_vgem
	export BASE_DIR=$build/selftests
	# kselftest's runner reads unset variables.
	set +u
	. "$BASE_DIR/kselftest/runner.sh"
	cd "$BASE_DIR/weave" || exit 1
	only=$(cat "$vm/suites")
	if [ -n "$only" ]; then
		# WEAVE_SUITES: just these suites, on one device; those of
		# tests-multi after a reload with num_devices=2, and those of
		# tests-wide last, after a reload with max_streams=256.
		# viaring/NAME: NAME through rings (see run_viaring);
		# queues16/NAME: NAME with 16 queues (see run_queues16).
		plain= multi= wide= ring= q16=
		for s in $only; do
			case $s in
			viaring/*) ring="$ring ./${s#viaring/}"; continue ;;
			queues16/*) q16="$q16 ./${s#queues16/}"; continue ;;
			esac
			case " $(cat tests-wide) " in
			*" ./$s "*) wide="$wide ./$s"; continue ;;
			esac
			case " $(cat tests-multi) " in
			*" ./$s "*) multi="$multi ./$s" ;;
			*) plain="$plain ./$s" ;;
			esac
		done
		[ -z "$plain" ] || timed_run_many $plain
		run_viaring $ring
		run_queues16 $q16
		if [ -n "$multi" ]; then
			reload_weave num_devices=2
			timed_run_many $multi
		fi
		if [ -n "$wide" ]; then
			reload_weave max_streams=256
			timed_run_many $wide
		fi
	else
		timed_run_many $(cat "$BASE_DIR/weave/tests")
		# The Rust crate's integration tests (make rust).
		timed_run_many $(cat "$BASE_DIR/weave/tests-rust")
		run_viaring $(cat "$BASE_DIR/weave/tests-ring")
		# The debug kernel's own suites: fault injection, sw_sync.
		if [ "$debug" = 1 ]; then
			timed_run_many $(cat "$BASE_DIR/weave/tests-debug")
			reload_weave max_streams=256
			timed_run_many $(cat "$BASE_DIR/weave/tests-wide")
		fi
		run_queues16 $(cat "$BASE_DIR/weave/tests-queues")
		cd /
		module_params
		cd "$BASE_DIR/weave" || exit 1
		timed_run_many $(cat "$BASE_DIR/weave/tests-multi")
		# On the first of the two devices.
		run_examples
	fi
	cd /
	echo "WEAVE-RESULT: 0"
	;;
boot)
	# Only the load above and the unload below: scripts/vm/boot-check.sh.
	echo "WEAVE-RESULT: 0"
	;;
demo)
	rc=0
	for ex in $examples; do
		if [ "$ex" = weave-pipeline ]; then
			traced "$build/examples/$ex" || rc=$?
		else
			"$build/examples/$ex" || rc=$?
		fi
	done
	echo "WEAVE-RESULT: $rc"
	;;
bench)
	# One run of weave-bench per line of arguments.
	rc=0
	while read -r args; do
		"$build/bench/weave-bench" $args || rc=$?
	done < "$vm/bench"
	echo "WEAVE-RESULT: $rc"
	;;
fuzz)
	# The fuzzer suites (fuzz_*, or those $vm/fuzz names) for the
	# seconds in $vm/fuzz, in runs of at most 600 s, each run's seconds
	# shared among the suites: the first run from the seed given there
	# ("-": none), the others from random seeds (each printed); it stops
	# at the first suite that fails, with how to replay just that one.
	read -r secs seed suites < "$vm/fuzz"
	[ "${seed:-}" != - ] || seed=
	if [ -z "${suites:-}" ]; then
		for f in "$build"/selftests/weave/fuzz_*; do
			[ -x "$f" ] && suites="${suites:-} ${f##*/}"
		done
	fi
	n=$(echo $suites | wc -w)
	left=${secs:-300}
	rc=0
	# make syz's comparison (scripts/syz-fuzzcover.sh): each suite runs
	# under the KCOV collector $vm/kcov names, which keeps the PCs that
	# fall in weave.ko; they are printed after each suite, so that a run
	# cut short still gives what it reached, with the address of each of
	# weave.ko's sections (KCOV's PCs are return addresses; without
	# CONFIG_RANDOMIZE_BASE, which the KCOV kernel leaves off, they are the
	# addresses the module runs at).
	kcov=$(cat "$vm/kcov" 2>/dev/null || true)
	if [ -n "$kcov" ]; then
		mkdir -p /tmp/kcov
		[ -e /sys/kernel/debug/kcov ] ||
			echo "WEAVE-FUZZ: no /sys/kernel/debug/kcov in this kernel"
		for f in /sys/module/weave/sections/.*; do
			[ -f "$f" ] && echo "WEAVE-KCOV-SECTION: ${f##*/} $(cat "$f")"
		done
		kcov_range=$(cat /sys/module/weave/sections/.text)+$(cat /sys/module/weave/coresize)
	fi
	# Runs one suite, under the collector if there is one.
	fuzz_suite() {
		if [ -z "$kcov" ]; then
			"$@"
			return
		fi
		r=0
		LD_PRELOAD=$kcov KCOV_COLLECT_DIR=/tmp/kcov \
			KCOV_COLLECT_RANGE=$kcov_range "$@" || r=$?
		cat /tmp/kcov/pcs.* 2>/dev/null | sort -u > /tmp/kcov.suite
		echo "WEAVE-FUZZ: $(wc -l < /tmp/kcov.suite) PCs in weave.ko from $(ls /tmp/kcov | wc -l) processes"
		sed 's/^/WEAVE-KCOV: /' /tmp/kcov.suite
		rm -f /tmp/kcov/pcs.* /tmp/kcov.suite
		return $r
	}
	while [ "$left" -gt 0 ] && [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; do
		run=$left
		[ "$run" -gt 600 ] && run=600
		left=$((left - run))
		each=$((run / n))
		[ "$each" -gt 0 ] || each=1
		[ -n "${seed:-}" ] || seed=0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
		for s in $suites; do
			echo "WEAVE-FUZZ: $s, $each s from seed $seed"
			WEAVE_FUZZ_SEED=$seed WEAVE_FUZZ_SECONDS=$each \
				fuzz_suite "$build/selftests/weave/$s" || rc=$?
			if [ "$rc" -ne 0 ]; then
				echo "WEAVE-FUZZ: $s failed; replay: make fuzz SEED=$seed SECONDS=$each FUZZ_SUITES=$s"
				break
			fi
		done
		seed=
	done
	[ "$n" -gt 0 ] || { echo "WEAVE-FUZZ: no fuzzer suite"; rc=1; }
	echo "WEAVE-RESULT: $rc"
	;;
profile)
	# One configuration of the benchmark under perf (cpu-clock: TCG has
	# no PMU), kernel and module symbols from /proc/kallsyms; idle time
	# shown as the rest; the configuration comes from run.sh.
	# A configuration that starts with '-' is weave-bench's arguments.
	prof=$(cat "$vm/profile")
	case $prof in
	-*) set -- $prof ;;
	*) set -- -c "$prof" 262144 ;;
	esac
	perf record -q -e cpu-clock -F 2000 -a -g -o /tmp/perf.data \
		"$build/bench/weave-bench" "$@"
	rc=$?
	perf report -i /tmp/perf.data --stdio --no-children --sort comm,sym \
		-g none --percent-limit 0.3 2>/dev/null | grep -v -e '^$' -e swapper | head -80
	perf report -i /tmp/perf.data --stdio --sort comm -g none 2>/dev/null |
		grep -v -e '^$' -e '^#'
	# Inclusive: what each function costs with its callees, in the
	# benchmark and in the ring polling thread (rings of poll mode).
	for comm in weave-bench weave-poll/0; do
		echo "WEAVE-PROFILE: inclusive, $comm"
		perf report -i /tmp/perf.data --stdio --children --sort sym \
			-g none --comms "$comm" --percent-limit 1 2>/dev/null |
			grep -v -e '^$' -e '^#' | head -60
	done
	echo "WEAVE-RESULT: $rc"
	;;
esac

# Where weave.ko's code was, to read a leak's backtrace after the unload.
base=$(sed -n 's/^weave .* \(0x[0-9a-f]*\)$/\1/p' /proc/modules)
if rmmod weave; then
	echo "WEAVE-RMMOD: ok"
else
	echo "WEAVE-RMMOD: failed"
fi

# kmemleak reports an object once it is a few seconds old and unreferenced
# in a scan; run.sh fails the lane on any report.
if [ "$debug" = 1 ]; then
	sleep 6
	echo scan > $kmemleak
	echo scan > $kmemleak
	if cat $kmemleak > /tmp/kmemleak.all && [ -n "$since" ]; then
		# Each report: its first line, then "comm ..., jiffies N".
		awk -v since="$since" '
			function put() { if (keep) printf "%s", rec; rec = "" }
			/^unreferenced object/ { put(); keep = 0 }
			{ rec = rec $0 "\n" }
			/^  comm .*jiffies [0-9]+$/ { keep = $NF + 0 >= since + 0 }
			END { put() }' /tmp/kmemleak.all > /tmp/kmemleak
		echo "WEAVE-KMEMLEAK: $(grep -c '^unreferenced object' /tmp/kmemleak)"
		echo "WEAVE-VM: $(grep -c '^unreferenced object' /tmp/kmemleak.all) kmemleak reports in all, from jiffies $since on counted"
	else
		echo "WEAVE-KMEMLEAK: cannot read $kmemleak"
		: > /tmp/kmemleak
	fi
	if [ -s /tmp/kmemleak ]; then
		echo "WEAVE-KMEMLEAK-REPORT: weave.ko was loaded at $base"
	fi
	sed 's/^/WEAVE-KMEMLEAK-REPORT: /' /tmp/kmemleak
fi
