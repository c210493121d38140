# TAP output for the test and check scripts: sourced, POSIX sh.
# SPDX-License-Identifier: GPL-2.0-only
#
# tap_plan COUNT prints the version line and the plan.  tap_point STATUS
# DESCRIPTION prints the next test point, "ok" if STATUS is 0, else
# "not ok"; tap_n counts them.  tap_result STATUS DESCRIPTION is
# tap_point, and on a failure prints the file $tap_log as diagnostics
# ("# " before each line): its last $tap_tail lines, or all of it when
# tap_tail is empty.  A script whose plan comes last writes its points to
# a file of its own and prints the plan with tap_n when it is done.
tap_n=0
tap_log=/dev/null
tap_tail=

# tap_plan COUNT
tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

# tap_point STATUS DESCRIPTION
tap_point() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n $2"
	else
		echo "not ok $tap_n $2"
	fi
}

# tap_result STATUS DESCRIPTION
tap_result() {
	tap_point "$1" "$2"
	[ "$1" -eq 0 ] && return 0
	if [ -n "$tap_tail" ]; then
		tail -n "$tap_tail" "$tap_log"
	else
		cat "$tap_log"
	fi | sed 's/^/# /'
}
