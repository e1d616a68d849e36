//! What every orders file passes before it is parsed, on every path it
//! enters by: `validate`, `submit` (a file, standard input, an email, a
//! standing orders file), `resolve FILES`, and the inbox's and standing
//! orders' files when their step comes. Limits that no real orders file
//! comes near (a turn's orders are a few kilobytes, nested four or five
//! deep), checked in time linear in the input and before any YAML parser
//! sees it, so that a hostile file costs no more than reading it:
//!
//! - at most [`MAX_ORDERS_BYTES`] (1 MiB) per orders file, and
//!   [`MAX_MESSAGE_BYTES`] (10 MiB) per email message; a larger file is
//!   never read past its limit;
//! - UTF-8 text (a byte that is not is refused with its offset, line and
//!   column);
//! - a UTF-8 byte order mark at the start is accepted and skipped before
//!   parsing, never before hashing: the dice bind to the exact bytes
//!   (DICE.md §3), which keep it;
//! - nested at most [`MAX_DEPTH`] deep, as [`crate::base::yaml::depth`] counts.
//!
//! Everything here is refused input (exit 1), with the file's name.

use std::io::Read;
use std::path::Path;

use crate::base::error::{Error, Located, Result};

/// The most bytes an orders file may have: 1 MiB.
pub const MAX_ORDERS_BYTES: usize = 1 << 20;
/// The most bytes a message `submit --email` reads: 10 MiB.
pub const MAX_MESSAGE_BYTES: usize = 10 << 20;
/// The deepest an orders file may nest lists and mappings.
pub const MAX_DEPTH: usize = 64;

/// The UTF-8 byte order mark.
const BOM: char = '\u{feff}';

fn refusal(label: &str, position: Option<(usize, usize)>, message: String) -> Located {
    Located {
        file: label.to_string(),
        line: position.map(|p| p.0),
        column: position.map(|p| p.1),
        field: String::new(),
        message,
        code: None,
    }
}

fn too_large(label: &str, size: Option<u64>, limit: usize, what: &str) -> Located {
    let size = match size {
        Some(n) => format!("{n} bytes"),
        None => format!("more than {limit} bytes"),
    };
    let mib = if limit.is_multiple_of(1 << 20) { format!(" ({} MiB)", limit >> 20) } else { String::new() };
    refusal(label, None, format!("{size}: {what} is at most {limit} bytes{mib}; nothing larger is read"))
}

/// Read at most `limit` bytes of `path`: a larger file is refused (exit 1)
/// without being read past its limit; a missing or unreadable one is an
/// I/O error (exit 2). `what` names the kind of input in the refusal.
pub fn read_file(path: &Path, limit: usize, what: &str) -> Result<Vec<u8>> {
    let label = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if size.is_some_and(|n| n > limit as u64) {
        return Err(Error::refused(too_large(&label, size, limit, what).to_string()));
    }
    read_stream(file, &label, limit, what).map_err(|e| match e {
        Error::Io { source, .. } => Error::io(path, source),
        e => e,
    })
}

/// Read at most `limit` bytes from `reader` (standard input): more is
/// refused (exit 1) after reading one byte past the limit.
pub fn read_stream(reader: impl Read, label: &str, limit: usize, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| Error::io(label, e))?;
    if bytes.len() > limit {
        return Err(Error::refused(too_large(label, None, limit, what).to_string()));
    }
    Ok(bytes)
}

/// Read a file that is already in a game folder (the inbox, standing
/// orders) without ever holding more than one byte past `limit` of it:
/// what [`orders_text`] then refuses if it is too long.
pub fn read_capped(path: &Path, limit: usize) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// The 1-based line and column (in characters) of byte `offset` of
/// `text`, which is valid UTF-8 up to it.
fn line_and_column(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line_start = before.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|b| **b == b'\n').count();
    let column = 1 + String::from_utf8_lossy(&before[line_start..]).chars().count();
    (line, column)
}

