//! Writes that survive a crash at any instant, and the folder lock
//! (exclusive for a command that writes, shared for one that reads).
//!
//! Every file adjutant writes goes through here: a temporary file in the same
//! folder, written and fsynced, then renamed (or hard-linked, when the name
//! must not exist yet) over its final name, then the folder fsynced. A
//! `kill -9` or a full disk leaves either the old file or the new one, never
//! half of either; a stray temporary file (its name starts with `.tmp-`) is
//! ignored by every reader and removed by the next command that holds the
//! lock (recovery.rs).

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::base::error::{Error, Located, Result};

/// Prefix of every temporary file or folder adjutant makes.
pub const TEMP_PREFIX: &str = ".tmp-";

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_name(final_name: &str) -> String {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{TEMP_PREFIX}{}-{n}-{final_name}", std::process::id())
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_name_of(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into())
}

/// Fsync a folder so that a rename or link in it is durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|f| f.sync_all()).map_err(|e| Error::io(dir, e))
}

/// Most threads [`sync_all_together`] uses (the calling one among them).
/// Four, measured (issue 11): a `resolve` fsyncs 6 files and then a
/// dispatch's 14 together; with up to 16 threads (one a file) it took 6%
/// more wall time and 12% more CPU than with 4, starting threads that
/// each waited for the same disk; with 1 or 2 it waited longer.
const SYNC_THREADS: usize = 4;

/// The stack of each of [`sync_all_together`]'s threads: a loop of fsync
/// calls, which needs a few kilobytes.
const SYNC_STACK: usize = 64 * 1024;

/// Fsync every file of `items` (`file` gives each one's), on threads at
/// once rather than one after another: the filesystem then commits them
/// in one journal transaction or a few, where one at a time each waits
/// for its own (a resolve writes some 20 files; one by one, on a busy
/// disk, their fsyncs were most of its time). The first failure, with its
/// item, is returned once every fsync has ended; the order the calls reach
/// the disk in does not matter, as nothing is put in place before all end.
///
/// On Linux, several files on one filesystem are flushed with one
/// `syncfs` instead ([`sync_filesystem_once`]).
fn sync_all_together<'a, T: Sync>(
    items: &'a [T],
    file: impl Fn(&T) -> &File + Sync,
) -> std::result::Result<(), (io::Error, &'a T)> {
    if items.len() <= 1 {
        return match items.first() {
            Some(item) => file(item).sync_all().map_err(|e| (e, item)),
            None => Ok(()),
        };
    }
    #[cfg(target_os = "linux")]
    if let Some(done) = sync_filesystem_once(items, &file) {
        return done;
    }
    let per_thread = items.len().div_ceil(SYNC_THREADS);
    let file = &file;
    let results: Vec<std::result::Result<(), (io::Error, &T)>> = thread::scope(|scope| {
        let sync = move |chunk: &'a [T]| sync_chunk(chunk, file);
        // The calling thread fsyncs the first chunk itself, while the
        // others run on threads started for them (one fewer to start).
        // Each needs only a small stack: the default 2 MiB were mapped,
        // and faulted in part, for a loop of fsync calls. A thread the
        // system will not start (a process limit) is no failure of the
        // write: its files are fsynced here instead.
        let mut chunks = items.chunks(per_thread);
        let first = chunks.next().unwrap_or(&[]);
        let mut done = Vec::new();
        let handles: Vec<_> = chunks
            .filter_map(|chunk| {
                match thread::Builder::new().stack_size(SYNC_STACK).spawn_scoped(scope, move || sync(chunk)) {
                    Ok(handle) => Some(handle),
                    Err(_) => {
                        done.push(sync(chunk));
                        None
                    }
                }
            })
            .collect();
        done.push(sync(first));
        done.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))));
        done
    });
    results.into_iter().collect()
}

