//! Raw bindings to libweave and the weave DRM uAPI.
//!
//! Generated at build time by bindgen from `uapi/weave_drm.h` and
//! `libshim/weave.h`; libweave is linked statically.  weave.h's `static
//! inline` helpers have out-of-line copies named `weave_sys_*` (the crate's
//! `shim.c`).  Every function here is `unsafe`: the `weave` crate is the
//! safe API over them.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
#![allow(missing_docs, clippy::all)]
// The items' docs are the headers' kernel-doc, whose brackets are not links.
#![allow(rustdoc::broken_intra_doc_links)]

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::mem::size_of;

    /// The C compiler's size of a struct, through the shim.
    fn c_size(name: &str) -> usize {
        let name = CString::new(name).unwrap();
        // SAFETY: weave_sys_sizeof only reads the NUL-terminated string,
        // which lives until the call returns.
        unsafe { weave_sys_sizeof(name.as_ptr()) }
    }

    #[test]
    fn struct_sizes_match_the_c_compiler() {
        let cases: &[(&str, usize)] = &[
            ("drm_weave_device_info", size_of::<drm_weave_device_info>()),
            (
                "drm_weave_memory_usage",
                size_of::<drm_weave_memory_usage>(),
            ),
            (
                "drm_weave_client_usage",
                size_of::<drm_weave_client_usage>(),
            ),
            ("drm_weave_binding", size_of::<drm_weave_binding>()),
            ("drm_weave_task", size_of::<drm_weave_task>()),
            ("drm_weave_sync", size_of::<drm_weave_sync>()),
            ("drm_weave_enqueue", size_of::<drm_weave_enqueue>()),
            (
                "drm_weave_stream_query",
                size_of::<drm_weave_stream_query>(),
            ),
            ("drm_weave_check_range", size_of::<drm_weave_check_range>()),
            ("drm_weave_failure", size_of::<drm_weave_failure>()),
            (
                "drm_weave_failure_task",
                size_of::<drm_weave_failure_task>(),
            ),
            ("drm_weave_capture", size_of::<drm_weave_capture>()),
        ];
        for &(name, rust) in cases {
            assert_eq!(c_size(name), rust, "size of struct {}", name);
        }
    }

    #[test]
    fn unknown_struct_name_has_no_size() {
        assert_eq!(c_size("drm_weave_nothing"), 0);
    }

    #[test]
    fn task_layout_is_the_uapi_one() {
        // Fixed by the ABI: 8-byte fields at 8-byte offsets, no holes.
        assert_eq!(size_of::<drm_weave_binding>(), 24);
        assert_eq!(size_of::<drm_weave_sync>(), 16);
        assert_eq!(size_of::<drm_weave_failure_task>(), 32);
    }

    #[test]
    fn library_version_is_the_header_one() {
        // SAFETY: weave_version takes no argument and touches no state.
        let v = unsafe { weave_version() };
        assert_eq!(
            v,
            (WEAVE_VERSION_MAJOR << 16) | (WEAVE_VERSION_MINOR << 8) | WEAVE_VERSION_PATCH
        );
    }
}
