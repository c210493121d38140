#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks a syzkaller tree before make syz or make syz-check builds from
# it: that it is one (go.mod names github.com/google/syzkaller), that its
# revision is known (a .commit file holding the commit's hash, or a git
# checkout of its own; else syzkaller names its build "unknown" and
# syz-manager refuses to run, "bad syz-manager build"), that it vendors
# its Go modules (vendor/modules.txt: nothing is downloaded here), and
# that the Go toolchain is 1.22.  Each failure is one line that says how
# to mend it (Documentation/weave-reliability.rst, "The syzkaller tree").
#
# The toolchain: GO if set, else the first of `go` on PATH and
# /usr/lib/go-1.22/bin/go (Debian's golang-1.22-go) that is Go 1.22.
#
# --env prints, once the tree passes, SYZ_REV=... and SYZ_GO=... for the
# scripts that build from it to eval.  --self-test checks the check on
# small trees it makes, with a stand-in `go` that only says its version.
#
# Usage: scripts/syz-tree.sh [--env] SYZKALLER_DIR
#        scripts/syz-tree.sh --self-test
# Exit status: 0 good, 1 not, 77 no Go toolchain at all (GO unset, none
# on PATH nor in /usr/lib/go-1.22).
set -u
doc='Documentation/weave-reliability.rst, "The syzkaller tree"'
go122=/usr/lib/go-1.22/bin/go

fail() {
	echo "syz-tree: $*" >&2
	exit 1
}

# is_go122 GO: GO runs and says it is Go 1.22.
is_go122() {
	"$1" version 2>/dev/null | grep -q ' go1\.22\([^0-9]\|$\)'
}

# check DIR [env]: the check itself; prints the tree's figures, or with
# "env" the variables.
check() {
	syz=$1
	[ -d "$syz" ] || fail "$syz: no such directory (SYZKALLER=DIR names a syzkaller tree: $doc)"
	syz=$(cd "$syz" && pwd -P)
	head -n 1 "$syz/go.mod" 2>/dev/null | grep -q '^module github.com/google/syzkaller$' ||
		fail "$syz is no syzkaller tree (its go.mod does not name github.com/google/syzkaller): $doc"

	# The revision.  A git checkout counts only if the tree is its top:
	# a tree under another repository (.cache/syzkaller) would get that
	# repository's commit.
	rev=
	if [ -f "$syz/.commit" ]; then
		rev=$(head -n 1 "$syz/.commit" | tr -d ' \t\r')
		echo "$rev" | grep -qx '[0-9a-f]\{7,40\}' ||
			fail "$syz/.commit holds \"$rev\", not a commit's hash: write the full hash of the commit the tree was made from (git rev-parse 7b4377ad9^ in syzkaller's repository) into it ($doc)"
	elif [ "$(git -C "$syz" rev-parse --show-toplevel 2>/dev/null)" = "$syz" ]; then
		rev=$(git -C "$syz" rev-parse HEAD 2>/dev/null) ||
			fail "$syz is a git checkout without a commit: check out syzkaller's 475a4c203 ($doc)"
	else
		fail "$syz has no .commit and is no git checkout, so syzkaller would name its build \"unknown\" and syz-manager would stop at once (\"bad syz-manager build\"): write the full hash of the commit the tree was made from (git rev-parse 7b4377ad9^ in syzkaller's repository) into $syz/.commit ($doc)"
	fi

	[ -f "$syz/vendor/modules.txt" ] ||
		fail "$syz does not vendor its Go modules (no vendor/modules.txt), and nothing can be downloaded here: use syzkaller of January 2025, 475a4c203, the parent of 7b4377ad9 which removed vendor/ ($doc)"

	if [ -n "${GO:-}" ]; then
		go=$GO
		[ -x "$go" ] || fail "GO=$go is no program: unset GO, or name Go 1.22's (e.g. GO=$go122)"
		is_go122 "$go" ||
			fail "GO=$go is $("$go" version 2>&1 | head -n 1), not Go 1.22: apt-get install -t bookworm-backports golang-1.22-go, then GO=$go122 ($doc)"
	else
		go=
		seen=
		for g in $(command -v go) $go122; do
			[ -x "$g" ] || continue
			if is_go122 "$g"; then
				go=$g
				break
			fi
			seen="$seen $g ($("$g" version 2>&1 | head -n 1))"
		done
		if [ -z "$go" ] && [ -z "$seen" ]; then
			echo "syz-tree: no Go toolchain (no go on PATH, no $go122): apt-get install -t bookworm-backports golang-1.22-go ($doc)" >&2
			exit 77
		fi
		[ -n "$go" ] ||
			fail "no Go 1.22, only$seen: apt-get install -t bookworm-backports golang-1.22-go (it installs $go122), or set GO= ($doc)"
	fi

	if [ "${2:-}" = env ]; then
		echo "SYZ_REV=$rev"
		echo "SYZ_GO=$go"
	else
		echo "syz-tree: $syz: syzkaller $rev, modules vendored, $("$go" version)"
	fi
}

