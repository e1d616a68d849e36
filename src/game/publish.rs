//! `adjutant publish` (issue 17): a game folder as a third party needs it
//! to check the game, and nothing else.
//!
//! What a published copy holds (`docs/publishing.md`):
//!
//! ```text
//! game.yaml    without the players' addresses, the mail settings, or the
//!              module folder's path on the referee's machine; `published: true`
//! state.yaml   (a game)
//! journal/     every entry
//! orders/      every orders file the journal records
//! reports/     every dispatch
//! module/      a module folder's files (a game begun from one), as recorded
//! ```
//!
//! Never `.secret/`, `inbox/`, `standing/`, `mutual/` (keys and commitments
//! sent for a step not yet resolved), the mail folder or `mailed.yaml`.
//! Every byte of the copy is then searched for each secret the folder
//! holds (the chain top, every key in `.secret/`) and each address
//! game.yaml names (the players', those of earlier players, the mail
//! settings'): a copy that would carry one is not written. Orders files
//! are published byte for byte (the journal commits to their SHA-256), so
//! an orders file with an address in it stops the publication, named.
//!
//! The copy is a folder, or one `.tar.gz` file: its entries in byte order
//! under one folder, every time and owner zero, so the same game gives
//! the same bytes. `adjutant verify` reads either (verify.rs).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameConfig, GameFolder, GAME_FILE, JOURNAL_DIR, ORDERS_DIR, REPORTS_DIR};

/// The folder of a published copy that holds a module folder's files.
pub const MODULE_DIR: &str = "module";

/// What `publish` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    pub game_id: String,
    /// The folder or `.tar.gz` file written.
    pub out: PathBuf,
    pub tarball: bool,
    /// Every file of the copy, by its path in the copy's folder.
    pub files: Vec<String>,
    pub bytes: u64,
    /// The journal's steps.
    pub steps: usize,
}

/// True when `path` names a `.tar.gz` (or `.tgz`) file.
pub fn is_tarball(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// Publish the game folder `dir` to `out`: a new folder, or a `.tar.gz`
/// file when `out`'s name ends so. Takes the folder's lock shared, as
/// `verify` does; refuses a folder a killed command left unfinished.
pub fn publish(dir: &Path, out: &Path, wait: Duration) -> Result<Published> {
    let folder = GameFolder::open(dir)?;
    let access = crate::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
    let files = copy_files(&folder)?;
    let secrets = secrets_of(&folder)?;
    let finders: Vec<(bool, memchr::memmem::Finder, &String)> = secrets
        .iter()
        .filter(|(needle, _)| !needle.is_empty())
        .map(|(needle, what)| (needle.contains('@'), memchr::memmem::Finder::new(needle.as_bytes()), what))
        .collect();
    for (name, bytes) in &files {
        // An address is looked for in any ASCII case: in the file folded
        // to lower case once, with the needle folded by secrets_of. Each
        // search is linear in the file (memchr's two-way search).
        let folded = bytes.to_ascii_lowercase();
        let holds = |(any_case, finder, _): &&(bool, memchr::memmem::Finder, &String)| {
            finder.find(if *any_case { &folded } else { bytes }).is_some()
        };
        if let Some(what) = finders.iter().find(holds).map(|(_, _, what)| *what) {
            return Err(Error::refused(format!(
                "{name} holds {what}: a published copy must not; nothing was written{}",
                if name.starts_with(ORDERS_DIR) {
                    " (an orders file is published byte for byte, as the journal commits to its SHA-256)"
                } else {
                    ""
                }
            )));
        }
    }
    let tarball = is_tarball(out);
    if tarball {
        if out.exists() {
            return Err(Error::usage(format!("{}: already exists; give a new file", out.display())));
        }
        let top = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .map(|n| n.trim_end_matches(".tar.gz").trim_end_matches(".tgz").trim_end_matches(".TAR.GZ").to_string())
            .filter(|n| !n.is_empty() && !n.starts_with('.'))
            .unwrap_or_else(|| folder.config.game_id.clone());
        let bytes = tar_gz(&top, &files)?;
        fsio::write_new_atomic(out, &bytes)?;
    } else {
        fsio::write_tree_atomic(out, &files)?;
    }
    drop(access);
    Ok(Published {
        game_id: folder.config.game_id.clone(),
        out: out.to_path_buf(),
        tarball,
        bytes: files.values().map(|b| b.len() as u64).sum(),
        steps: files.keys().filter(|n| n.starts_with(&format!("{JOURNAL_DIR}/"))).count(),
        files: files.into_keys().collect(),
    })
}

/// The published copy's game.yaml: the folder's, with no address, no
/// mail settings and the module folder as the copy's `module/`.
pub fn published_config(config: &GameConfig) -> GameConfig {
    let mut c = config.clone();
    for p in &mut c.players {
        p.email = None;
    }
    for change in &mut c.player_changes {
        if let Some(was) = &mut change.was {
            was.email = None;
        }
    }
    c.mail = None;
    c.senders = None;
    if let Some(module) = &mut c.module_folder {
        module.path = MODULE_DIR.to_string();
    }
    c.published = true;
    c
}

/// Every file of the copy, by its path in the copy.
fn copy_files(folder: &GameFolder) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut files = BTreeMap::new();
    files.insert(GAME_FILE.to_string(), published_config(&folder.config).to_yaml().into_bytes());
    if folder.config.kind == FolderKind::Game {
        let state = crate::game::folder::STATE_FILE;
        let path = folder.root.join(state);
        if path.is_file() {
            files.insert(state.to_string(), fsio::read(&path)?);
        }
    }
    for sub in [JOURNAL_DIR, ORDERS_DIR, REPORTS_DIR] {
        add_tree(&folder.root.join(sub), sub, &mut files)?;
    }
    if folder.config.module_folder.is_some() {
        // Exactly the files game.yaml records, each checked against its
        // hash as every command checks them.
        for (file, bytes) in folder.module_files()?.files() {
            files.insert(format!("{MODULE_DIR}/{file}"), bytes.to_vec());
        }
    }
    Ok(files)
}

