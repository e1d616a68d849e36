//! A game module's files as bytes: what the shell hands a game system
//! (`system.rs`) so that the system never touches a file. A module is
//! either embedded in the binary (`games/<id>/`, [`crate::base::embedded`],
//! with the compact form build.rs wrote of each YAML file) or a folder
//! read whole by [`ModuleFiles::read_folder`] (the shell decides which:
//! `game/modules.rs`), bounded in what it reads. A folder's file gets its
//! compact form the first time one is asked for, once for every copy of
//! the [`ModuleFiles`]: the loader and `check-game`'s checker read each
//! file as several types, and each then reads the compact form, not the
//! YAML again.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::base::dice::Bytes32;
use crate::base::embedded;
use crate::base::error::{Error, Located, Result};

/// The largest file a module folder may hold (a chart or map is a few
/// hundred kilobytes): a larger one is refused, never read whole.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The most YAML files a module folder may hold (Savannah 1779 has 85).
pub const MAX_FILES: usize = 2_000;

/// The most bytes all the YAML files of a module folder may hold together.
pub const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;

/// How deep a module folder's subfolders are read (`demo/historical/` is 2).
pub const MAX_DEPTH: usize = 8;

/// A module's files, read: the module's id and where it came from, and
/// how errors name each file (`games/savannah-1779/charts/fire.yaml`, or
/// the folder's path joined with the file's).
#[derive(Debug, Clone)]
pub struct ModuleFiles {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// `games/<id>/`, embedded in the binary.
    Embedded(String),
    /// A folder's YAML files, by their path in the folder (`charts/fire.yaml`).
    Folder { dir: PathBuf, files: Arc<BTreeMap<String, FolderFile>> },
}

/// One file of a folder: its bytes, and its compact form once it is made
/// (`None` inside when the text has no faithful one).
#[derive(Debug)]
struct FolderFile {
    bytes: Vec<u8>,
    compact: OnceLock<Option<Arc<[u8]>>>,
}

impl ModuleFiles {
    /// The embedded module `id` (an unknown id reads as a module whose
    /// every file is missing).
    pub fn embedded(id: &str) -> ModuleFiles {
        ModuleFiles { kind: Kind::Embedded(id.to_string()) }
    }

    /// A folder's files given as bytes (names as paths in the folder,
    /// `/`-separated); `dir` names them in messages.
    pub fn from_files(dir: impl Into<PathBuf>, files: BTreeMap<String, Vec<u8>>) -> ModuleFiles {
        let files =
            files.into_iter().map(|(name, bytes)| (name, FolderFile { bytes, compact: OnceLock::new() })).collect();
        ModuleFiles { kind: Kind::Folder { dir: dir.into(), files: Arc::new(files) } }
    }