/// An orders file's bytes as the text to parse, or why they are refused:
/// larger than [`MAX_ORDERS_BYTES`], not UTF-8 (the byte's offset, line
/// and column), or nested deeper than [`MAX_DEPTH`]. A byte order mark
/// at the start is left out of the text (the bytes, which the dice bind
/// to, keep it).
pub fn orders_text<'a>(label: &str, bytes: &'a [u8]) -> std::result::Result<&'a str, Located> {
    if bytes.len() > MAX_ORDERS_BYTES {
        // One byte past the limit is what a capped read holds of any larger file.
        let size = Some(bytes.len() as u64).filter(|n| *n != MAX_ORDERS_BYTES as u64 + 1);
        return Err(too_large(label, size, MAX_ORDERS_BYTES, "an orders file"));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        refusal(
            label,
            Some(line_and_column(bytes, offset)),
            format!(
                "not UTF-8 text: byte {offset} (0x{:02x}) is not UTF-8; save the orders as UTF-8 text",
                bytes[offset]
            ),
        )
    })?;
    let text = text.strip_prefix(BOM).unwrap_or(text);
    if let Some(at) = tab_in_indentation(text) {
        return Err(refusal(
            label,
            Some(at),
            "a tab: YAML indents with spaces only; replace the tab at the start of this line with spaces (two \
             for each level)"
                .to_string(),
        ));
    }
    if let Some(at) = crate::base::yaml::depth::deeper_than(text, MAX_DEPTH) {
        return Err(refusal(
            label,
            Some(at),
            format!(
                "lists and mappings nested more than {MAX_DEPTH} deep here; orders files nest a few levels \
                 (moves, a move, its path)"
            ),
        ));
    }
    Ok(text)
}

/// [`orders_text`] as an error: refused input (exit 1).
/// The first tab in the indentation of a line of `text` (1-based line and
/// column), when the text is not YAML because of it.
fn tab_in_indentation(text: &str) -> Option<(usize, usize)> {
    let at = text.lines().enumerate().find_map(|(i, line)| {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let rest = &line[indent..];
        line[..indent].find('\t').filter(|_| !rest.is_empty()).map(|c| (i + 1, c + 1))
    })?;
    // A tab YAML accepts (it may separate a value from its key) is left alone.
    crate::base::yaml::from_str::<crate::base::yaml::Value>(text).is_err().then_some(at)
}

pub fn orders_text_or_refuse<'a>(label: &str, bytes: &'a [u8]) -> Result<&'a str> {
    orders_text(label, bytes).map_err(|l| Error::refused(l.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_utf8_bom_and_depth() {
        assert_eq!(orders_text("o.yaml", b"game: g\n").unwrap(), "game: g\n");
        assert_eq!(orders_text("o.yaml", "\u{feff}game: g\n".as_bytes()).unwrap(), "game: g\n");
        // Only one mark, and only at the start, is skipped.
        assert_eq!(orders_text("o.yaml", "\u{feff}\u{feff}a".as_bytes()).unwrap(), "\u{feff}a");
        let big = vec![b'#'; MAX_ORDERS_BYTES + 1];
        let e = orders_text("big.yaml", &big).unwrap_err().to_string();
        assert_eq!(e, "big.yaml: more than 1048576 bytes: an orders file is at most 1048576 bytes (1 MiB); nothing larger is read");
        let e = orders_text("big.yaml", &[big.as_slice(), b"#"].concat()).unwrap_err().to_string();
        assert!(e.starts_with("big.yaml: 1048578 bytes: "), "{e}");
        assert!(orders_text("o.yaml", &big[1..]).is_ok());
        let e = orders_text("o.yaml", b"game: g\nturn: 1\xff6\n").unwrap_err().to_string();
        assert_eq!(e, "o.yaml:2:8: not UTF-8 text: byte 15 (0xff) is not UTF-8; save the orders as UTF-8 text");
        let e = orders_text("o.yaml", b"a: \"\xc3\xa9\xc3\xa9\"\xc3").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(8)));
        let e = orders_text("o.yaml", b"game: g\nmoves:\n\t- {unit: a}\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "o.yaml:3:1: a tab: YAML indents with spaces only; replace the tab at the start of this line with \
             spaces (two for each level)"
        );
        // A tab YAML reads is left alone.
        assert!(orders_text("o.yaml", b"game:\tg\n").is_ok());
        let e = orders_text("o.yaml", "[".repeat(100_000).as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(64)));
        assert!(e.message.contains("nested more than 64 deep"), "{e}");
    }

    #[test]
    fn reading_stops_past_the_limit() {
        let e = read_stream(std::io::repeat(b'a'), "standard input", 1000, "an orders file").unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "standard input: more than 1000 bytes: an orders file is at most 1000 bytes; nothing larger is read"
        );
        assert_eq!(read_stream(&b"abc"[..], "-", 3, "x").unwrap(), b"abc");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        std::fs::write(&path, vec![b' '; 5000]).unwrap();
        let e = read_file(&path, 4096, "an orders file").unwrap_err();
        assert!(e.to_string().contains("5000 bytes: an orders file is at most 4096 bytes"), "{e}");
        assert_eq!(read_capped(&path, 100).unwrap().len(), 101);
        assert_eq!(read_file(&dir.path().join("none"), 10, "x").unwrap_err().exit_code(), 2);
    }
}
