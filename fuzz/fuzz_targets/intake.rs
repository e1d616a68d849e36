#![no_main]
//! Fuzz target `intake`: adjutant::fuzzing::intake (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::intake(data));
