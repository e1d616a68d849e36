#![no_main]
//! Fuzz target `journal`: adjutant::fuzzing::journal (fuzz/README.md). An
//! `Err` is a bug found (the canonical reader took a non-canonical text).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| {
    if let Err(bug) = adjutant::fuzzing::journal(data) {
        panic!("{bug}");
    }
});
