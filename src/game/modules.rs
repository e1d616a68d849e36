//! The game modules adjutant knows: `games/<module>/`, embedded in the
//! binary so that it works from any folder (`base::embedded`), and any a
//! registered system carries; each module's system, found in the registry
//! (`system.rs`) by its module.yaml's `system:`.

use crate::base::embedded::{embedded_compact, embedded_file, embedded_ids};
use crate::base::error::{Error, Result};
pub use crate::system::{ModuleInfo, ScenarioInfo, Side};

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
    let info = load(id)?;
    let name = info.system.as_deref().unwrap_or(DEFAULT_SYSTEM);
    crate::system::find(name).ok_or_else(|| {
        let known: Vec<&str> = crate::system::systems().iter().map(|s| s.id()).collect();
        Error::usage(format!(
            "module '{id}' follows system '{}', which this adjutant does not have; it has: {}",
            crate::base::error::echo(name),
            known.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::embedded::embedded_yaml_files;

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
