//! A game module as data: `games/<module>/` (module.yaml, map.yaml, ...),
//! embedded in the binary or a folder's files the shell read, read into
//! typed structs: the map, the counters and set-up, the charts
//! ([`charts`]), the sequence of play ([`sequence`]), module.yaml's and
//! the scenario's rule settings ([`stacking`], [`scenario`]), and the
//! module checker of `adjutant check-game` ([`check`]). data/ is the
//! bottom of GBoAR: it imports the leaves (`base/`, `system.rs`'s shared
//! types) and nothing else of GBoAR.

pub mod charts;
pub mod check;
pub mod counters;
pub mod map;
pub mod scenario;
pub mod sequence;
pub mod stacking;

use serde::de::DeserializeOwned;

use crate::base::embedded as modules;
use crate::base::error::{Error, Located, Result};
use crate::base::hexmap::Map;
use crate::base::module_files::ModuleFiles;
use crate::system::ModuleInfo;

/// Where a module's files are read from: bytes the shell hands over
/// (`system.rs`'s [`ModuleFiles`]); GBoAR never opens a file.
#[derive(Debug, Clone)]
pub enum Source {
    /// `games/<id>/` embedded in the binary.
    Embedded(String),
    /// A module folder's files, read by the shell.
    Files(ModuleFiles),
}

impl Source {
    /// The source of a module's files as the shell hands them over: an
    /// embedded module keeps its compact forms and its cache.
    pub fn of(files: &ModuleFiles) -> Source {
        match files.embedded_id() {
            Some(id) => Source::Embedded(id.to_string()),
            None => Source::Files(files.clone()),
        }
    }

    /// A module folder read whole, for tests of the rules on a module of
    /// their own (the shell reads folders for the commands).
    #[cfg(test)]
    pub fn dir(path: &std::path::Path) -> Source {
        Source::Files(ModuleFiles::read_folder(path).unwrap_or_else(|e| panic!("{e}")))
    }

    /// How errors name a file of this module.
    pub fn label(&self, file: &str) -> String {
        match self {
            Source::Embedded(id) => format!("games/{id}/{file}"),
            Source::Files(files) => files.label(file),
        }
    }

    /// The text of one file of the module.
    pub fn read(&self, file: &str) -> Result<String> {
        match self {
            Source::Embedded(id) => modules::embedded_file(id, file)
                .map(str::to_string)
                .ok_or_else(|| Error::usage(format!("{}: not found", self.label(file)))),
            Source::Files(files) => files.text(file).map(str::to_string),
        }
    }

    /// Parse one file of the module as `T`, from its compact form when it
    /// has one ([`Source::compact`]), else from the YAML.
    pub fn parse<T: DeserializeOwned + std::fmt::Debug + Clone + Send + 'static>(
        &self,
        file: &str,
    ) -> Result<(T, String)> {
        let text = self.read(file)?;
        let value =
            crate::base::yaml::parse_embedded(&self.label(file), &text, self.compact(file)).map_err(Error::Data)?;
        Ok((value, text))
    }

    /// [`Source::parse`] of a file the engine reads at every step it
    /// resolves (a scenario's victory conditions, module.yaml's retreat
    /// rules): an embedded module's files never change, so each is read
    /// as each type once per process, and a copy given every time after.
    pub fn parse_cached<T>(&self, file: &str) -> Result<T>
    where
        T: DeserializeOwned + std::fmt::Debug + Clone + Send + Sync + 'static,
    {
        type Key = (String, String, std::any::TypeId);
        type Cache = std::collections::BTreeMap<Key, Box<dyn std::any::Any + Send + Sync>>;
        static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Cache::new());
        let Source::Embedded(id) = self else { return Ok(self.parse(file)?.0) };
        let key = (id.clone(), file.to_string(), std::any::TypeId::of::<T>());
        if let Some(value) = CACHE.lock().ok().and_then(|c| c.get(&key).and_then(|v| v.downcast_ref::<T>()).cloned()) {
            return Ok(value);
        }
        let (value, _): (T, _) = self.parse(file)?;
        if let Ok(mut cache) = CACHE.lock() {
            cache.insert(key, Box::new(value.clone()));
        }
        Ok(value)
    }

    /// The compact form of one file: an embedded module's YAML file has
    /// the one written at build time unless build.rs could not make it
    /// faithful; a folder's file, one made once from its text when it can
    /// be ([`ModuleFiles::compact`]).
    pub fn compact(&self, file: &str) -> Option<&[u8]> {
        match self {
            Source::Embedded(id) => modules::embedded_compact(id, file),
            Source::Files(files) => files.compact(file),
        }
    }
}

