//! The game modules adjutant knows: `games/<module>/`, embedded in the
//! binary so that it works from any folder (`base::embedded`), and any a
//! registered system carries; each module's system, found in the registry
//! (`system.rs`) by its module.yaml's `system:`. A module named by a
//! folder's path is read here ([`files`]): the shell reads module files,
//! and hands a system their bytes ([`ModuleFiles`]).

use std::path::Path;

use crate::base::embedded::{embedded_compact, embedded_file, embedded_ids};
use crate::base::error::{Error, Result};
pub use crate::system::{ModuleFiles, ModuleInfo, ScenarioInfo, Side};

/// The system of a module whose module.yaml says none: the GBoAR series
/// (every module written before `system:` was).
pub const DEFAULT_SYSTEM: &str = "gboar";

/// Every module there is: the embedded ones, then those the registered
/// systems carry themselves; sorted by id.
pub fn ids() -> Vec<String> {
    let mut ids = embedded_ids();
    for system in crate::system::systems() {
        ids.extend(system.own_modules().into_iter().map(|m| m.id));
    }
    ids.sort();
    ids.dedup();
    ids
}

/// A module's `module.yaml` (its identity, sides, scenarios and system):
/// an embedded module, or one a registered system carries.
pub fn load(id: &str) -> Result<ModuleInfo> {
    let path = format!("{id}/module.yaml");
    let Some(text) = embedded_file(id, "module.yaml") else {
        return crate::system::systems()
            .into_iter()
            .flat_map(|s| s.own_modules())
            .find(|m| m.id == id)
            .ok_or_else(|| Error::usage(format!("unknown module '{id}'; the modules are: {}", ids().join(", "))));
    };
    let mut info: ModuleInfo =
        crate::base::yaml::parse_embedded(&format!("games/{path}"), text, embedded_compact(id, "module.yaml"))
            .map_err(Error::Data)?;
    info.system.get_or_insert_with(|| DEFAULT_SYSTEM.to_string());
    Ok(info)
}

/// The system of module `id`, found in the registry by its `system:`.
pub fn system_of(id: &str) -> Result<&'static dyn crate::system::System> {
    system_named(id, &load(id)?)
}

/// The system a module's module.yaml names.
fn system_named(id: &str, info: &ModuleInfo) -> Result<&'static dyn crate::system::System> {
    let name = info.system.as_deref().unwrap_or(DEFAULT_SYSTEM);
    crate::system::find(name).ok_or_else(|| {
        let known: Vec<&str> = crate::system::systems().iter().map(|s| s.id()).collect();
        Error::usage(format!(
            "module '{}' follows system '{}', which this adjutant does not have; it has: {}",
            crate::base::error::echo(id),
            crate::base::error::echo(name),
            known.join(", ")
        ))
    })
}

/// Whether a module's name on the command line is a folder's path (it
/// holds a `/` or starts with `.`) rather than an embedded module's id.
pub fn is_folder(name: &str) -> bool {
    name.contains('/') || name.starts_with('.')
}

/// The files of the module `name` names: with `games_dir`, the folder of
/// that name in it; else a folder's path ([`is_folder`]), or an embedded
/// module's id (or a module a registered system carries). A folder is
/// read whole here, bounded ([`ModuleFiles::read_folder`]); an id is not
/// checked (an unknown one reads as a module without files).
pub fn files(name: &str, games_dir: Option<&Path>) -> Result<ModuleFiles> {
    match games_dir {
        Some(dir) => ModuleFiles::read_folder(&dir.join(name)),
        None if is_folder(name) => ModuleFiles::read_folder(Path::new(name)),
        None => Ok(ModuleFiles::embedded(name)),
    }
}

/// The module.yaml of a module's files: an embedded (or carried)
/// module's by its id, a folder's read from its bytes.
pub fn info_of(files: &ModuleFiles) -> Result<ModuleInfo> {
    if let Some(id) = files.embedded_id() {
        return load(id);
    }
    let text = files.text("module.yaml")?;
    let mut info: ModuleInfo =
        crate::base::yaml::parse_embedded(&files.label("module.yaml"), text, files.compact("module.yaml"))
            .map_err(Error::Data)?;
    info.system.get_or_insert_with(|| DEFAULT_SYSTEM.to_string());
    Ok(info)
}

