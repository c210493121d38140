//! Safe Rust API for weave, the kernel's multi-stream GPU task scheduler.
#![deny(missing_docs)]