/// A loaded module: what the rules engine and the map renderer read.
#[derive(Debug, Clone)]
pub struct Module {
    pub source: Source,
    pub info: ModuleInfo,
    pub map: Map,
    pub counters: Vec<counters::Counter>,
    pub colour_groups: Vec<ColourGroup>,
}

/// Savannah 1.1: a colour group, and the band its counters carry.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ColourGroup {
    pub id: String,
    pub army: String,
    pub name: String,
    /// As printed in the rules, e.g. "Tan with red stripe".
    pub band: String,
}

#[derive(Debug, Clone, serde::Deserialize)]
struct ModuleExtras {
    #[serde(default)]
    colour_groups: Vec<ColourGroup>,
}

impl Module {
    pub fn load(source: &Source) -> Result<Module, ModuleError> {
        let (info, _): (ModuleInfo, _) = source.parse("module.yaml")?;
        let (map_file, text): (map::MapFile, _) = source.parse("map.yaml")?;
        let map = map_file.build(&source.label("map.yaml"), &text).map_err(ModuleError::Invalid)?;
        let (extras, _): (ModuleExtras, _) = source.parse("module.yaml")?;
        let (counters, _): (counters::CountersFile, _) = source.parse("counters.yaml")?;
        Ok(Module {
            source: source.clone(),
            info,
            map,
            counters: counters.counters,
            colour_groups: extras.colour_groups,
        })
    }

    /// The counters of a scenario's set-up, as the map draws them.
    pub fn setup_counters(&self, scenario: &str) -> Result<Vec<crate::base::hexmap::CounterView>> {
        self.info.scenario(scenario)?;
        let file = format!("scenarios/{scenario}.yaml");
        let (setup, _): (counters::ScenarioSetup, _) = self.source.parse(&file)?;
        let placed = counters::setup_positions(&self.counters, &setup, &self.source.label(&file))?;
        Ok(placed.into_iter().map(|(hex, c)| self.counter_view(hex, &c)).collect())
    }

    /// How a counter looks: the army's colour, its group's stripe, its values.
    pub fn counter_view(
        &self,
        hex: crate::base::hex::HexId,
        c: &counters::Counter,
    ) -> crate::base::hexmap::CounterView {
        let band = c
            .colour_group
            .as_ref()
            .and_then(|g| self.colour_groups.iter().find(|cg| &cg.id == g))
            .map(|g| g.band.as_str());
        let (fill, stripe) = band
            .map(crate::base::hexmap::band_colours)
            .unwrap_or_else(|| (crate::base::hexmap::army_colour(&c.army), None));
        let values = if c.is_leader() {
            format!("{}/{}", c.close_combat_drm.unwrap_or(0), c.leadership_drm.unwrap_or(0))
        } else {
            let show = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
            format!("{}-{}-{}", show(c.strength.map(|s| s.full)), show(c.morale.map(|s| s.full)), show(c.movement))
        };
        let label: String = c.name.chars().take(9).collect();
        crate::base::hexmap::CounterView {
            hex,
            label,
            values,
            fill,
            stripe,
            leader: c.is_leader(),
            markers: Vec::new(),
        }
    }
}

/// A module that cannot be used: it could not be read, or it is inconsistent.
#[derive(Debug)]
pub enum ModuleError {
    Read(Error),
    Invalid(Vec<Located>),
}

impl From<Error> for ModuleError {
    fn from(e: Error) -> Self {
        ModuleError::Read(e)
    }
}

impl ModuleError {
    /// Every problem, one per line.
    pub fn lines(&self) -> Vec<String> {
        match self {
            ModuleError::Read(e) => vec![e.to_string()],
            ModuleError::Invalid(list) => list.iter().map(|l| l.to_string()).collect(),
        }
    }

    /// Into the library's error: exit 1, the module was refused.
    pub fn into_error(self) -> Error {
        match self {
            ModuleError::Read(e) => e,
            ModuleError::Invalid(list) => {
                let n = list.len();
                let first = list.first().map(|l| l.to_string()).unwrap_or_default();
                Error::refused(if n == 1 {
                    first
                } else {
                    format!("{first} (and {} more problems: run `adjutant check-game`)", n - 1)
                })
            }
        }
    }
}
