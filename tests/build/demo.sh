#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What `make demo` shows on the terminal: the examples' output and where
# the picture is, nothing else (no trace line, none of the lane's own
# lines); the trace goes to build/demo/pipeline.trace and is drawn.  Runs
# the real demo recipe and scripts/vm/run.sh on a copy of the tree, with
# set-up and the build stubbed out and a stand-in for QEMU that prints a
# guest's output: the examples' lines, the lane's WEAVE-* lines and a real
# trace of weave-pipeline (tests/trace/vm-pipeline-6.1.trace).  Also: the
# lane's lines do reach the terminal of a run that is not the demo's, and
# a demo whose guest fails shows why and fails.  Prints TAP.
#
# Usage: tests/build/demo.sh BUILD_DIR
set -u
. "$(dirname "$0")/tap.sh"
build=${1:?usage: demo.sh BUILD_DIR}
src=$(pwd)
out=$src/$build/demo-test
tree=$out/tree
log=$out.log
tap_log=$log
tap_tail=30
kver=6.1.0-0-amd64

rm -rf "$out"
mkdir -p "$tree" "$out/bin" "$out/cache/kernels/$kver/boot"
tar -c --exclude=./build --exclude=./.cache --exclude=./.git . |
	tar -x -C "$tree"
printf '#!/bin/sh\nexit 0\n' > "$tree/scripts/setup.sh"
mkdir -p "$tree/build/kmod/$kver"
: > "$tree/build/kmod/$kver/weave.ko"
echo "K61=$kver" > "$out/cache/kernels.mk"
echo "K612=6.12.0-0-amd64" >> "$out/cache/kernels.mk"
touch "$out/cache/kernels/$kver/.done" "$out/cache/kernels/$kver/boot/vmlinuz-$kver"

# The guest's output, as guest.sh prints it in demo mode.
trace=$src/tests/trace/vm-pipeline-6.1.trace
guest() {
	echo "WEAVE-VM: $kver, mode demo"
	echo "WEAVE-VM: weave.ko loaded"
	echo "20 + 22 = 42"
	echo "weave-demo: OK"
	echo "WEAVE-TRACE-BEGIN: build/examples/weave-pipeline"
	grep -v '^# A real trace' "$trace" | sed 's/^/WEAVE-TRACE: /'
	echo "WEAVE-TRACE-END: 210 lines"
	echo "weave-pipeline: OK"
	echo "WEAVE-RESULT: 0"
	[ -n "${1:-}" ] || echo "WEAVE-RMMOD: ok"
	echo "WEAVE-VM: guest exited with 0"
}
guest > "$out/guest.ok"
guest failing > "$out/guest.bad"
# QEMU prints the guest's output (the file FAKE_GUEST); modprobe and
# modinfo find no module to add to the initramfs.
printf '#!/bin/sh\ncat "$FAKE_GUEST"\n' > "$out/bin/qemu-system-x86_64"
printf '#!/bin/sh\nexit 0\n' > "$out/bin/modprobe"
printf '#!/bin/sh\nexit 0\n' > "$out/bin/modinfo"
chmod +x "$out/bin/"*

tap_plan 5

# make demo, with the build a no-op (MAKE=true) and the cache above, as
# typed at a shell (not a sub-make of make build-check's).
demo() {
	(cd "$tree" && FAKE_GUEST=$1 PATH="$out/bin:$PATH" \
		env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS \
		make demo MAKE=true CACHE="$out/cache")
}

demo "$out/guest.ok" > "$out/terminal" 2>&1
st=$?
{
	echo "20 + 22 = 42"
	echo "weave-demo: OK"
	echo "weave-pipeline: OK"
	echo "demo: weave-pipeline's schedule is drawn in build/demo/pipeline.svg" \
		"(traced in build/demo/pipeline.trace); open" \
		"build/demo/pipeline.json in https://ui.perfetto.dev"
} > "$out/expected"
{ echo "status $st; terminal:"; cat "$out/terminal"; } > "$log"
[ $st -eq 0 ] && cmp -s "$out/expected" "$out/terminal"
tap_result $? "make demo shows the examples' output and where the picture is, and nothing else"

d=$tree/build/demo
n=$(grep -vc '^# A real trace' "$trace")
{ wc -l "$d/pipeline.trace"; ls -l "$d"; } > "$log" 2>&1
[ "$(wc -l < "$d/pipeline.trace" 2>/dev/null)" = "$n" ] &&
	grep -q '<svg' "$d/pipeline.svg" && [ -s "$d/pipeline.json" ]
tap_result $? "the trace, $n lines, is in build/demo/pipeline.trace, drawn in pipeline.svg and .json"

grep -c '^WEAVE-TRACE: ' "$tree/build/vm/$kver/guest.log" > "$log" 2>&1
[ "$(cat "$log")" = "$n" ]
tap_result $? "the VM's guest.log keeps every line, the trace's too"

# Not quiet (make check's lanes): the lane's lines reach the terminal.
(cd "$tree" && FAKE_GUEST=$out/guest.ok PATH="$out/bin:$PATH" \
	WEAVE_VM_DIR="$out/vm-loud" scripts/vm/run.sh "$out/cache" "$kver" demo) \
	> "$log" 2>&1
st=$?
[ $st -eq 0 ] && grep -q '^WEAVE-TRACE: ' "$log" && grep -q '^ok 5 vm ' "$log"
tap_result $? "without WEAVE_VM_QUIET, run.sh shows the lane's lines and results (status $st)"

demo "$out/guest.bad" > "$log" 2>&1
st=$?
[ $st -ne 0 ] && grep -q '^not ok 3 vm .*rmmod' "$log" &&
	! grep -q '^WEAVE-TRACE' "$log" && ! grep -q 'is drawn in' "$log"
tap_result $? "a demo whose guest fails shows the lane's results and fails (status $st)"
