//! The layers of shared/design/ARCHITECTURE.md, read from the sources: a
//! path `crate::X` (in a `use` line or inline, outside comments) in a file
//! of one layer that names a layer above it fails this test.
//!
//! The layers, from the top: `cli/` (the binary), `mail/`, `report/`,
//! `game/` (the shell), `system.rs` (the seam), `systems/` (the rules),
//! `base/` (leaves). The arrows checked:
//!
//! - nothing in `src/system.rs`, under `src/systems/` or under `src/base/`
//!   names `game`, `mail`, `report` or `cli`; `src/base/` names nothing of
//!   the crate outside `base/`;
//! - nothing outside `src/system.rs` (the registry) and `src/systems/`
//!   names a system (`systems::gboar`, or any other);
//! - no file of `src/systems/gboar/phases/` names another file of `phases/`.
//!
//! The binary still reaches into GBoAR in the files of [`DEBT`] (issue 12:
//! the commands that are GBoAR's alone): each entry is a file and the
//! layer it may still name. The list is exact both ways: a new
//! arrow fails, and so does an entry that no longer holds, so that the list
//! only shrinks.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// (file under src/, what it may still name) — arrows the move has not cut yet.
const DEBT: &[(&str, &str)] = &[
    // Commands of the binary that are GBoAR's alone: `map` (a module's
    // board and set-up), `check-game` and `test` (its module checker and
    // conformance cases), `odds` (its close combat) and `selfplay`.
    ("cli/map.rs", "systems::gboar"),
    ("cli/mod.rs", "systems::gboar"),
    ("cli/odds.rs", "systems::gboar"),
    ("cli/selfplay.rs", "systems::gboar"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::a::b::...` path of a source text outside comments, as its
/// segments (`{` ends a path: a grouped import names what precedes it).
/// `root` is `crate::` in the library and `adjutant::` in the binary.
fn crate_paths(text: &str, root: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find(root) {
            let before = rest[..i].chars().last();
            let after = &rest[i + root.len()..];
            let end = after.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(after.len());
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                let segments: Vec<String> =
                    after[..end].split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
                found.push((number + 1, segments));
            }
            rest = &after[end..];
        }
    }
    found
}

/// The layer a file under src/ is in, by its path.
fn layer_of(relative: &str) -> &'static str {
    let first = relative.split('/').next().unwrap_or("");
    match first {
        "cli" | "main.rs" => "cli",
        "mail" => "mail",
        "report" => "report",
        "game" => "game",
        "system.rs" => "system",
        "systems" => "systems",
        "base" => "base",
        "lib.rs" => "lib",
        _ => "unknown",
    }
}

/// What a path names: its layer, and for `systems::gboar::phases::X` the phase.
fn target_of(segments: &[String]) -> String {
    let s: Vec<&str> = segments.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["systems", name, ..] => format!("systems::{name}"),
        [first, ..] => first.to_string(),
        [] => String::new(),
    }
}

#[test]
fn arrows_point_down_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 50, "the sources are read ({} files)", files.len());
    let mut wrong = Vec::new();
    let mut debt_seen = BTreeSet::new();
    let mut paths_read = 0;
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let layer = layer_of(&relative);
        assert_ne!(layer, "unknown", "{relative}: a file outside every layer of ARCHITECTURE.md");
        let text = fs::read_to_string(file).unwrap();
        let root = if layer == "cli" { "adjutant::" } else { "crate::" };
        for (line, segments) in crate_paths(&text, root) {
            paths_read += 1;
            let target = target_of(&segments);
            let path = segments.join("::");
            let upward = match layer {
                "system" | "systems" | "base" => ["game", "mail", "report", "cli"].contains(&target.as_str()),
                _ => false,
            };
            let outside_base = layer == "base" && !matches!(target.as_str(), "base" | "Error" | "Result");
            let names_a_system = target.starts_with("systems") && !matches!(layer, "system" | "systems");
            let phase_to_phase = relative.starts_with("systems/gboar/phases/") && {
                let own = Path::new(&relative).file_stem().unwrap().to_string_lossy().to_string();
                matches!(segments.get(..3), Some([a, b, c]) if a == "systems" && b == "gboar" && c == "phases")
                    && segments.get(3).is_some_and(|phase| *phase != own)
            };
            let reason = if phase_to_phase {
                Some("a phase names another phase")
            } else if upward || outside_base {
                Some("an arrow up")
            } else if names_a_system {
                Some("only system.rs names a system")
            } else {
                None
            };
            let Some(reason) = reason else { continue };
            if !phase_to_phase && DEBT.contains(&(relative.as_str(), target.as_str())) {
                debt_seen.insert((relative.clone(), target.clone()));
            } else {
                wrong.push(format!("src/{relative}:{line}: {root}{path} ({reason}: a {layer} file names {target})"));
            }
        }
    }
    assert!(paths_read > 300, "crate paths are found ({paths_read})");
    assert!(wrong.is_empty(), "arrows pointing the wrong way:\n{}", wrong.join("\n"));
    let stale: Vec<_> =
        DEBT.iter().filter(|(file, target)| !debt_seen.contains(&(file.to_string(), target.to_string()))).collect();
    assert!(stale.is_empty(), "DEBT lists arrows that no longer exist (remove them): {stale:?}");
}

#[test]
fn the_path_reader_sees_what_it_must() {
    let text = "use crate::game::folder::GameFolder; // crate::cli in a comment\n\
                let x = crate::systems::gboar::phases::fire::run(); notcrate::x;\n\
                use crate::base::{dice, hex};\n";
    let paths = crate_paths(text, "crate::");
    let shown: Vec<String> = paths.iter().map(|(l, s)| format!("{l}:{}", s.join("::"))).collect();
    assert_eq!(shown, ["1:game::folder::GameFolder", "2:systems::gboar::phases::fire::run", "3:base"]);
    assert_eq!(target_of(&paths[1].1), "systems::gboar");
    assert_eq!(layer_of("systems/gboar/phases/fire.rs"), "systems");
    assert_eq!(layer_of("cli/mod.rs"), "cli");
    let binary = crate_paths("use adjutant::systems::gboar::odds;\nlet e = adjutant::Error::usage(x);\n", "adjutant::");
    assert_eq!(binary.len(), 2);
    assert_eq!(target_of(&binary[0].1), "systems::gboar");
}