/// The system of a module's files, by its module.yaml's `system:`.
pub fn system_of_files(files: &ModuleFiles) -> Result<&'static dyn crate::system::System> {
    let info = info_of(files)?;
    system_named(&info.id, &info)
}

/// The system that reads a module's files for a command that loads the
/// module itself (`check-game`, `map`, `odds`, `selfplay`): the one its
/// module.yaml names, read leniently (a module.yaml too broken to say, or
/// missing, is read by the default system, which names what is wrong).
pub fn system_reading(files: &ModuleFiles) -> Result<&'static dyn crate::system::System> {
    #[derive(serde::Deserialize, Debug, Clone)]
    struct Named {
        #[serde(default)]
        system: Option<String>,
    }
    let named = match files.embedded_id() {
        Some(id) => load(id).ok().and_then(|m| m.system),
        None => files
            .text("module.yaml")
            .ok()
            .and_then(|t| {
                crate::base::yaml::parse_embedded::<Named>(&files.label("module.yaml"), t, files.compact("module.yaml"))
                    .ok()
            })
            .and_then(|n| n.system),
    };
    let info_id = files.embedded_id().map(str::to_string).unwrap_or_else(|| files.label(""));
    let name = named.unwrap_or_else(|| DEFAULT_SYSTEM.to_string());
    crate::system::find(&name).ok_or_else(|| {
        let known: Vec<&str> = crate::system::systems().iter().map(|s| s.id()).collect();
        Error::usage(format!(
            "module '{}' follows system '{}', which this adjutant does not have; it has: {}",
            crate::base::error::echo(&info_id),
            crate::base::error::echo(&name),
            known.join(", ")
        ))
    })
}

/// A module as `adjutant modules` shows it: its identity, system, sides
/// and scenarios.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModuleSummary {
    pub id: String,
    pub name: String,
    pub system: String,
    pub sides: Vec<Side>,
    pub scenarios: Vec<ScenarioSummary>,
}

/// A scenario of a module, and who plays it: the sides grouped by player.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ScenarioSummary {
    pub id: String,
    pub name: String,
    pub first_turn: u32,
    pub last_turn: u32,
    /// The module's sides grouped by the player (alliance) they belong
    /// to ([`crate::system::Rules::players_of_sides`]): the sides of one
    /// group may be held together by one person; a side of no player's is
    /// a group of its own.
    pub players: Vec<PlayerSides>,
}

/// One player of a scenario and the sides it holds, in module order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlayerSides {
    pub player: String,
    pub sides: Vec<String>,
}

/// Every module there is ([`ids`]), each scenario loaded by the module's
/// system to ask who plays which sides.
pub fn summaries() -> Result<Vec<ModuleSummary>> {
    let mut out = Vec::new();
    for id in ids() {
        let info = load(&id)?;
        let system = system_named(&id, &info)?;
        let files = ModuleFiles::embedded(&id);
        let mut scenarios = Vec::new();
        for scenario in &info.scenarios {
            let rules = system.load(&files, &scenario.id)?;
            scenarios.push(ScenarioSummary {
                id: scenario.id.clone(),
                name: scenario.name.clone(),
                first_turn: scenario.first_turn,
                last_turn: scenario.last_turn,
                players: players_of(&info.sides, &rules.players_of_sides()),
            });
        }
        out.push(ModuleSummary {
            id: info.id.clone(),
            name: info.name.clone(),
            system: system.id().to_string(),
            sides: info.sides.clone(),
            scenarios,
        });
    }
    Ok(out)
}

/// The sides grouped by player, in the order each player's first side
/// comes in the module.
fn players_of(sides: &[Side], players: &std::collections::BTreeMap<String, String>) -> Vec<PlayerSides> {
    let mut groups: Vec<PlayerSides> = Vec::new();
    for side in sides {
        let player = players.get(&side.id).filter(|p| !p.is_empty()).unwrap_or(&side.id);
        match groups.iter_mut().find(|g| &g.player == player) {
            Some(group) => group.sides.push(side.id.clone()),
            None => groups.push(PlayerSides { player: player.clone(), sides: vec![side.id.clone()] }),
        }
    }
    groups
}

/// What `adjutant module export` wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Exported {
    pub module: String,
    pub dir: String,
    /// Every file written, by its path in the folder.
    pub files: Vec<String>,
    pub bytes: usize,
}

