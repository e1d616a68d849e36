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

/// Every page reads cleanly with groff's warnings all on: no raw UTF-8 (a
/// character past ASCII is `\[uXXXX]`), no escape broken by upper-casing a
/// heading (`\fB` read as `\FB`, a font family).
#[test]
fn groff_reads_every_page_without_a_warning() {
    let Ok(version) = std::process::Command::new("groff").arg("--version").output() else {
        eprintln!("SKIPPED: groff is not installed, so the man pages' roff is not checked (apt-get install groff)");
        return;
    };
    assert!(version.status.success());
    let man = repo_root().join("man");
    let mut pages: Vec<_> = std::fs::read_dir(&man)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "1" || e == "5"))
        .collect();
    pages.sort();
    assert!(pages.len() > 20, "{} pages", pages.len());
    for page in &pages {
        let out = std::process::Command::new("groff").args(["-ww", "-man", "-Tutf8"]).arg(page).output().unwrap();
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && warnings.is_empty(), "{}:\n{warnings}", page.display());
        let text = std::fs::read_to_string(page).unwrap();
        assert!(text.is_ascii(), "{}: raw UTF-8", page.display());
        assert!(!text.contains("\\F"), "{}: \\F (an upper-cased \\f escape?)", page.display());
    }
}
