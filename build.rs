//! The game modules in games/ are embedded in the binary (include_dir):
//! rebuild when any file there changes, is added or is removed.
fn main() {
    println!("cargo:rerun-if-changed=games");
    println!("cargo:rerun-if-changed=templates");
}
