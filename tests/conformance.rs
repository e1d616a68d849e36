//! Every conformance case in tests/cases passes, and the coverage table in
//! docs/conformance-cases.md says how many cases each rule number has.

mod common;
use common::*;

use std::collections::BTreeMap;
use std::path::PathBuf;

fn case_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = all_files(&repo_root().join("tests/cases"))
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_case_passes() {
    let files = case_files();
    assert!(files.len() >= 15, "only {} cases", files.len());
    let mut failed = Vec::new();
    for file in &files {
        let label = file.display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        match adjutant::game::modules::run_case(file, &label, &text) {
            Ok(o) if o.passed => {}
            Ok(o) => failed.push(format!("{}: {}", o.file, o.failures.join("; "))),
            Err(e) => failed.push(format!("{}: {e}", file.display())),
        }
    }
    assert!(failed.is_empty(), "{} cases fail:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn the_command_runs_cases_and_says_pass_or_fail() {
    let out = run(&repo_root(), &["case", "run", "tests/cases"]).ok();
    assert!(out.lines().last().unwrap().ends_with("passed, 0 failed"), "{out}");
    // A case whose expectation is wrong fails, exit 1, and says why.
    let dir = temp();
    let text = std::fs::read_to_string(repo_root().join("tests/cases/rally/15-2-disrupted-unit-passes.yaml"))
        .unwrap()
        .replace(
            "module: ../../modules/small",
            &format!("module: {}", repo_root().join("tests/modules/small").display()),
        )
        .replace("dice: [4]", "dice: [3]");
    std::fs::write(dir.path().join("wrong.yaml"), text).unwrap();
    let result = run(dir.path(), &["case", "run", "wrong.yaml"]);
    assert_eq!(result.code, 1);
    assert!(
        result.stdout.contains("FAIL wrong.yaml") && result.stdout.contains("passed expected true"),
        "{}",
        result.stdout
    );
}

#[test]
fn the_coverage_table_is_current() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for file in case_files() {
        let case: adjutant::base::yaml::Value =
            adjutant::base::yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for rule in case["rules"].as_sequence().unwrap() {
            *counts.entry(rule.as_str().unwrap().to_string()).or_default() += 1;
        }
    }
    let doc = std::fs::read_to_string(repo_root().join("docs/conformance-cases.md")).unwrap();
    let table: String = counts.iter().map(|(rule, n)| format!("| {rule} | {n} |\n")).collect();
    assert!(doc.contains(&table), "docs/conformance-cases.md should have this coverage table:\n{table}");
}