/// The files under `dir` (none when it is missing), by `prefix/...`;
/// temporary files of a command at work (`.tmp-`) left out.
fn add_tree(dir: &Path, prefix: &str, files: &mut BTreeMap<String, Vec<u8>>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for name in fsio::list_names(dir)? {
        if name.starts_with(".tmp-") {
            continue;
        }
        let path = dir.join(&name);
        let inner = format!("{prefix}/{name}");
        if path.is_dir() {
            add_tree(&path, &inner, files)?;
        } else if path.is_file() {
            files.insert(inner, fsio::read(&path)?);
        }
    }
    Ok(())
}

/// What must never be in a published copy, each with the words that name
/// it: every address game.yaml names and every secret in `.secret/`.
pub fn secrets_of(folder: &GameFolder) -> Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    let config = &folder.config;
    for p in &config.players {
        if let Some(email) = &p.email {
            found.push((email.clone(), format!("the address of {}'s player", p.side)));
        }
    }
    for change in &config.player_changes {
        if let Some(email) = change.was.as_ref().and_then(|w| w.email.clone()) {
            found.push((email, format!("the address of an earlier player of {}", change.side)));
        }
    }
    if let Some(mail) = &config.mail {
        let from = mail.from.rsplit_once('<').map(|(_, a)| a.trim_end_matches('>')).unwrap_or(&mail.from);
        found.push((from.to_string(), "the mail settings' From: address".to_string()));
        if let Some(user) = &mail.username {
            found.push((user.clone(), "the mail settings' user name".to_string()));
        }
    }
    let secret = folder.root.join(crate::game::folder::SECRET_DIR);
    if secret.is_dir() {
        for name in fsio::list_names(&secret)? {
            let path = secret.join(&name);
            if !path.is_file() {
                continue;
            }
            let text = String::from_utf8_lossy(&fsio::read(&path)?).into_owned();
            for word in text.split_whitespace().filter(|w| w.len() >= 16) {
                found.push((word.to_string(), format!("a secret of .secret/{name}")));
                // A key is written in hex: lower and upper case alike.
                found.push((word.to_ascii_uppercase(), format!("a secret of .secret/{name}")));
            }
        }
    }
    // An address is looked for in any case, as mail treats it.
    let mut all = Vec::new();
    for (needle, what) in found {
        let needle = needle.trim().to_string();
        if needle.len() < 3 {
            continue;
        }
        if needle.contains('@') {
            all.push((needle.to_ascii_lowercase(), what));
        } else {
            all.push((needle, what));
        }
    }
    Ok(all)
}

/// The copy as one `.tar.gz`: every file under `top/`, folders before
/// their files, in byte order; mode 644 (755 for folders), time, owner
/// and group zero; gzip with no name and no time.
fn tar_gz(top: &str, files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::usage(format!("making the .tar.gz: {e}"));
    // Every entry's header: only its kind, mode and size differ.
    let header = |kind: tar::EntryType, mode: u32, size: u64| {
        let mut header = tar::Header::new_ustar();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_size(size);
        header
    };
    let mut builder = tar::Builder::new(Vec::new());
    let mut dirs = std::collections::BTreeSet::new();
    let mut add_dir = |builder: &mut tar::Builder<Vec<u8>>, dir: String| -> Result<()> {
        if dirs.insert(dir.clone()) {
            let mut h = header(tar::EntryType::Directory, 0o755, 0);
            builder.append_data(&mut h, format!("{dir}/"), std::io::empty()).map_err(io)?;
        }
        Ok(())
    };
    add_dir(&mut builder, top.to_string())?;
    for (name, bytes) in files {
        // Each folder above the file, outermost first.
        for (end, _) in name.match_indices('/') {
            add_dir(&mut builder, format!("{top}/{}", &name[..end]))?;
        }
        let mut h = header(tar::EntryType::Regular, 0o644, bytes.len() as u64);
        builder.append_data(&mut h, format!("{top}/{name}"), bytes.as_slice()).map_err(io)?;
    }
    let tar = builder.into_inner().map_err(io)?;
    let mut gz = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).map_err(io)?;
    gz.finish().map_err(io)
}

