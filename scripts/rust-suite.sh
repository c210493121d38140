#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs the Rust crate's integration tests (rust/weave/tests/vm, which
# print TAP) as the VM lane's kselftest suite `rust`: builds the test
# binary with Debian's cargo (scripts/cargo.sh), picks its path out of
# cargo's JSON messages and copies it to OUT.  The binary links libweave
# statically, so it runs in the guest's chroot of the host's root.
#
# Usage: scripts/rust-suite.sh BUILD_DIR OUT
set -eu
build=${1:?usage: rust-suite.sh BUILD_DIR OUT}
out=${2:?usage: rust-suite.sh BUILD_DIR OUT}
exe=$(BUILD_DIR=$build "$(dirname "$0")/cargo.sh" test -p weave --test vm \
	--no-run --message-format=json | python3 -c '
import json, sys
exes = set()
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    reason = msg.get("reason")
    if reason == "compiler-message":
        sys.stderr.write(msg["message"].get("rendered") or "")
    elif reason == "build-finished" and not msg.get("success"):
        sys.exit("rust-suite.sh: cargo test --no-run failed")
    elif (reason == "compiler-artifact"
            and msg["target"]["name"] == "vm" and msg.get("executable")):
        exes.add(msg["executable"])
if len(exes) != 1:
    sys.exit("rust-suite.sh: cargo named %d test binaries for vm" % len(exes))
print(exes.pop())
')
mkdir -p "$(dirname "$out")"
cp "$exe" "$out.tmp"
mv -f "$out.tmp" "$out"
