//! Build script of weave-sys: generates the bindings of `uapi/weave_drm.h`
//! and `libshim/weave.h` with bindgen, compiles the C shim of weave.h's
//! inline helpers, and links libweave statically.

use std::env;
use std::path::PathBuf;
use std::process::Command;

/// The project's root: two levels above this crate, or `WEAVE_SRC_DIR`.
fn source_root() -> PathBuf {
    match env::var_os("WEAVE_SRC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap()).join("../.."),
    }
}

/// The include directories of libdrm (for drm.h), from pkg-config.
fn drm_includes() -> Vec<PathBuf> {
    let out = Command::new("pkg-config")
        .args(["--cflags-only-I", "libdrm"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    match out {
        Some(o) => String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .filter_map(|f| f.strip_prefix("-I"))
            .map(PathBuf::from)
            .collect(),
        None => vec![PathBuf::from("/usr/include/libdrm")],
    }
}

fn main() {
    let root = source_root();
    let uapi = root.join("uapi");
    let libshim = root.join("libshim");
    // libweave.a, as the project's Makefile builds it (make lib).
    let libdir = env::var_os("WEAVE_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("build/lib"));
    let mut includes = vec![uapi.clone(), libshim.clone()];
    includes.extend(drm_includes());

    for f in [
        uapi.join("weave_drm.h"),
        libshim.join("weave.h"),
        libdir.join("libweave.a"),
        PathBuf::from("shim.c"),
        PathBuf::from("shim.h"),
    ] {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-env-changed=WEAVE_SRC_DIR");
    println!("cargo:rerun-if-env-changed=WEAVE_LIB_DIR");

    let mut shim = cc::Build::new();
    shim.file("shim.c").warnings(true).extra_warnings(true);
    for dir in &includes {
        shim.include(dir);
    }
    shim.compile("weave_sys_shim");

    // Static: a test binary built on the host then runs in the VM lane,
    // and anywhere else, with no library path or rpath to get right.
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=static=weave");
    println!("cargo:rustc-link-lib=drm");

    let mut builder = bindgen::Builder::default()
        .header("shim.h")
        .allowlist_function("weave_.*")
        .allowlist_type("drm_weave_.*|weave_.*")
        .allowlist_var("DRM_WEAVE_.*|WEAVE_.*")
        .derive_default(true)
        .size_t_is_usize(true)
        .prepend_enum_name(false)
        .layout_tests(true);
    for dir in &includes {
        builder = builder.clang_arg(format!("-I{}", dir.display()));
    }
    let bindings = builder.generate().expect("bindgen failed on shim.h");
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap()).join("bindings.rs");
    bindings
        .write_to_file(out)
        .expect("cannot write bindings.rs");
}