    /// Read every `.yaml` file of the folder `dir` and its subfolders
    /// (hidden entries and adjutant's temporaries skipped). A folder that
    /// does not exist reads as one whose every file is missing (each
    /// file is then named as not found where it is read). A file over
    /// [`MAX_FILE_BYTES`], more than [`MAX_FILES`] files, more than
    /// [`MAX_TOTAL_BYTES`] together or subfolders deeper than
    /// [`MAX_DEPTH`] are refused (exit 2) before they are read.
    pub fn read_folder(dir: &Path) -> Result<ModuleFiles> {
        let mut files = BTreeMap::new();
        let mut total = 0u64;
        match fs::metadata(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(dir, e)),
            Ok(m) if !m.is_dir() => return Err(Error::usage(format!("{}: not a folder", dir.display()))),
            Ok(_) => read_tree(dir, dir, "", 0, &mut files, &mut total)?,
        }
        Ok(ModuleFiles::from_files(dir, files))
    }

    /// The embedded module's id, for an embedded module.
    pub fn embedded_id(&self) -> Option<&str> {
        match &self.kind {
            Kind::Embedded(id) => Some(id),
            Kind::Folder { .. } => None,
        }
    }

    /// The folder the files were read from, for a folder module.
    pub fn folder(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Embedded(_) => None,
            Kind::Folder { dir, .. } => Some(dir),
        }
    }

    /// How messages name one file of the module.
    pub fn label(&self, file: &str) -> String {
        match &self.kind {
            Kind::Embedded(id) => format!("games/{id}/{file}"),
            Kind::Folder { dir, .. } => dir.join(file).display().to_string(),
        }
    }

    /// The text of one file of the module: not found, or not UTF-8, is an
    /// error naming it.
    pub fn text(&self, file: &str) -> Result<&str> {
        match &self.kind {
            Kind::Embedded(id) => embedded::embedded_file(id, file)
                .ok_or_else(|| Error::usage(format!("{}: not found", self.label(file)))),
            Kind::Folder { dir, files } => {
                let bytes = &files
                    .get(file)
                    .ok_or_else(|| Error::io(dir.join(file), io::Error::from(io::ErrorKind::NotFound)))?
                    .bytes;
                std::str::from_utf8(bytes).map_err(|e| {
                    Error::Data(Located {
                        file: self.label(file),
                        line: None,
                        column: None,
                        field: String::new(),
                        message: format!("not UTF-8 text (invalid byte at offset {})", e.valid_up_to()),
                        code: None,
                    })
                })
            }
        }
    }

    /// The compact form of one file ([`crate::base::yaml::compact`]), if
    /// it has one: for an embedded module's file, the one build.rs wrote;
    /// for a folder's, one made from its text the first time it is asked
    /// for (and kept by every copy of this value), when the text is UTF-8
    /// and has a faithful one ([`crate::base::yaml::compact_form`]).
    pub fn compact(&self, file: &str) -> Option<&[u8]> {
        match &self.kind {
            Kind::Embedded(id) => embedded::embedded_compact(id, file),
            Kind::Folder { files, .. } => {
                let f = files.get(file)?;
                f.compact
                    .get_or_init(|| std::str::from_utf8(&f.bytes).ok().and_then(crate::base::yaml::compact_form))
                    .as_deref()
            }
        }
    }

    /// Every file of the module (by its path in the module, sorted) and
    /// its bytes: an embedded module's every file, a folder's YAML files.
    pub fn files(&self) -> Vec<(String, &[u8])> {
        match &self.kind {
            Kind::Embedded(id) => embedded::embedded_all_files(id),
            Kind::Folder { files, .. } => files.iter().map(|(n, f)| (n.clone(), f.bytes.as_slice())).collect(),
        }
    }

    /// The SHA-256 of every file of the module, by name, sorted.
    pub fn sha256s(&self) -> BTreeMap<String, Bytes32> {
        self.files().into_iter().map(|(name, bytes)| (name, Bytes32::sha256(bytes))).collect()
    }
}

