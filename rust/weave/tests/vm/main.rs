//! The crate's integration tests against weave.ko, run in the VM lane as
//! the kselftest suite `rust`: a TAP runner of its own (harness = false)
//! that prints one result per test, as kselftest's harness does.
//!
//! Each test is a function that panics to fail; a panic's message goes to
//! the output as a TAP comment.  Arguments, if any, run only the tests
//! whose names contain one of them.

/// A module's table of tests, `TESTS`, each named `module.function`.
macro_rules! tests {
    ($module:literal: $($f:ident),* $(,)?) => {
        pub const TESTS: &[crate::Test] = &[$((concat!($module, ".", stringify!($f)), $f)),*];
    };
}

mod backend;
mod capture;
mod failures;
mod lifetime;
mod ordering;
mod threads;
mod util;

use std::panic;
use std::process::ExitCode;

/// A test: its name and its body.
pub type Test = (&'static str, fn());

fn main() -> ExitCode {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let tests: Vec<Test> = [
        ordering::TESTS,
        failures::TESTS,
        capture::TESTS,
        lifetime::TESTS,
        threads::TESTS,
        backend::TESTS,
    ]
    .concat()
    .into_iter()
    .filter(|(name, _)| only.is_empty() || only.iter().any(|o| name.contains(o.as_str())))
    .collect();

    // A failed assertion, in the test's thread or one it spawned, as TAP
    // comments on stdout, in line with the results.
    panic::set_hook(Box::new(|info| {
        for line in info.to_string().lines() {
            println!("# {}", line);
        }
    }));
    println!("TAP version 13");
    println!("1..{}", tests.len());
    let mut failed = 0;
    for (n, (name, body)) in tests.iter().enumerate() {
        println!("#  RUN  {}", name);
        let ok = panic::catch_unwind(body).is_ok();
        failed += usize::from(!ok);
        println!("{} {} {}", if ok { "ok" } else { "not ok" }, n + 1, name);
    }
    println!(
        "# Totals: pass:{} fail:{} xfail:0 xpass:0 skip:0 error:0",
        tests.len() - failed,
        failed
    );
    if failed == 0 && !tests.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