if [ "${1:-}" != --self-test ]; then
	if [ "${1:-}" = --env ]; then
		[ $# -eq 2 ] || { echo "usage: $0 [--env] SYZKALLER_DIR" >&2; exit 1; }
		check "$2" env
	else
		[ $# -eq 1 ] || { echo "usage: $0 [--env] SYZKALLER_DIR" >&2; exit 1; }
		check "$1"
	fi
	exit 0
fi

# The self-test: a tree made of what the check reads, a stand-in go of
# each version, and each flaw planted alone.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
mkdir -p "$tmp/bin119" "$tmp/bin122"
for v in 1.19.8 1.22.12; do
	b=$tmp/bin$(echo "$v" | sed 's/\.//; s/\..*//')
	printf '#!/bin/sh\necho "go version go%s linux/amd64"\n' "$v" > "$b/go"
	chmod +x "$b/go"
done

# tree NAME: a good tree at $tmp/NAME.
tree() {
	t=$tmp/$1
	mkdir -p "$t/vendor"
	printf 'module github.com/google/syzkaller\n\ngo 1.22\n' > "$t/go.mod"
	echo '# github.com/google/go-cmp v0.6.0' > "$t/vendor/modules.txt"
	echo 0123456789abcdef0123456789abcdef01234567 > "$t/.commit"
}

# expect STATUS WHAT SAYS CMD...: CMD exits STATUS, and its output holds
# SAYS.
expect() {
	want=$1 what=$2 says=$3
	shift 3
	out=$("$@" 2>&1)
	st=$?
	if [ "$st" -eq "$want" ] && echo "$out" | grep -q -- "$says"; then
		echo "ok: $what: $out"
	else
		echo "FAILED: $what: status $st (wanted $want), output:"
		echo "$out"
		fails=$((fails + 1))
	fi
}

me=$0
tree good
expect 0 "a good tree passes" "syzkaller 0123456789abcdef" \
	env -u GO PATH="$tmp/bin122:$PATH" "$me" "$tmp/good"
expect 0 "--env names the revision and the toolchain" "SYZ_GO=$tmp/bin122/go" \
	env -u GO PATH="$tmp/bin122:$PATH" "$me" --env "$tmp/good"
expect 0 "GO= names the toolchain" "go1.22.12" \
	env GO="$tmp/bin122/go" "$me" "$tmp/good"

tree nocommit
rm "$tmp/nocommit/.commit"
expect 1 "a tree without .commit fails" "has no .commit" \
	env GO="$tmp/bin122/go" "$me" "$tmp/nocommit"
tree badcommit
echo unknown > "$tmp/badcommit/.commit"
expect 1 "a .commit that is no hash fails" "not a commit's hash" \
	env GO="$tmp/bin122/go" "$me" "$tmp/badcommit"
tree novendor
rm -r "$tmp/novendor/vendor"
expect 1 "a tree without vendor/ fails" "does not vendor" \
	env GO="$tmp/bin122/go" "$me" "$tmp/novendor"
tree notsyz
echo 'module example.com/other' > "$tmp/notsyz/go.mod"
expect 1 "another Go project fails" "is no syzkaller tree" \
	env GO="$tmp/bin122/go" "$me" "$tmp/notsyz"
expect 1 "a missing directory fails" "no such directory" \
	env GO="$tmp/bin122/go" "$me" "$tmp/absent"
expect 1 "Go 1.19 fails" "not Go 1.22" \
	env GO="$tmp/bin119/go" "$me" "$tmp/good"
if [ ! -x $go122 ]; then
	expect 1 "Go 1.19 on PATH, and no other, fails" "no Go 1.22, only $tmp/bin119/go" \
		env -u GO PATH="$tmp/bin119:$PATH" "$me" "$tmp/good"
fi
expect 1 "GO= naming no program fails" "is no program" \
	env GO="$tmp/absent/go" "$me" "$tmp/good"
if command -v git > /dev/null; then
	tree checkout
	rm "$tmp/checkout/.commit"
	git -C "$tmp/checkout" init -q &&
		git -C "$tmp/checkout" -c user.name=t -c user.email=t@t \
			commit -q --allow-empty -m t
	rev=$(git -C "$tmp/checkout" rev-parse HEAD)
	expect 0 "a git checkout without .commit passes" "SYZ_REV=$rev" \
		env GO="$tmp/bin122/go" "$me" --env "$tmp/checkout"
	mkdir -p "$tmp/checkout/inner"
	tree checkout/inner
	rm "$tmp/checkout/inner/.commit"
	expect 1 "a tree inside another checkout, without .commit, fails" \
		"has no .commit" env GO="$tmp/bin122/go" "$me" "$tmp/checkout/inner"
fi
[ "$fails" -eq 0 ]
