#![no_main]
//! Fuzz target `intake`: adjutant::fuzzing::intake (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::intake(data));
