#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Which goals set the machine up: on a copy of the tree whose
# scripts/setup.sh only records that it ran (and fails), with a cache
# folder that does not exist, `make -n`, `make clean`, `make lint`,
# `make doc` and their dry runs must never run it; `make setup`,
# `make demo`, `make check`, `make bench` and `make module` must.
# Prints TAP.
#
# Usage: tests/build/no-setup.sh BUILD_DIR
set -u
. "$(dirname "$0")/tap.sh"
build=${1:?usage: no-setup.sh BUILD_DIR}
out=$(pwd)/$build/no-setup
tree=$out/tree
ran=$out/setup-ran
log=$out.log
tap_log=$log
tap_tail=20

rm -rf "$out"
mkdir -p "$tree"
tar -c --exclude=./build --exclude=./.cache --exclude=./.git . |
	tar -x -C "$tree"
cat > "$tree/scripts/setup.sh" <<END
#!/bin/sh
echo "setup.sh \$*" >> "$ran"
exit 1
END

never="-n|-n clean|clean|-n lint|lint|-n doc|doc|-n check|-n demo|-n all"
always="setup|demo|check|bench|module"
tap_plan $(( $(echo "$never|$always" | tr '|' '\n' | wc -l) ))

# try ARGS: runs make ARGS in the copy; returns 0 if setup.sh ran.
try() {
	rm -f "$ran"
	# Not the flags of the make that runs this test.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 300 \
		make -C "$tree" CACHE="$out/no-cache" $1 > "$log" 2>&1
	[ -f "$ran" ]
}

IFS='|'
for args in $never; do
	unset IFS
	try "$args"
	tap_result $((! $?)) "make $args does not run setup.sh"
	IFS='|'
done
for args in $always; do
	unset IFS
	try "$args"
	tap_result $? "make $args runs setup.sh"
	IFS='|'
done
unset IFS
