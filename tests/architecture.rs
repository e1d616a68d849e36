//! The layers of shared/design/ARCHITECTURE.md, read from the sources: a
//! path `crate::X` (in a `use` line or inline, outside comments) in a file
//! of one layer that names a layer above it fails this test.
//!
//! The layers, from the top: `cli/` (the binary), `fuzzing.rs` (the fuzz
//! targets' bodies), `mail/`, `report/`,
//! `game/` (the shell), `system.rs` (the seam), `systems/` (the rules),
//! `base/` (leaves). The arrows checked:
//!
//! - nothing in `src/system.rs`, under `src/systems/` or under `src/base/`
//!   names `game`, `mail`, `report` or `cli`; `src/base/` names nothing of
//!   the crate outside `base/`;
//! - nothing outside `src/system.rs` (the registry) and `src/systems/`
//!   names a system (`systems::gboar`, or any other);
//! - no phase of `src/systems/gboar/phases/` (a file, or a folder of files)
//!   names another phase (`phases/mod.rs`, which picks the phase of a step,
//!   names them all);
//! - inside GBoAR arrows point down, guide -> phases -> effects -> board ->
//!   data: nothing in `effects/`, `board/` or `data/` names `phases` or
//!   `guide`, nothing in `board/` names `effects`, and `data/` names no
//!   other part of GBoAR.
//!
//! - a system names no other system (`systems::awi` never names
//!   `systems::gboar`, nor the reverse);
//! - inside AWI arrows point down, system/case -> rules -> board -> data:
//!   `data/` names no other part of AWI, `board` names no `rules`, and
//!   `rules/` names neither `system` nor `case`.
//!
//! Inside GBoAR a `super::` path is read too, resolved from the file's
//! module (a `mod tests {` block counts as one level down), so that
//! `super::fire` from a phase is seen as `systems::gboar::phases::fire`.
//!
//! The binary names no system either: its commands that only GBoAR has
//! (`map`, `check-game`, `case run`, `odds`, `selfplay`) reach it through
//! `system.rs` like the rest (issue 12 cut the last of those arrows, and
//! the list of arrows left to cut with them).

use std::fs;
use std::path::{Path, PathBuf};

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

/// Every `super::...` path of a source text outside comments, resolved to
/// a path from the crate root: `module` is the file's module path
/// (`systems::gboar::phases::fire`); between a line `mod NAME {` and a line
/// `}` (both at the start of the line, as rustfmt leaves a file's test
/// module) the text is read as inside that module.
fn super_paths(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let mut inline: Option<String> = None;
    for (number, line) in text.lines().enumerate() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let item = code.trim_start_matches("pub ").trim_start_matches("pub(crate) ");
        if let Some(name) = item.strip_prefix("mod ").and_then(|r| r.trim_end().strip_suffix('{')) {
            inline = Some(name.trim().to_string());
        } else if code.trim_end() == "}" {
            inline = None;
        }
        let mut here: Vec<String> = module.to_vec();
        here.extend(inline.clone());
        let mut rest = code;
        while let Some(i) = rest.find("super::") {
            let before = rest[..i].chars().last();
            let after = &rest[i..];
            let end = after.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(after.len());
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                let mut path = here.clone();
                let mut segments = after[..end].split("::").filter(|s| !s.is_empty()).peekable();
                while segments.peek() == Some(&"super") {
                    segments.next();
                    path.pop();
                }
                path.extend(segments.map(str::to_string));
                found.push((number + 1, path));
            }
            rest = &after[end..];
        }
    }
    found
}

/// The module path of a file under src/ (`systems/gboar/phases/mod.rs` is
/// `systems::gboar::phases`).
fn module_of(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib" || p == "main") {
        parts.pop();
    }
    parts
}

