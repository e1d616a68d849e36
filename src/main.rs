//! The `adjutant` binary: everything is in `cli::run`.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
