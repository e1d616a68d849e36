//! `man/` is generated from the command line's definition; this fails when
//! someone changes a command without running `cargo run -- generate`.

mod common;
use common::*;

#[test]
fn man_pages_and_completions_are_up_to_date() {
    let man = repo_root().join("man");
    let out = run(&repo_root(), &["generate", "--check", "--out", man.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for page in ["adjutant.1", "adjutant-roll.1", "adjutant-dice-rolls.1", "completions/adjutant.bash"] {
        assert!(man.join(page).is_file(), "{page}");
    }
}

#[test]
fn the_check_notices_a_stale_or_extra_page() {
    let dir = temp();
    let out = dir.path().join("man");
    run(dir.path(), &["generate", "--out", "man"]).ok();
    run(dir.path(), &["generate", "--check", "--out", "man"]).ok();
    std::fs::write(out.join("adjutant-roll.1"), "old").unwrap();
    let err = run(dir.path(), &["generate", "--check", "--out", "man"]).fails(1);
    assert!(err.contains("adjutant-roll.1"), "{err}");
    run(dir.path(), &["generate", "--out", "man"]).ok();
    std::fs::write(out.join("adjutant-gone.1"), "old").unwrap();
    let err = run(dir.path(), &["generate", "--check", "--out", "man"]).fails(1);
    assert!(err.contains("adjutant-gone.1"), "{err}");
}
