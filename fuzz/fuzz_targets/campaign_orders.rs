#![no_main]
//! Fuzz target `campaign_orders`: adjutant::fuzzing::campaign_orders (fuzz/README.md).

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|data: &[u8]| adjutant::fuzzing::campaign_orders(data));
