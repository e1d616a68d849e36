//! The game modules adjutant knows: `games/<module>/`, embedded in the
//! binary so that it works from any folder.

use include_dir::{include_dir, Dir};
use serde::Deserialize;

use crate::base::error::{Error, Result};

static GAMES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/games");

// `COMPACT`: the compact form of the embedded YAML files (build.rs).
include!(concat!(env!("OUT_DIR"), "/compact_modules.rs"));

/// What `new` needs of a module: its sides and scenarios. The rest of
/// `module.yaml` belongs to the rules engine.
#[derive(Debug, Clone, Deserialize)]
pub struct ModuleInfo {
    pub id: String,
    pub name: String,
    pub sides: Vec<SideInfo>,
    pub scenarios: Vec<ScenarioInfo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SideInfo {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioInfo {
    pub id: String,
    pub name: String,
    pub first_turn: u32,
    pub last_turn: u32,
}

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
#[cfg(test)]
pub fn embedded_yaml_files(id: &str) -> Vec<String> {
    fn walk(dir: &Dir<'static>, out: &mut Vec<String>) {
        for f in dir.files().filter(|f| f.path().extension().is_some_and(|e| e == "yaml")) {
            out.push(f.path().to_string_lossy().into_owned());
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
    let mut files: Vec<String> = files.into_iter().map(|f| f.strip_prefix(&prefix).unwrap_or(&f).to_string()).collect();
    files.sort();
    files
}

/// Load an embedded module's `module.yaml`.
pub fn load(id: &str) -> Result<ModuleInfo> {
    let path = format!("{id}/module.yaml");
    let file = GAMES.get_file(&path).ok_or_else(|| {
        Error::usage(format!("unknown module '{id}'; the modules are: {}", embedded_ids().join(", ")))
    })?;
    let text = file.contents_utf8().ok_or_else(|| Error::usage(format!("games/{path}: not UTF-8 text")))?;
    let info: ModuleInfo =
        crate::base::yaml::parse_embedded(&format!("games/{path}"), text, embedded_compact(id, "module.yaml"))
            .map_err(Error::Data)?;
    Ok(info)
}

impl ModuleInfo {
    pub fn scenario(&self, id: &str) -> Result<&ScenarioInfo> {
        self.scenarios.iter().find(|s| s.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.scenarios.iter().map(|s| s.id.as_str()).collect();
            Error::usage(format!("{} has no scenario '{id}'; its scenarios are: {}", self.id, known.join(", ")))
        })
    }

    pub fn side(&self, id: &str) -> Result<&SideInfo> {
        self.sides.iter().find(|s| s.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.sides.iter().map(|s| s.id.as_str()).collect();
            Error::usage(format!("{} has no side '{id}'; its sides are: {}", self.id, known.join(", ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every YAML file of every embedded module has a compact form: the
    /// speed of loading a module depends on it.
    #[test]
    fn every_embedded_module_file_has_a_compact_form() {
        let mut files = 0;
        for id in embedded_ids() {
            for name in embedded_yaml_files(&id) {
                assert!(
                    embedded_compact(&id, &name).is_some(),
                    "games/{id}/{name} has no compact form: build.rs makes one only of a single document without \
                     tags, anchors or aliases that yaml-rust2 reads as serde_norway does (yaml-rust2 refuses, for \
                     one, a flow sequence's closing `]` indented no deeper than its key)"
                );
                files += 1;
            }
        }
        assert!(files > 20, "{files} files");
    }

    #[test]
    fn savannah_is_embedded_with_its_sides_and_scenarios() {
        assert!(embedded_ids().contains(&"savannah-1779".to_string()));
        let m = load("savannah-1779").unwrap();
        let sides: Vec<&str> = m.sides.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(sides, ["british", "french", "american"]);
        // Savannah "Historical Scenario": turns 16 - 20.
        let h = m.scenario("historical").unwrap();
        assert_eq!((h.first_turn, h.last_turn), (16, 20));
        assert!(m.scenario("campaign").is_ok());
        let err = m.scenario("brandywine").unwrap_err().to_string();
        assert!(err.contains("historical"), "{err}");
        assert!(load("no-such-game").unwrap_err().to_string().contains("savannah-1779"));
    }
}
