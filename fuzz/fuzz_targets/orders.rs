#![no_main]
//! Fuzz target `orders`: adjutant::fuzzing::orders (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::orders(data));
