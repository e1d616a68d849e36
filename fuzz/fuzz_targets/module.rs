#![no_main]
//! Fuzz target `module`: adjutant::fuzzing::module (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::module(data));
