//! The library's one error type. The command line turns it into one line on
//! standard error and an exit status (`Error::exit_code`).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::dice::{DiceError, HexError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input was refused: an invalid file, a failed verification. Exit 1.
    #[error("{0}")]
    Refused(String),
    /// The request itself is wrong (a bad argument). Exit 2.
    #[error("{0}")]
    Usage(String),
    /// A data file (game.yaml, a module file) cannot be read as what it must be. Exit 2.
    #[error("{0}")]
    Data(Located),
    /// The operating system refused: missing folder, full disk, permissions. Exit 2.
    #[error("{}: {}", path.display(), describe_io(source))]
    Io { path: PathBuf, source: io::Error },
    /// Another command holds the game folder. Exit 2.
    #[error("{}: another adjutant command is working on this folder; waited {waited_secs} s for it (try again, or raise --wait)", path.display())]
    Locked { path: PathBuf, waited_secs: u64 },
    #[error("{0}")]
    Dice(#[from] DiceError),
}

impl Error {
    /// 0 ok, 1 refused input, 2 usage, I/O or data error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Refused(_) => 1,
            _ => 2,
        }
    }

    pub fn io(path: impl AsRef<Path>, source: io::Error) -> Self {
        Error::Io { path: path.as_ref().to_path_buf(), source }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    pub fn refused(message: impl Into<String>) -> Self {
        Error::Refused(message.into())
    }

    pub fn hex(what: &str, e: HexError) -> Self {
        Error::Usage(format!("{what}: {e}"))
    }
}

fn describe_io(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "not found".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::AlreadyExists => "already exists".to_string(),
        _ => e.to_string(),
    }
}

/// A problem at a place in a data file: `file:line:column: field.path: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub field: String,
    pub message: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if !self.field.is_empty() && self.field != "." {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
