#![no_main]
//! Fuzz target `module_play`: adjutant::fuzzing::module_play_patch, the
//! `module` target's patched module and then each side's template at
//! set-up (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::module_play_patch(data));