/// `adjutant module export ID DIR`: write the embedded module `id` out as
/// a module folder to edit (every file of `games/<id>/`), all at once
/// (`fsio::write_tree_atomic`): DIR must be missing or empty.
pub fn export(id: &str, dir: &Path) -> Result<Exported> {
    if !embedded_ids().iter().any(|e| e == id) {
        return Err(Error::usage(format!(
            "'{}' is not an embedded module; the embedded modules are: {}",
            crate::base::error::echo(id),
            embedded_ids().join(", ")
        )));
    }
    let files: std::collections::BTreeMap<String, Vec<u8>> =
        ModuleFiles::embedded(id).files().into_iter().map(|(name, bytes)| (name, bytes.to_vec())).collect();
    crate::base::fsio::write_tree_atomic(dir, &files)?;
    Ok(Exported {
        module: id.to_string(),
        dir: dir.display().to_string(),
        bytes: files.values().map(Vec::len).sum(),
        files: files.into_keys().collect(),
    })
}

/// A command a module's system does not have: `module 'X' (system Y)
/// has no WHAT` (exit 2).
pub fn lacks(module: &str, system: &dyn crate::system::System, what: &str) -> Error {
    Error::usage(format!("module '{}' (system {}) has no {what}", crate::base::error::echo(module), system.id()))
}

/// Where a conformance case's `module:` is: a folder relative to the case
/// file, else an embedded module's id.
pub fn case_module(case_file: &Path, module: &str) -> Result<ModuleFiles> {
    let dir = case_file.parent().unwrap_or(Path::new(".")).join(module);
    if dir.is_dir() {
        ModuleFiles::read_folder(&dir)
    } else {
        Ok(ModuleFiles::embedded(module))
    }
}

/// Run the conformance case `text` of the file `case_file` (`label` names
/// it) by the system of the module it names (read leniently: a case too
/// broken to name one is run by the default system, which says what is
/// wrong with it).
pub fn run_case(case_file: &Path, label: &str, text: &str) -> Result<crate::system::CaseOutcome> {
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(default)]
        module: Option<String>,
    }
    let named = crate::base::yaml::parse::<Named>(label, text).ok().and_then(|n| n.module);
    let system = match &named {
        Some(module) => system_reading(&case_module(case_file, module)?)?,
        None => crate::system::find(DEFAULT_SYSTEM)
            .ok_or_else(|| Error::usage(format!("this adjutant has no system '{DEFAULT_SYSTEM}'")))?,
    };
    system
        .run_case(label, text, &|module| case_module(case_file, module))
        .unwrap_or_else(|| Err(lacks(named.as_deref().unwrap_or_default(), system, "conformance cases")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::embedded::embedded_yaml_files;

    /// Savannah 1.3, 1.4: the French and the Americans are one player's
    /// (the Allies), the British another's, in every scenario.
    #[test]
    fn summaries_group_savannahs_sides_by_player() {
        let all = summaries().unwrap();
        let savannah = all.iter().find(|m| m.id == "savannah-1779").unwrap();
        assert_eq!(savannah.system, "gboar");
        assert_eq!(savannah.scenarios.len(), 2);
        for scenario in &savannah.scenarios {
            let groups: Vec<(&str, Vec<&str>)> = scenario
                .players
                .iter()
                .map(|g| (g.player.as_str(), g.sides.iter().map(String::as_str).collect()))
                .collect();
            assert_eq!(
                groups,
                [("british", vec!["british"]), ("allies", vec!["french", "american"])],
                "{}",
                scenario.id
            );
        }
    }

    #[test]
    fn a_side_of_no_player_is_a_group_of_its_own() {
        let sides: Vec<Side> =
            ["a", "b", "c"].iter().map(|id| Side { id: id.to_string(), name: id.to_uppercase() }).collect();
        let players = [("a".to_string(), "p".to_string()), ("c".to_string(), "p".to_string())].into_iter().collect();
        let groups = players_of(&sides, &players);
        assert_eq!(
            groups,
            [
                PlayerSides { player: "p".into(), sides: vec!["a".into(), "c".into()] },
                PlayerSides { player: "b".into(), sides: vec!["b".into()] }
            ]
        );
    }

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
