//! The game modules in `games/`, embedded in the binary so that adjutant
//! works from any folder, with the compact form of each YAML file that
//! build.rs writes. Bytes only: what a module says is its system's to read
//! (`systems/*/data/`), and which modules there are is the shell's
//! (`game/modules.rs`).

use include_dir::{include_dir, Dir};

pub(crate) static GAMES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/games");

// `COMPACT`: the compact form of the embedded YAML files (build.rs).
include!(concat!(env!("OUT_DIR"), "/compact_modules.rs"));

/// The ids of the embedded modules, sorted.
pub fn embedded_ids() -> Vec<String> {
    let mut ids: Vec<String> = GAMES
        .dirs()
        .filter(|d| d.get_file(d.path().join("module.yaml")).is_some())
        .filter_map(|d| d.path().file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    ids.sort();
    ids
}

/// The files directly in a folder of an embedded module (e.g. the demo's
/// orders), by name, sorted.
pub fn embedded_dir_files(id: &str, folder: &str) -> Vec<(String, &'static [u8])> {
    let mut files: Vec<(String, &'static [u8])> = GAMES
        .get_dir(format!("{id}/{folder}"))
        .map(|d| {
            d.files()
                .filter_map(|f| Some((f.path().file_name()?.to_string_lossy().into_owned(), f.contents())))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The text of one file of an embedded module, e.g. `map.yaml`.
///
/// The rules engine reads a module's files many times a command (a chart
/// per step it resolves): they are found in an index of every embedded
/// file, made at the first read, not by walking the folders each time.
pub fn embedded_file(id: &str, file: &str) -> Option<&'static str> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<String, &'static str>> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        fn walk(dir: &'static Dir<'static>, out: &mut std::collections::HashMap<String, &'static str>) {
            for f in dir.files() {
                if let (Some(path), Some(text)) = (f.path().to_str(), f.contents_utf8()) {
                    out.insert(path.to_string(), text);
                }
            }
            for d in dir.dirs() {
                walk(d, out);
            }
        }
        let mut out = std::collections::HashMap::new();
        walk(&GAMES, &mut out);
        out
    });
    index.get(&format!("{id}/{file}")).copied()
}

/// The compact form of one YAML file of an embedded module, written at
/// build time (see build.rs), if it has one.
pub fn embedded_compact(id: &str, file: &str) -> Option<&'static [u8]> {
    let name = format!("{id}/{file}");
    COMPACT.binary_search_by(|(n, _)| (*n).cmp(name.as_str())).ok().map(|i| COMPACT[i].1)
}

/// Every YAML file of an embedded module, by its path in the module
/// (`charts/fire.yaml`), sorted.
pub fn embedded_yaml_files(id: &str) -> Vec<String> {
    embedded_all_files(id)
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| std::path::Path::new(name).extension().is_some_and(|e| e == "yaml"))
        .collect()
}

/// Every file of an embedded module (by its path in the module,
/// `charts/fire.yaml`) and its bytes, sorted by path.
pub fn embedded_all_files(id: &str) -> Vec<(String, &'static [u8])> {
    fn walk(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
        for f in dir.files() {
            out.push((f.path().to_string_lossy().into_owned(), f.contents()));
        }
        for d in dir.dirs() {
            walk(d, out);
        }
    }
    let mut files = Vec::new();
    if let Some(dir) = GAMES.get_dir(id) {
        walk(dir, &mut files);
    }
    let prefix = format!("{id}/");
    let mut files: Vec<(String, &'static [u8])> = files
        .into_iter()
        .map(|(name, bytes)| (name.strip_prefix(&prefix).unwrap_or(&name).to_string(), bytes))
        .collect();
    files.sort();
    files
}
