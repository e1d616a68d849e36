//! `adjutant demo`, the README's first command.

mod common;
use common::*;

#[test]
fn the_demo_runs_and_verifies() {
    let dir = temp();
    let out = run(dir.path(), &["demo"]).ok();
    assert!(out.contains("verified") && out.contains("4 steps and 6 rolls"), "{out}");
    assert!(out.contains("(the logged rolls)"), "{out}");
    assert!(out.contains("FAILED") && out.contains("journal/000002.yaml"), "{out}");
    let kept = dir.path().join("kept");
    let json = run(dir.path(), &["demo", "--keep", kept.to_str().unwrap(), "--format", "json"]).json();
    assert_eq!(json["verified"]["ok"], true);
    assert_eq!(json["forged"]["failure"]["entry"], "journal/000002.yaml");
    run(dir.path(), &["verify", "--dir", kept.join("rolls").to_str().unwrap()]).ok();
    run(dir.path(), &["verify", "--dir", kept.join("savannah").to_str().unwrap()]).ok();
}