/// Several files flushed with one `syncfs(2)` of their filesystem, where
/// all are on one (the same device number), the kernel reports the errors
/// of the writes it flushes (Linux 5.8 on: before, `syncfs` returned 0
/// whatever failed), and the system has little else waiting to be written
/// ([`SYNCFS_MAX_WAITING_KIB`]); `None` where not, for the caller to fsync
/// each. Each file's fsync wrote its inode's block of the inode table
/// again, and a `resolve`'s 20-odd new files share a few such blocks: the
/// fsyncs queued on one another, and one `syncfs` writes each block once,
/// with one flush of the disk's cache (a `resolve` took 6% less wall time
/// and 12% less CPU, issue 11).
#[cfg(target_os = "linux")]
fn sync_filesystem_once<'a, T>(
    items: &'a [T],
    file: &impl Fn(&T) -> &File,
) -> Option<std::result::Result<(), (io::Error, &'a T)>> {
    use std::os::unix::fs::MetadataExt;
    static REPORTS_ERRORS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let flush = flush_choice();
    let reports_errors = || {
        *REPORTS_ERRORS.get_or_init(|| release_at_least(&rustix::system::uname().release().to_string_lossy(), (5, 8)))
    };
    if flush == Flush::Each || !reports_errors() {
        return None;
    }
    let first = items.first()?;
    let device = file(first).metadata().ok()?.dev();
    if items[1..].iter().any(|item| file(item).metadata().map_or(true, |m| m.dev() != device)) {
        return None;
    }
    if flush == Flush::Auto {
        let waiting = fs::read_to_string("/proc/meminfo").ok().and_then(|m| waiting_kib(&m))?;
        if waiting > SYNCFS_MAX_WAITING_KIB {
            return None;
        }
    }
    Some(rustix::fs::syncfs(file(first)).map_err(|e| (io::Error::from(e), first)))
}

/// The environment variable that chooses how several files are flushed:
/// `each` (an fsync a file, always), `together` (one `syncfs` wherever the
/// kernel and the files allow, whatever else waits to be written), else
/// the choice [`sync_filesystem_once`] makes by itself. For a disk that
/// other programs keep busy (`each`), and for tests that need the same
/// system calls in every run (tests/crash_syscalls.rs).
pub const FLUSH_VAR: &str = "ADJUTANT_FLUSH";

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flush {
    Each,
    Together,
    Auto,
}

/// [`FLUSH_VAR`]'s choice, read once.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn flush_choice() -> Flush {
    static CHOICE: std::sync::OnceLock<Flush> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| match std::env::var(FLUSH_VAR).as_deref() {
        Ok("each") => Flush::Each,
        Ok("together") => Flush::Together,
        _ => Flush::Auto,
    })
}

/// The most data, in KiB, that may be waiting to be written anywhere on
/// the system (`Dirty` and `Writeback` in /proc/meminfo) for a flush to
/// use `syncfs`: it writes whatever else waits on the filesystem too, and
/// with 400 MB another program had just written, a `resolve` took 190 ms
/// instead of 10 (issue 11). Past this, each file is fsynced.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const SYNCFS_MAX_WAITING_KIB: u64 = 4096;

/// `Dirty` plus `Writeback` of /proc/meminfo's text, in KiB; `None` when
/// either is missing or unreadable.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn waiting_kib(meminfo: &str) -> Option<u64> {
    let field = |name: &str| {
        meminfo.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
    };
    Some(field("Dirty")?.saturating_add(field("Writeback")?))
}

/// Whether a kernel's release string (`uname -r`, e.g. `6.1.0-18-amd64`)
/// starts with a `major.minor` at least `version`; false for one that
/// does not start so.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn release_at_least(release: &str, version: (u32, u32)) -> bool {
    let mut numbers = release.split(|c: char| !c.is_ascii_digit()).map(|n| n.parse::<u32>().ok());
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(major), Some(minor)) => (major, minor) >= version,
        _ => false,
    }
}

/// Fsync each file of `chunk` in turn ([`sync_all_together`]'s part).
fn sync_chunk<'a, T>(chunk: &'a [T], file: &impl Fn(&T) -> &File) -> std::result::Result<(), (io::Error, &'a T)> {
    for item in chunk {
        file(item).sync_all().map_err(|e| (e, item))?;
    }
    Ok(())
}

