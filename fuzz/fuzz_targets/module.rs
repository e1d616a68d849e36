#![no_main]
//! Fuzz target `module`: adjutant::fuzzing::module_patch, a patch on the
//! small test module (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::module_patch(data));
