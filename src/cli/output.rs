//! Where results go: standard output, as text (coloured or not) or JSON.
//! Colour is decided once, here.

use std::io::{self, IsTerminal, Write};

use serde::Serialize;

use super::arguments::{ColorChoice, Format};

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub enabled: bool,
}

impl Style {
    /// `auto`: only on a terminal, and never when NO_COLOR is set to anything.
    pub fn decide(choice: ColorChoice, terminal: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color,
        };
        Style { enabled }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub fn good(&self, s: &str) -> String {
        self.paint("1;32", s)
    }

    pub fn bad(&self, s: &str) -> String {
        self.paint("1;31", s)
    }

    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }

    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
}

/// Standard output, in the format asked for.
pub struct Out {
    pub format: Format,
    pub style: Style,
}

/// Raised when the reader of standard output went away (`adjutant ... | head`):
/// not an error, the command just stops.
#[derive(Debug)]
pub struct BrokenPipe;

impl Out {
    pub fn new(format: Format, color: ColorChoice) -> Out {
        Out { format, style: Style::decide(color, io::stdout().is_terminal()) }
    }

    pub fn write(&self, text: &str) -> Result<(), BrokenPipe> {
        let mut stdout = io::stdout().lock();
        match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(BrokenPipe),
            // Any other failure of standard output is as good as a closed pipe:
            // there is nowhere left to report it.
            Err(_) => Err(BrokenPipe),
        }
    }

    pub fn line(&self, text: &str) -> Result<(), BrokenPipe> {
        self.write(&format!("{text}\n"))
    }

    /// Print `value` as JSON, or `text` when the format is text.
    pub fn result<T: Serialize>(&self, value: &T, text: impl FnOnce(&Style) -> String) -> Result<(), BrokenPipe> {
        match self.format {
            Format::Json => {
                let json = serde_json::to_string_pretty(value).expect("results always serialise");
                self.line(&json)
            }
            Format::Text => self.write(&text(&self.style)),
        }
    }
}