/// Inside GBoAR: the folder of a file (`data`, `board`, `effects`,
/// `phases`, `guide`, or `` for a file at the top), and for a phase, which
/// phase (`phases/movement/path.rs` is `movement`; `phases/mod.rs` none).
fn gboar_part(segments: &[String]) -> Option<(&str, Option<&str>)> {
    match segments {
        [s, g, folder, rest @ ..] if s == "systems" && g == "gboar" => {
            let part = match folder.as_str() {
                "data" | "board" | "effects" | "phases" | "guide" => folder.as_str(),
                _ => "",
            };
            let phase = if part == "phases" { rest.first().map(String::as_str) } else { None };
            Some((part, phase))
        }
        [s, g] if s == "systems" && g == "gboar" => Some(("", None)),
        _ => None,
    }
}

/// Why a path named inside GBoAR points the wrong way, if it does.
fn inside_gboar(from: &[String], to: &[String]) -> Option<&'static str> {
    let (from_part, from_phase) = gboar_part(from)?;
    let (to_part, to_phase) = gboar_part(to)?;
    match (from_part, to_part) {
        ("phases", "phases") => match (from_phase, to_phase) {
            (Some(a), Some(b)) if a != b => Some("a phase names another phase"),
            _ => None,
        },
        ("effects" | "board" | "data", "phases" | "guide") => Some("an arrow up inside GBoAR"),
        ("board", "effects") => Some("an arrow up inside GBoAR"),
        ("data", other) if other != "data" => Some("data/ names another part of GBoAR"),
        _ => None,
    }
}

/// Why a path named from one system's file points the wrong way: at
/// another system, or, inside AWI, up its layers.
fn between_systems(from: &[String], to: &[String]) -> Option<&'static str> {
    let (Some(a), Some(b)) = (system_name(from), system_name(to)) else { return None };
    if a != b {
        return Some("a system names another system");
    }
    if a != "awi" {
        return None;
    }
    let part = |s: &[String]| s.get(2).map(|p| p.trim_end_matches(".rs").to_string()).unwrap_or_default();
    match (part(from).as_str(), part(to).as_str()) {
        ("data", other) if other != "data" && !other.is_empty() => Some("data names another part of AWI"),
        ("board", "rules" | "system" | "case") => Some("an arrow up inside AWI"),
        ("rules", "system" | "case") => Some("an arrow up inside AWI"),
        _ => None,
    }
}

/// The system a module path is in (`systems::awi::...` is `awi`).
fn system_name(segments: &[String]) -> Option<&str> {
    match segments {
        [s, name, ..] if s == "systems" => Some(name.as_str()),
        _ => None,
    }
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
        // The fuzz targets' bodies (fuzz/README.md): the top of the
        // library, beside mail/; like the shell, they name no system.
        "fuzzing.rs" => "fuzzing",
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
            let within = inside_gboar(&module_of(&relative), &segments)
                .or_else(|| between_systems(&module_of(&relative), &segments));
            let reason = if let Some(why) = within {
                Some(why)
            } else if upward || outside_base {
                Some("an arrow up")
            } else if names_a_system {
                Some("only system.rs names a system")
            } else {
                None
            };
            let Some(reason) = reason else { continue };
            wrong.push(format!("src/{relative}:{line}: {root}{path} ({reason}: a {layer} file names {target})"));
        }
    }
    // Inside GBoAR, `super::` paths too.
    let mut super_read = 0;
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        if !relative.starts_with("systems/gboar/") {
            continue;
        }
        let module = module_of(&relative);
        let text = fs::read_to_string(file).unwrap();
        for (line, path) in super_paths(&text, &module) {
            super_read += 1;
            if let Some(why) = inside_gboar(&module, &path) {
                wrong.push(format!("src/{relative}:{line}: {} ({why})", path.join("::")));
            }
        }
    }
    assert!(super_read > 20, "super:: paths are found ({super_read})");
    assert!(paths_read > 300, "crate paths are found ({paths_read})");
    assert!(wrong.is_empty(), "arrows pointing the wrong way:\n{}", wrong.join("\n"));
}

