#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# libweave's ABI across a uAPI that grows: builds tests/abi/abi_client.c
# against today's weave.h, and a second libweave.so.1 against a copy of
# the uAPI header that appends a field to each struct the library fills
# or reads for its caller; then runs the program against the library as
# built and against the grown one.  Prints TAP; the program's own TAP is
# nested under each run.  Needs no device.
#
# Usage: tests/abi/run.sh BUILD_DIR   (BUILD_DIR/lib holds libweave.so.1)
set -u
. "$(dirname "$0")/../build/tap.sh"
build=${1:?usage: run.sh BUILD_DIR}
out=$build/abi
grown=$out/grown
cc=${CC:-cc}
drm_cflags=$(pkg-config --cflags libdrm)
drm_libs=$(pkg-config --libs libdrm)
# Not drm_weave_failure_task: drm_weave_failure embeds one (its root), so
# it cannot grow without moving drm_weave_failure's later fields.
structs="drm_weave_device_info drm_weave_memory_usage drm_weave_client_usage
	drm_weave_stream_query drm_weave_binding drm_weave_task drm_weave_sync
	drm_weave_enqueue drm_weave_flush drm_weave_check_range
	drm_weave_failure drm_weave_check drm_weave_capture drm_weave_replay"
rm -rf "$out"
mkdir -p "$grown/include" "$grown/lib"
log=$out/log
tap_log=$log

tap_plan 5

# A field appended to the end of each struct, as a later uAPI may.
awk -v structs="$structs" '
	BEGIN { split(structs, s); for (i in s) grow[s[i]] = 1 }
	/^struct [a-z_0-9]+ {$/ { cur = $2 }
	/^};$/ && cur in grow { print "\t__u64 abi_test_tail;"; n++ }
	/^};$/ { cur = "" }
	{ print }
	END { print "/* " n " structs grown */" }
' uapi/weave_drm.h > "$grown/include/weave_drm.h"
nstructs=$(echo $structs | wc -w)
grep -q "^/\* $nstructs structs grown \*/" "$grown/include/weave_drm.h" > "$log" 2>&1
tap_result $? "the grown uAPI header appends a field to $nstructs structs"

# The library as the Makefile builds it, but against the grown header
# (weave.h includes "weave_drm.h", found on the include path).
$cc -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden -shared \
	-I"$grown/include" -Ilibshim $drm_cflags -o "$grown/lib/libweave.so.1" \
	libshim/*.c -Wl,-soname,libweave.so.1 \
	-Wl,--version-script=libshim/libweave.map -Wl,--no-undefined \
	$drm_libs > "$log" 2>&1
tap_result $? "libweave.so.1 builds against the grown uAPI header"

# ioctl() is the program's own, and libdrm must find it.
$cc -O2 -g -Wall -Wextra -Werror -Iuapi -Ilibshim $drm_cflags \
	-o "$out/abi_client" tests/abi/abi_client.c -L"$build/lib" -lweave \
	$drm_libs -ldl -Wl,--export-dynamic-symbol=ioctl > "$log" 2>&1
tap_result $? "tests/abi/abi_client.c builds against today's weave.h"

for lib in "$build/lib" "$grown/lib"; do
	LD_LIBRARY_PATH=$lib timeout 60 "$out/abi_client" > "$log" 2>&1
	st=$?
	sed 's/^/# /' "$log"
	# Its output, nested TAP, is the diagnostics, printed before.
	desc="abi_client against $lib/libweave.so.1"
	[ $st -eq 0 ] || desc="$desc (exit $st)"
	tap_point $st "$desc"
done
