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
    std::process::exit(cli::run());
}
