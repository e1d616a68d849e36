//! The library's one error type. The command line turns it into one line on
//! standard error and an exit status (`Error::exit_code`).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::base::dice::{DiceError, HexError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input was refused: an invalid file, a failed verification. Exit 1.
    #[error("{0}")]
    Refused(String),
    /// Orders refused by a system's rules, with the stable code and the
    /// rule of each reason (docs/refusals.md): the message lists them.
    /// Exit 1.
    #[error("{message}")]
    Coded { message: String, codes: Vec<RefusalCode> },
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
            Error::Refused(_) | Error::Coded { .. } => 1,
            _ => 2,
        }
    }

    /// What kind of error, in one word, as `--format json` names it:
    /// refused, usage, data, io, locked or dice.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Refused(_) | Error::Coded { .. } => "refused",
            Error::Usage(_) => "usage",
            Error::Data(_) => "data",
            Error::Io { .. } => "io",
            Error::Locked { .. } => "locked",
            Error::Dice(_) => "dice",
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

    /// Orders refused for the reasons `codes` name (each with its rule).
    pub fn coded(message: impl Into<String>, codes: Vec<RefusalCode>) -> Self {
        Error::Coded { message: message.into(), codes }
    }

    /// The codes of a refusal by a system's rules; none for any other error.
    pub fn codes(&self) -> &[RefusalCode] {
        match self {
            Error::Coded { codes, .. } => codes,
            _ => &[],
        }
    }

    /// The text of a refusal (exit 1): its message, for the refusals the
    /// shell passes on as text (an inbox entry, a mailed reply).
    pub fn refusal_text(&self) -> Option<String> {
        match self {
            Error::Refused(message) | Error::Coded { message, .. } => Some(message.clone()),
            _ => None,
        }
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

/// Why a system refuses orders, as the shell carries it without knowing
/// the system: a stable code (`over-stacked`) and the rule that decides it
/// (`7.1`, `Savannah 4.1`). A system keeps its list of codes in one place
/// and documents it (GBoAR's: docs/refusals.md).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RefusalCode {
    pub code: String,
    pub rule: String,
}

impl fmt::Display for RefusalCode {
    /// `[over-stacked, 7.1]`, as a problem line ends.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.code, self.rule)
    }
}

/// A problem at a place in a data file: `file:line:column: field.path:
/// message`, and for orders a system refuses, ` [code, rule]` after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub field: String,
    pub message: String,
    /// Orders refused by a system's rules: the code and rule of the reason
    /// (boxed, so that an error holding a problem stays small).
    pub code: Option<Box<RefusalCode>>,
}

/// A located problem is one line: whatever player text reached its file
/// name, field or message is escaped ([`escape`]), and the field and the
/// message are bounded ([`FIELD_CHARS`], [`MESSAGE_CHARS`]) in case a
/// player's string reached them whole.
impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", escape(&self.file))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if !self.field.is_empty() && self.field != "." {
            write!(f, ": {}", echo_at_most(&self.field, FIELD_CHARS))?;
        }
        write!(f, ": {}", echo_at_most(&self.message, MESSAGE_CHARS))?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        Ok(())
    }
}

/// The most problems of one file a refusal lists; the rest are counted.
pub const MAX_PROBLEMS: usize = 50;

/// The first [`MAX_PROBLEMS`] problems as lines, and how many more there are.
pub fn first_problems<T: fmt::Display>(problems: &[T]) -> (Vec<String>, usize) {
    let listed = problems.iter().take(MAX_PROBLEMS).map(ToString::to_string).collect();
    (listed, problems.len().saturating_sub(MAX_PROBLEMS))
}

/// The first [`MAX_PROBLEMS`] problems as lines, then a line that says
/// how many more there are (`… and 99950 more problems`), if any.
pub fn capped_problems<T: fmt::Display>(problems: &[T]) -> Vec<String> {
    let (mut lines, more) = first_problems(problems);
    if more > 0 {
        lines.push(more_problems(more));
    }
    lines
}

/// [`capped_problems`], one a line.
pub fn problem_list<T: fmt::Display>(problems: &[T]) -> String {
    capped_problems(problems).join("\n")
}

/// The line that counts the problems not listed.
pub fn more_problems(more: usize) -> String {
    format!("… and {more} more problem{} (the first {MAX_PROBLEMS} are listed)", if more == 1 { "" } else { "s" })
}

/// The most characters of a player's string a message quotes ([`echo`]).
pub const ECHO_CHARS: usize = 60;
/// The most characters of a field path a located problem shows.
pub const FIELD_CHARS: usize = 200;
/// The most characters of one problem's message: a bound that only a
/// player's string quoted whole could reach.
pub const MESSAGE_CHARS: usize = 2_000;

/// Whether `c` may not reach a terminal or a mail as it is: control
/// characters (C0, DEL, C1: escapes, NUL, line breaks, tabs), the line and
/// paragraph separators, and the bidirectional controls that reorder what
/// a terminal shows (U+061C, U+200E/F, U+202A-E, U+2066-9).
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// Text made safe to print or mail: every control character, line break
/// and bidirectional control written as an escape (`\n`, `\u{1b}`,
/// `\u{202e}`); anything else as it is. Never shortens the text; applying
/// it twice changes nothing more.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// As [`escape`], keeping line breaks: for text of several lines (a list
/// of problems) whose lines are each already built from escaped parts.
pub fn escape_lines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// A player's string as a message quotes it: escaped ([`escape`]) and, past
/// [`ECHO_CHARS`] characters, cut with its size in bytes after it
/// (`dillon-irish-dillon-…(10485760 bytes)`). Every message that quotes
/// what a player wrote (a unit id, a side, a game id, a hex, a file name
/// from an attachment, a subject) goes through here.
pub fn echo(text: &str) -> String {
    echo_at_most(text, ECHO_CHARS)
}