/// Read the YAML files under `here` (a folder `prefix` deep in `root`).
fn read_tree(
    root: &Path,
    here: &Path,
    prefix: &str,
    depth: usize,
    files: &mut BTreeMap<String, Vec<u8>>,
    total: &mut u64,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::usage(format!(
            "{}: a module folder's subfolders go at most {MAX_DEPTH} deep",
            here.display()
        )));
    }
    let mut entries = Vec::new();
    for entry in fs::read_dir(here).map_err(|e| Error::io(here, e))? {
        let entry = entry.map_err(|e| Error::io(here, e))?;
        entries.push(entry.file_name().to_string_lossy().into_owned());
    }
    entries.sort();
    for name in entries {
        if name.starts_with('.') {
            continue;
        }
        let path = here.join(&name);
        let meta = fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        let relative = format!("{prefix}{name}");
        if meta.is_dir() {
            read_tree(root, &path, &format!("{relative}/"), depth + 1, files, total)?;
            continue;
        }
        if !meta.is_file() || !name.ends_with(".yaml") {
            continue;
        }
        if files.len() >= MAX_FILES {
            return Err(Error::usage(format!(
                "{}: a module folder holds at most {MAX_FILES} YAML files",
                root.display()
            )));
        }
        let too_big = || {
            Error::usage(format!(
                "{}: over the {} MB a module file may hold; not read",
                path.display(),
                MAX_FILE_BYTES / (1024 * 1024)
            ))
        };
        if meta.len() > MAX_FILE_BYTES {
            return Err(too_big());
        }
        // The size read again as the bytes come: the file may grow
        // between the look and the read.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        fs::File::open(&path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io(&path, e))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_big());
        }
        *total += bytes.len() as u64;
        if *total > MAX_TOTAL_BYTES {
            return Err(Error::usage(format!(
                "{}: a module folder's YAML files hold at most {} MB together",
                root.display(),
                MAX_TOTAL_BYTES / (1024 * 1024)
            )));
        }
        files.insert(relative, bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_read_whole_and_named_as_its_path() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("charts")).unwrap();
        fs::write(dir.path().join("module.yaml"), "id: x\n").unwrap();
        fs::write(dir.path().join("charts/fire.yaml"), "a: 1\n").unwrap();
        fs::write(dir.path().join("notes.txt"), "not read").unwrap();
        fs::write(dir.path().join(".tmp-1-map.yaml"), "skipped").unwrap();
        fs::write(dir.path().join("bad.yaml"), [0xff, 0xfe]).unwrap();
        let m = ModuleFiles::read_folder(dir.path()).unwrap();
        let names: Vec<String> = m.files().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["bad.yaml", "charts/fire.yaml", "module.yaml"]);
        assert_eq!(m.text("charts/fire.yaml").unwrap(), "a: 1\n");
        assert_eq!(m.label("charts/fire.yaml"), dir.path().join("charts/fire.yaml").display().to_string());
        let missing = m.text("map.yaml").unwrap_err().to_string();
        assert_eq!(missing, format!("{}: not found", dir.path().join("map.yaml").display()));
        assert!(m.text("bad.yaml").unwrap_err().to_string().contains("not UTF-8 text"));
        assert_eq!(m.sha256s()["module.yaml"], Bytes32::sha256(b"id: x\n"));
        // A folder's file gets its compact form when one is asked for: the
        // same bytes build.rs would write, and none for text that is not UTF-8.
        assert_eq!(m.compact("module.yaml"), crate::base::yaml::compact_write::compact("id: x\n").as_deref());
        assert!(m.compact("module.yaml").is_some());
        assert!(m.compact("bad.yaml").is_none());
        assert!(m.compact("map.yaml").is_none());
        // A folder that is not there: every file is missing.
        let none = ModuleFiles::read_folder(&dir.path().join("nowhere")).unwrap();
        assert!(none.files().is_empty());
        assert!(none.text("module.yaml").unwrap_err().to_string().ends_with("module.yaml: not found"));
    }

    #[test]
    fn a_file_over_the_limit_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let f = fs::File::create(dir.path().join("map.yaml")).unwrap();
        // Sparse: the size is there without the bytes being written.
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = ModuleFiles::read_folder(dir.path()).unwrap_err().to_string();
        assert!(err.contains("map.yaml: over the 16 MB a module file may hold"), "{err}");
    }

    #[test]
    fn an_embedded_module_reads_its_compact_forms() {
        let m = ModuleFiles::embedded("savannah-1779");
        assert_eq!(m.label("map.yaml"), "games/savannah-1779/map.yaml");
        assert!(m.text("module.yaml").unwrap().contains("savannah-1779"));
        assert!(m.compact("map.yaml").is_some());
        let names: Vec<String> = m.files().into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"charts/fire.yaml".to_string()), "{names:?}");
        assert!(names.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            ModuleFiles::embedded("nothing").text("module.yaml").unwrap_err().to_string(),
            "games/nothing/module.yaml: not found"
        );
    }
}