/// Write `bytes` to a new temporary file beside `path`; return its path.
fn write_temp(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<PathBuf> {
    let temp = parent_of(path).join(temp_name(&file_name_of(path)));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let result = options.open(&temp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match result {
        Ok(()) => Ok(temp),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(Error::io(path, e))
        }
    }
}

/// Replace (or create) `path` atomically with `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_mode(path, bytes, None)
}

/// As [`write_atomic`], creating the file with Unix permissions `mode`.
pub fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let temp = write_temp(path, bytes, mode)?;
    if let Err(e) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(Error::io(path, e));
    }
    sync_dir(parent_of(path))
}

/// Create `path` atomically with `bytes`; fail if it already exists. This is
/// how a journal grows: an entry, once written, is never replaced.
pub fn write_new_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let temp = write_temp(path, bytes, None)?;
    // link(2) refuses an existing name, atomically: two writers cannot both
    // create the same entry, even without the lock.
    let linked = fs::hard_link(&temp, path);
    let _ = fs::remove_file(&temp);
    linked.map_err(|e| Error::io(path, e))?;
    sync_dir(parent_of(path))
}

/// Files to put in place one by one, in an order the caller chooses,
/// written ahead: each one's bytes go to a temporary file beside it, none
/// flushed yet. [`Staged::flush`] then flushes them all together, with the
/// folders the caller names, so that the disk writes them at once rather
/// than one at a time; [`Staged::rename`] or [`Staged::link_new`] puts
/// each in place, before the flush or after it (a file put in place
/// before is one that commits nothing: its name may reach the disk before
/// its bytes, and what reads it must not trust it until the flush is
/// done). What is dropped without being put in place is removed.
pub struct Staged {
    /// Each file's temporary and final paths, until it is put in place.
    files: Vec<Option<(PathBuf, PathBuf)>>,
    /// Each file still open, with its final path, until the flush.
    open: Vec<(File, PathBuf)>,
}

impl Staged {
    /// Write every file of `files` (final path, bytes) to its temporary,
    /// not flushed ([`Staged::flush`]).
    pub fn write(files: &[(PathBuf, &[u8])]) -> Result<Staged> {
        let mut staged = Staged { files: Vec::with_capacity(files.len()), open: Vec::with_capacity(files.len()) };
        for (path, bytes) in files {
            let temp = parent_of(path).join(temp_name(&file_name_of(path)));
            let mut f = OpenOptions::new().write(true).create_new(true).open(&temp).map_err(|e| Error::io(path, e))?;
            staged.files.push(Some((temp, path.clone())));
            f.write_all(bytes).map_err(|e| Error::io(path, e))?;
            staged.open.push((f, path.clone()));
        }
        Ok(staged)
    }

    /// Flush every file written (under whichever of its names it has now)
    /// and the folders `dirs` (the renames and links made in them so far),
    /// all together ([`sync_all_together`]: one `syncfs` on Linux): when
    /// this returns, each is on the disk, in whatever order it got there.
    pub fn flush(&mut self, dirs: &[PathBuf]) -> Result<()> {
        let mut open = std::mem::take(&mut self.open);
        for dir in dirs {
            open.push((File::open(dir).map_err(|e| Error::io(dir, e))?, dir.clone()));
        }
        sync_all_together(&open, |(f, _)| f).map_err(|(e, (_, path))| Error::io(path, e))
    }

    fn take(&mut self, i: usize) -> Result<(PathBuf, PathBuf)> {
        self.files
            .get_mut(i)
            .and_then(Option::take)
            .ok_or_else(|| Error::usage(format!("staged file {i}: none, or put in place already")))
    }

    /// Replace (or create) file `i`'s final path with it, as
    /// [`write_atomic`] does (its folder not fsynced yet).
    pub fn rename(&mut self, i: usize) -> Result<()> {
        let (temp, path) = self.take(i)?;
        if let Err(e) = fs::rename(&temp, &path) {
            let _ = fs::remove_file(&temp);
            return Err(Error::io(&path, e));
        }
        Ok(())
    }

