#![no_main]
//! Fuzz target `orders`: adjutant::fuzzing::orders (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::orders(data));