#[test]
fn systems_and_awi_layers_are_checked() {
    let seg = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let awi_rules = module_of("systems/awi/rules/comms.rs");
    assert_eq!(
        between_systems(&awi_rules, &seg("systems::gboar::board::Rules")),
        Some("a system names another system")
    );
    assert_eq!(
        between_systems(&module_of("systems/gboar/board/units.rs"), &seg("systems::awi::data")),
        Some("a system names another system")
    );
    assert_eq!(between_systems(&awi_rules, &seg("systems::awi::system::Rules")), Some("an arrow up inside AWI"));
    assert_eq!(between_systems(&awi_rules, &seg("systems::awi::board::State")), None);
    let awi_data = module_of("systems/awi/data.rs");
    assert_eq!(between_systems(&awi_data, &seg("systems::awi::board::State")), Some("data names another part of AWI"));
    assert_eq!(between_systems(&awi_data, &seg("systems::awi::data::Module")), None);
    assert_eq!(
        between_systems(&module_of("systems/awi/board.rs"), &seg("systems::awi::rules::comms")),
        Some("an arrow up inside AWI")
    );
    assert_eq!(between_systems(&module_of("systems/awi/system.rs"), &seg("systems::awi::rules::comms")), None);
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
    // Inside GBoAR: the folders' arrows, and super:: paths resolved.
    let fire = module_of("systems/gboar/phases/fire.rs");
    assert_eq!(fire.join("::"), "systems::gboar::phases::fire");
    assert_eq!(module_of("systems/gboar/phases/mod.rs").join("::"), "systems::gboar::phases");
    let seg = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        inside_gboar(&fire, &seg("systems::gboar::phases::close_combat::x")),
        Some("a phase names another phase")
    );
    assert_eq!(inside_gboar(&fire, &seg("systems::gboar::phases::fire::x")), None);
    assert_eq!(inside_gboar(&seg("systems::gboar::phases"), &seg("systems::gboar::phases::fire")), None);
    let path = module_of("systems/gboar/phases/movement/path.rs");
    assert_eq!(inside_gboar(&path, &seg("systems::gboar::phases::movement::run")), None);
    assert_eq!(inside_gboar(&path, &seg("systems::gboar::phases::rally")), Some("a phase names another phase"));
    assert_eq!(inside_gboar(&path, &seg("systems::gboar::board::units")), None);
    let board = module_of("systems/gboar/board/units.rs");
    assert_eq!(inside_gboar(&board, &seg("systems::gboar::effects::losses")), Some("an arrow up inside GBoAR"));
    assert_eq!(inside_gboar(&board, &seg("systems::gboar::guide::odds")), Some("an arrow up inside GBoAR"));
    assert_eq!(inside_gboar(&board, &seg("systems::gboar::data::charts")), None);
    let data = module_of("systems/gboar/data/check.rs");
    assert_eq!(inside_gboar(&data, &seg("systems::gboar::board::Rules")), Some("data/ names another part of GBoAR"));
    assert_eq!(inside_gboar(&data, &seg("systems::gboar::data::stacking")), None);
    assert_eq!(inside_gboar(&seg("systems::gboar::guide::odds"), &seg("systems::gboar::phases::close_combat")), None);
    let text = "use super::close_combat::cell;\nuse super::*;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    \
                let x = super::super::rally::y;\n}\nuse super::weather;\n";
    let found: Vec<String> = super_paths(text, &fire).iter().map(|(l, p)| format!("{l}:{}", p.join("::"))).collect();
    assert_eq!(
        found,
        [
            "1:systems::gboar::phases::close_combat::cell",
            "2:systems::gboar::phases",
            "5:systems::gboar::phases::fire",
            "6:systems::gboar::phases::rally::y",
            "8:systems::gboar::phases::weather"
        ]
    );
    let binary = crate_paths("use adjutant::systems::gboar::odds;\nlet e = adjutant::Error::usage(x);\n", "adjutant::");
    assert_eq!(binary.len(), 2);
    assert_eq!(target_of(&binary[0].1), "systems::gboar");
}