    /// Create file `i`'s final path with it, failing if it exists, as
    /// [`write_new_atomic`] does (its folder not fsynced yet).
    pub fn link_new(&mut self, i: usize) -> Result<()> {
        let (temp, path) = self.take(i)?;
        let linked = fs::hard_link(&temp, &path);
        let _ = fs::remove_file(&temp);
        linked.map_err(|e| Error::io(&path, e))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (temp, _) in self.files.iter().flatten() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Read a whole file, naming it on error.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|e| Error::io(path, e))
}

/// Read a whole UTF-8 file, naming it on error.
pub fn read_text(path: &Path, label: &str) -> Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::Data(Located {
            file: label.to_string(),
            line: None,
            column: None,
            field: String::new(),
            message: format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
            code: None,
        })
    })
}

/// Remove a file and make the removal durable (fsync of its folder).
pub fn remove_file(path: &Path) -> Result<()> {
    fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

/// The temporary files (and folders) in `dir`, sorted; none when `dir`
/// does not exist.
pub fn list_temps(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// Remove a temporary file or folder a killed command left. Call only
/// while holding the folder's exclusive lock, so that no live writer's
/// file is removed.
pub fn remove_temp(path: &Path) -> Result<()> {
    let removed = if path.is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) };
    match removed {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Remove temporary files (and folders) a killed command left in `dir`.
/// Call only while holding the folder's exclusive lock, so that no live
/// writer's file is removed.
pub fn remove_stale_temps(dir: &Path) -> Result<()> {
    for path in list_temps(dir)? {
        remove_temp(&path)?;
    }
    Ok(())
}

/// The names of the entries of `dir`, sorted.
pub fn list_names(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// The `.yaml` files of `dir` by the name before `.yaml`, with their paths,
/// sorted; none when `dir` does not exist. Temporary files are skipped.
pub fn yaml_files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(TEMP_PREFIX) {
            continue;
        }
        if let Some(stem) = name.strip_suffix(".yaml") {
            found.push((stem.to_string(), entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Create the folder `dir` if it is missing (durably).
pub fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    fs::create_dir(dir).map_err(|e| Error::io(dir, e))?;
    sync_dir(parent_of(dir))
}

/// Create the folder `target` holding `files` (name -> bytes) at once: they
/// are written into a temporary folder beside it, which is then renamed.
/// Fails if `target` exists.
pub fn write_dir_atomic(target: &Path, files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<()> {
    if target.exists() {
        return Err(Error::io(target, io::Error::new(io::ErrorKind::AlreadyExists, "already exists")));
    }
    stage_and_rename(target, files)
}

/// Create the folder `target` holding `files` (a path in the folder, `/`
/// between subfolders -> bytes) at once: they are written into a
/// temporary folder beside it, which is then renamed into place. `target`
/// may be missing or an empty folder (the rename replaces it); a folder
/// with anything in it is refused, untouched.
pub fn write_tree_atomic(target: &Path, files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<()> {
    match fs::read_dir(target) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::usage(format!("{}: not empty; give a new or empty folder", target.display())));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(target, e)),
    }
    for name in files.keys() {
        let bad = name.is_empty()
            || name.starts_with('/')
            || name.split('/').any(|part| part.is_empty() || part == "." || part == "..");
        if bad {
            return Err(Error::usage(format!("'{name}': not a file name inside a folder")));
        }
    }
    stage_and_rename(target, files)
}

/// Write `files` into a temporary folder beside `target` and put it in
/// place ([`StagedDir::write`], then [`StagedDir::place`]).
fn stage_and_rename(target: &Path, files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<()> {
    StagedDir::write(target, files)?.place().map(|_| ())
}

/// A folder written and made durable under a temporary name beside its
/// target, not yet in place: [`StagedDir::place`] renames it; dropped
/// unplaced, it is removed (a killed command's is removed by the next one,
/// as every `.tmp-` name). Writing a folder's files ahead, while other
/// writes are flushed, takes their fsyncs out of the time the rename waits.
pub struct StagedDir {
    temp: PathBuf,
    target: PathBuf,
    placed: bool,
}

impl StagedDir {
    /// Write `files` (a path in the folder, `/` between subfolders ->
    /// bytes) into a temporary folder beside `target`, then make every file
    /// and folder durable. Every file is written first, then all of them
    /// and the folders are fsynced together: the disk flushes them at once
    /// rather than one at a time. On any failure the temporary folder is
    /// removed.
    pub fn write(target: &Path, files: &std::collections::BTreeMap<String, Vec<u8>>) -> Result<StagedDir> {
        let staged = StagedDir {
            temp: parent_of(target).join(temp_name(&file_name_of(target))),
            target: target.to_path_buf(),
            placed: false,
        };
        let written = (|| -> io::Result<()> {
            fs::create_dir(&staged.temp)?;
            let mut open = Vec::with_capacity(files.len());
            let mut folders = std::collections::BTreeSet::new();
            for (name, bytes) in files {
                let path = staged.temp.join(name);
                if let Some(dir) = path.parent().filter(|d| *d != staged.temp) {
                    fs::create_dir_all(dir)?;
                    folders.insert(dir.to_path_buf());
                }
                let mut f = OpenOptions::new().write(true).create_new(true).open(&path)?;
                f.write_all(bytes)?;
                open.push(f);
            }
            // The folders are fsynced with the files, all at once: the
            // order among them does not matter, as the temporary folder is
            // only a leftover to remove (recovery.rs) until every fsync has
            // ended and `place` renames it (one wait for the disk fewer
            // than its folders after its files, in every resolve).
            for dir in folders.iter().chain([&staged.temp]) {
                open.push(File::open(dir)?);
            }
            sync_all_together(&open, |f| f).map_err(|(e, _)| e)
        })();
        // On failure `staged` is dropped unplaced: its folder is removed.
        written.map_err(|e| Error::io(target, e))?;
        Ok(staged)
    }

    /// Rename the folder to its target and make the rename durable (fsync
    /// of the parent); the target's path.
    pub fn place(mut self) -> Result<PathBuf> {
        fs::rename(&self.temp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        self.placed = true;
        sync_dir(parent_of(&self.target))?;
        Ok(self.target.clone())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.placed {
            let _ = fs::remove_dir_all(&self.temp);
        }
    }
}

/// How long a command waits for another working on the same folder, unless
/// told (`--wait`).
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// A lock on a folder (exclusive or shared), held until dropped.
pub struct FolderLock {
    _file: File,
}

/// The lock file of a folder.
pub const LOCK_FILE: &str = ".lock";

/// Take the folder's exclusive lock (`.lock` in it, created if missing),
/// waiting up to `wait` for other commands to finish with it.
pub fn lock_folder(dir: &Path, wait: Duration) -> Result<FolderLock> {
    let path = dir.join(LOCK_FILE);
    let file =
        OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
    wait_for(dir, &path, wait, || file.try_lock())?;
    Ok(FolderLock { _file: file })
}

/// Take the folder's lock shared, for a command that only reads: any
/// number of readers at once, none while a writer holds it. `.lock` is
/// opened read-only, so that a folder without write permission can be
/// read; a folder without `.lock` (a published copy nobody writes to)
/// needs no lock, and gives `None`.
pub fn lock_folder_shared(dir: &Path, wait: Duration) -> Result<Option<FolderLock>> {
    let path = dir.join(LOCK_FILE);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    wait_for(dir, &path, wait, || file.try_lock_shared())?;
    Ok(Some(FolderLock { _file: file }))
}

/// Retry `attempt` until it takes the lock, for up to `wait`.
fn wait_for(
    dir: &Path,
    path: &Path,
    wait: Duration,
    attempt: impl Fn() -> std::result::Result<(), TryLockError>,
) -> Result<()> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match attempt() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) => {
                if start.elapsed() >= wait {
                    return Err(Error::Locked { path: dir.to_path_buf(), waited_secs: wait.as_secs() });
                }
                thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
    }
}

/// True when an error says the folder cannot be written (permissions, a
/// read-only file system).
pub fn is_read_only(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. }
        if matches!(source.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `syncfs` is used from Linux 5.8 on, where it reports write errors.
    #[test]
    fn release_at_least_reads_major_and_minor() {
        for (release, at_least) in [
            ("5.8.0", true),
            ("5.10.0-28-amd64", true),
            ("6.1.0-18-amd64", true),
            ("6.18.44-fc-v1272", true),
            ("5.7.19", false),
            ("4.18.0-513.el8.x86_64", false),
            ("5", false),
            ("", false),
            ("x5.9", false),
        ] {
            assert_eq!(release_at_least(release, (5, 8)), at_least, "{release}");
        }
    }

    /// How much waits to be written, from /proc/meminfo's text.
    #[test]
    fn waiting_kib_adds_dirty_and_writeback() {
        let meminfo = "MemTotal:       24576000 kB\nDirty:              96 kB\nWriteback:          12 kB\nWritebackTmp:        0 kB\n";
        assert_eq!(waiting_kib(meminfo), Some(108));
        assert_eq!(waiting_kib("Dirty: 5 kB\n"), None, "no Writeback line");
        assert_eq!(waiting_kib("Dirty: x kB\nWriteback: 0 kB\n"), None);
        assert_eq!(waiting_kib(""), None);
    }

    /// Files of one folder flushed together (one `syncfs` on Linux): each
    /// is written whole, and none is reported as failed.
    #[test]
    fn files_flushed_together_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..5).map(|i| dir.path().join(format!("f{i}"))).collect();
        let files: Vec<(PathBuf, &[u8])> = paths.iter().map(|p| (p.clone(), p.to_str().unwrap().as_bytes())).collect();
        let mut staged = Staged::write(&files).unwrap();
        for i in 0..paths.len() {
            staged.rename(i).unwrap();
        }
        for p in &paths {
            assert_eq!(fs::read(p).unwrap(), p.to_str().unwrap().as_bytes());
        }
    }

    #[test]
    fn write_new_refuses_to_replace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000001.yaml");
        write_new_atomic(&path, b"first").unwrap();
        let err = write_new_atomic(&path, b"second").unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"first");
        // No temporary file is left behind by either call.
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("000001.yaml")]);
    }

    #[test]
    fn write_atomic_replaces_and_sets_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        write_atomic_mode(&path, b"one", Some(0o600)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            write_atomic_mode(&path, b"three", Some(0o600)).unwrap();
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn write_into_missing_folder_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("x.yaml");
        let err = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("x.yaml"), "{err}");
    }

    #[test]
    fn lock_is_exclusive_and_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_folder(dir.path(), Duration::ZERO).unwrap();
        let err = match lock_folder(dir.path(), Duration::from_millis(30)) {
            Err(e) => e,
            Ok(_) => panic!("a second lock on the same folder was granted"),
        };
        assert!(matches!(err, Error::Locked { .. }));
        drop(held);
        lock_folder(dir.path(), Duration::ZERO).unwrap();
    }

    #[test]
    fn shared_locks_share_and_exclude_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        // No lock file: a published copy, nobody writes there.
        assert!(lock_folder_shared(dir.path(), Duration::ZERO).unwrap().is_none());
        fs::write(dir.path().join(LOCK_FILE), b"").unwrap();
        let one = lock_folder_shared(dir.path(), Duration::ZERO).unwrap().expect("a lock");
        let two = lock_folder_shared(dir.path(), Duration::ZERO).unwrap().expect("a second reader");
        assert!(matches!(lock_folder(dir.path(), Duration::from_millis(20)), Err(Error::Locked { .. })));
        drop((one, two));
        let writer = lock_folder(dir.path(), Duration::ZERO).unwrap();
        assert!(matches!(lock_folder_shared(dir.path(), Duration::from_millis(20)), Err(Error::Locked { .. })));
        drop(writer);
        assert!(lock_folder_shared(dir.path(), Duration::ZERO).unwrap().is_some());
    }
}