/// At most this many bytes are unpacked from a `.tar.gz` given to
/// `verify`, and at most this many entries read: a hostile archive costs
/// what a large real game would, no more.
pub const UNPACK_MAX_BYTES: u64 = 1 << 30;
pub const UNPACK_MAX_ENTRIES: usize = 200_000;

/// Unpack a `.tar.gz` made by `publish` into `into` (an empty folder) and
/// return the copy's folder (its one top folder). Only plain files and
/// folders under one top folder are taken: a link, a device, an absolute
/// path or a `..` is refused, named, and so is an archive over the bounds.
pub fn unpack(tarball: &Path, into: &Path) -> Result<PathBuf> {
    let label = tarball.display().to_string();
    let bad = |why: String| Error::refused(format!("{label}: {why}; give a .tar.gz made by `adjutant publish`"));
    let file = std::fs::File::open(tarball).map_err(|e| Error::io(tarball, e))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(std::io::BufReader::new(file)));
    let entries = archive.entries().map_err(|e| bad(format!("not a .tar.gz ({e})")))?;
    let mut top: Option<String> = None;
    let mut total = 0u64;
    for (i, entry) in entries.enumerate() {
        if i >= UNPACK_MAX_ENTRIES {
            return Err(bad(format!("more than {UNPACK_MAX_ENTRIES} entries")));
        }
        let mut entry = entry.map_err(|e| bad(format!("not a .tar.gz ({e})")))?;
        let path = entry.path().map_err(|e| bad(format!("entry {}: a name that is not a path ({e})", i + 1)))?;
        let shown = crate::base::error::echo(&path.to_string_lossy());
        let mut parts = Vec::new();
        for c in path.components() {
            match c {
                std::path::Component::Normal(p) => match p.to_str() {
                    Some(s) if !s.starts_with(".tmp-") => parts.push(s.to_string()),
                    _ => return Err(bad(format!("entry '{shown}': a name adjutant does not write"))),
                },
                _ => return Err(bad(format!("entry '{shown}': an absolute path or a '..'"))),
            }
        }
        let Some(first) = parts.first().cloned() else { continue };
        match &top {
            None => top = Some(first),
            Some(t) if *t == first => {}
            Some(t) => {
                let t = crate::base::error::echo(t);
                return Err(bad(format!("entry '{shown}' is outside the one folder '{t}' a published copy is")));
            }
        }
        let target = parts.iter().fold(into.to_path_buf(), |p, part| p.join(part));
        match entry.header().entry_type() {
            tar::EntryType::Directory => {
                std::fs::create_dir_all(&target).map_err(|e| Error::io(&target, e))?;
            }
            tar::EntryType::Regular => {
                let size = entry.header().size().map_err(|e| bad(format!("entry '{shown}': {e}")))?;
                total = total.saturating_add(size);
                if total > UNPACK_MAX_BYTES {
                    return Err(bad(format!("more than {UNPACK_MAX_BYTES} bytes unpacked")));
                }
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                let mut out = std::fs::File::create(&target).map_err(|e| Error::io(&target, e))?;
                let copied =
                    std::io::copy(&mut (&mut entry).take(size), &mut out).map_err(|e| Error::io(&target, e))?;
                if copied != size {
                    return Err(bad(format!("entry '{shown}' is cut short")));
                }
            }
            _ => return Err(bad(format!("entry '{shown}': not a plain file or folder (a link or a device)"))),
        }
    }
    match top {
        Some(top) if into.join(&top).is_dir() => Ok(into.join(top)),
        _ => Err(bad("no folder in it".to_string())),
    }
}

/// Verify a folder or a `.tar.gz` made by `publish` (unpacked into a
/// temporary folder, removed afterwards): `verify`'s verdict.
pub fn verify_path(path: &Path, options: &crate::game::verify::Options) -> Result<crate::game::verify::Verdict> {
    if is_tarball(path) && path.is_file() {
        let temp = tempfile::Builder::new()
            .prefix("adjutant-verify-")
            .tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let root = unpack(path, temp.path())?;
        crate::game::verify::verify_with(&root, options)
    } else {
        crate::game::verify::verify_with(path, options)
    }
}
