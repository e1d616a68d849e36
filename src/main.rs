//! The `adjutant` binary: everything is in `cli::run`.

mod cli;

/// mimalloc rather than the system's malloc: the rules engine makes and
/// drops millions of small strings, vectors and maps per selfplay run, and
/// glibc's malloc and free were about a third of its instructions (issue
/// 11). What is allocated never decides anything (no address is hashed
/// or ordered), so the allocator changes no output.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Transparent huge pages off for this process: each command lives a
    // few milliseconds and touches a few megabytes, and with THP on
    // ("always", as many distributions set it) every first touch of a
    // fresh 2 MiB region by the allocator (one per thread, per size class)
    // had the kernel zero all of it: a fifth of a `resolve`'s CPU time
    // (issue 11). Without, it zeroes the 4 KiB pages actually used. No
    // output depends on it; where the call fails, nothing changes.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    std::process::exit(cli::run());
}
