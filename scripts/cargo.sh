#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs Debian's cargo on the Rust workspace (rust/), whatever PATH says: a
# rustup toolchain may stand first in it, so cargo, rustc, rustdoc, rustfmt
# and clippy are called from /usr/bin.  Crates come from Debian's registry,
# offline (rust/.cargo/config.toml); cargo's home and target folders live
# under BUILD_DIR/rust (default build/rust), so no user config is read.
#
# Usage: scripts/cargo.sh CARGO_ARGS...   (BUILD_DIR=DIR to move the output)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ ! -x /usr/bin/cargo ] || [ ! -x /usr/bin/rustc ]; then
	echo "cargo.sh: Debian's cargo-web and rustc-web are missing: run 'make setup'" >&2
	exit 1
fi
CARGO_HOME=$build/rust/home
CARGO_TARGET_DIR=$build/rust
CARGO=/usr/bin/cargo
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
RUSTFMT=/usr/bin/rustfmt
PATH=/usr/bin:/bin:$PATH
export CARGO_HOME CARGO_TARGET_DIR CARGO RUSTC RUSTDOC RUSTFMT PATH
unset RUSTC_WRAPPER RUSTUP_TOOLCHAIN CARGO_BUILD_TARGET
cd "$root/rust"
exec /usr/bin/cargo "$@"
