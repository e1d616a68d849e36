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
    skip_the_allocators_exit();
    std::process::exit(cli::run());
}

/// mimalloc's `destroy_on_exit` option: the 23rd of its options
/// (`mi_option_e` in mimalloc.h, counted from 0; libmimalloc-sys names no
/// constant for it).
const MI_OPTION_DESTROY_ON_EXIT: std::ffi::c_int = 22;

extern "C" {
    /// mimalloc's `void mi_option_set(mi_option_t option, long value)`, in
    /// the library the `mimalloc` crate links.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// At exit, mimalloc handed back to the system, 64 KiB at a time, every
/// page the command had used (some 80 `madvise` calls after a `resolve`),
/// just before the system took the whole process back anyway: 2% of a
/// `resolve`'s CPU time (issue 11). A `destroy_on_exit` above 1 tells it to
/// do nothing at exit (mimalloc's `_mi_auto_process_done`). No output
/// depends on it.
fn skip_the_allocators_exit() {
    // SAFETY: sets one integer option of the allocator, before any thread
    // but this one exists; takes no pointer.
    unsafe { mi_option_set(MI_OPTION_DESTROY_ON_EXIT, 2) };
}