/// [`echo`] with a bound of `max` characters.
pub fn echo_at_most(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => escape(text).into_owned(),
        Some((cut, _)) => format!("{}…({} bytes)", escape(&text[..cut]), text.len()),
    }
}

/// A serde error about a player's file, bounded: the strings it quotes
/// (`unknown field \`...\``, `invalid type: string "..."`) are cut as
/// [`echo`] cuts them, and the whole escaped.
pub fn echo_serde(error: &impl fmt::Display) -> String {
    let text = error.to_string();
    let mut out = String::with_capacity(text.len().min(4 * MESSAGE_CHARS));
    let mut rest = text.as_str();
    // Each quoted run (between backquotes or double quotes) is echoed.
    while let Some(open) = rest.find(['`', '"']) {
        let quote = &rest[open..open + 1];
        let Some(len) = rest[open + 1..].find(quote) else { break };
        out.push_str(&escape(&rest[..open]));
        out.push_str(quote);
        out.push_str(&echo(&rest[open + 1..open + 1 + len]));
        out.push_str(quote);
        rest = &rest[open + 1 + len + 1..];
    }
    out.push_str(&echo_at_most(rest, MESSAGE_CHARS));
    out
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_writes_every_unsafe_character_as_an_escape() {
        assert_eq!(escape("dillon-irish"), "dillon-irish");
        assert_eq!(escape("a\nb\r\tc\0"), "a\\nb\\r\\tc\\0");
        assert_eq!(escape("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(escape("x\u{7f}\u{85}\u{9b}"), "x\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(escape("abc\u{202e}fed\u{2066}\u{2069}\u{200f}"), "abc\\u{202e}fed\\u{2066}\\u{2069}\\u{200f}");
        assert_eq!(escape("l\u{2028}p\u{2029}"), "l\\u{2028}p\\u{2029}");
        // Letters of any script stay as they are; escaping twice is escaping once.
        assert_eq!(escape("d'Estaing, café, Šťastný, 東京"), "d'Estaing, café, Šťastný, 東京");
        let once = escape("a\u{1b}b\nc").into_owned();
        assert_eq!(escape(&once), once);
        assert_eq!(escape_lines("one \u{1b}\ntwo\u{202e}"), "one \\u{1b}\ntwo\\u{202e}");
    }

    #[test]
    fn echo_cuts_long_strings_and_says_their_size() {
        assert_eq!(echo("dilon-irish"), "dilon-irish");
        let id = "x".repeat(10_485_760);
        let shown = echo(&id);
        assert_eq!(shown, format!("{}…(10485760 bytes)", "x".repeat(60)));
        // Characters, not bytes, are counted; a cut never splits one.
        let wide = "é".repeat(61);
        assert_eq!(echo(&wide), format!("{}…(122 bytes)", "é".repeat(60)));
        assert_eq!(echo(&"é".repeat(60)), "é".repeat(60));
        // Escapes count after the cut: the bound is on what the player wrote.
        assert!(echo(&"\u{1b}".repeat(100)).ends_with("…(100 bytes)"));
    }

    #[test]
    fn serde_messages_quote_bounded_strings() {
        let long = "k".repeat(5000);
        let message = format!("unknown field `{long}`, expected one of `unit`, `stack`");
        assert_eq!(
            echo_serde(&message),
            format!("unknown field `{}…(5000 bytes)`, expected one of `unit`, `stack`", "k".repeat(60))
        );
        let message = "invalid type: string \"a\u{1b}b\nc\", expected u32";
        assert_eq!(echo_serde(&message), "invalid type: string \"a\\u{1b}b\\nc\", expected u32");
        // An unclosed quote leaves the rest bounded as a whole.
        let message = format!("odd `{}", "z".repeat(3000));
        assert!(echo_serde(&message).chars().count() < MESSAGE_CHARS + 40);
    }

    #[test]
    fn long_lists_of_problems_are_cut() {
        let problems: Vec<String> = (0..100_000).map(|i| format!("problem {i}")).collect();
        let list = problem_list(&problems);
        assert_eq!(list.lines().count(), MAX_PROBLEMS + 1);
        assert!(list.starts_with("problem 0\nproblem 1\n"));
        assert!(list.ends_with("problem 49\n… and 99950 more problems (the first 50 are listed)"), "{list}");
        assert_eq!(problem_list(&problems[..50]).lines().count(), 50);
        assert!(problem_list(&problems[..51]).ends_with("… and 1 more problem (the first 50 are listed)"));
    }

    #[test]
    fn a_located_problem_is_one_bounded_line() {
        let l = Located {
            file: "orders\n.yaml".into(),
            line: Some(3),
            column: Some(7),
            field: format!("enter.{}", "u".repeat(1000)),
            message: format!("there is no unit '{}'\u{1b}[2J", "v".repeat(1_000_000)),
            code: None,
        };
        let shown = l.to_string();
        assert!(!shown.contains('\n') && !shown.contains('\u{1b}'), "{shown}");
        assert!(shown.starts_with("orders\\n.yaml:3:7: enter.uuu"), "{shown}");
        assert!(shown.len() < FIELD_CHARS + MESSAGE_CHARS + 100, "{}", shown.len());
    }
}
