//! The report templates (minijinja): the defaults of the repository's
//! `templates/` folder, embedded in the binary, each of which a folder of
//! the user's (a game folder's own `templates/`, or one given by flag) may
//! replace with a file of the same name.
//!
//! A template that fails, when it is read or when it renders, is an error
//! naming its file, its line and what failed; never a panic.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use minijinja::value::StringInput;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};

use crate::base::error::{Error, Located, Result};
use crate::base::fsio;

/// The text report's template.
pub const TEXT: &str = "report.txt.j2";
/// The Markdown report's template.
pub const MARKDOWN: &str = "report.md.j2";
/// The HTML report's template: everything it prints is HTML-escaped.
pub const HTML: &str = "report.html.j2";

/// The defaults, as the repository's `templates/` folder has them.
const DEFAULTS: [(&str, &str); 3] = [
    (TEXT, include_str!("../../templates/report.txt.j2")),
    (MARKDOWN, include_str!("../../templates/report.md.j2")),
    (HTML, include_str!("../../templates/report.html.j2")),
];

/// The report templates, read and compiled.
pub struct Templates {
    env: Environment<'static>,
    /// Where each template came from, for messages: the override file's
    /// path, or `templates/NAME (built in)`.
    origins: BTreeMap<&'static str, String>,
}

impl fmt::Debug for Templates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Templates").field("origins", &self.origins).finish()
    }
}

/// The built-in templates, then any file of `override_dir` named like one of
/// them in its place. A folder that is given must exist. Every template is
/// compiled here, so that a syntax error is found before anything renders.
pub fn load_templates(override_dir: Option<&Path>) -> Result<Templates> {
    if let Some(dir) = override_dir {
        if !dir.is_dir() {
            return Err(Error::usage(format!("{}: no such templates folder", dir.display())));
        }
    }
    let mut env = Environment::new();
    configure(&mut env);
    let mut origins = BTreeMap::new();
    for (name, default) in DEFAULTS {
        let path = override_dir.map(|d| d.join(name)).filter(|p| p.is_file());
        let (source, origin) = match path {
            Some(path) => {
                let label = path.display().to_string();
                (fsio::read_text(&path, &label)?, label)
            }
            None => (default.to_string(), format!("templates/{name} (built in)")),
        };
        env.add_template_owned(name, source).map_err(|e| located(&origin, &e))?;
        origins.insert(name, origin);
    }
    Ok(Templates { env, origins })
}

fn configure(env: &mut Environment<'static>) {
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .expect("the default delimiters are valid");
    env.set_syntax(syntax);
    // A misspelt name is an error at its line, not an empty string.
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    env.set_auto_escape_callback(|name| if name.ends_with(".html.j2") { AutoEscape::Html } else { AutoEscape::None });
    env.add_filter("md", md);
    env.add_filter("md_code", md_code);
    env.add_filter("json", json);
}

impl Templates {
    /// Where the template `name` came from.
    pub fn origin(&self, name: &str) -> Option<&str> {
        self.origins.get(name).map(String::as_str)
    }

    /// Render the template `name` with `context`.
    pub(crate) fn render(&self, name: &str, context: Value) -> Result<String> {
        let origin = |e: &minijinja::Error| {
            e.name().and_then(|n| self.origin(n)).or_else(|| self.origin(name)).unwrap_or(name).to_string()
        };
        let template = self.env.get_template(name).map_err(|e| located(&origin(&e), &e))?;
        template.render(context).map_err(|e| located(&origin(&e), &e))
    }
}

/// A minijinja error as `file:line: what failed, near `the line``.
fn located(file: &str, e: &minijinja::Error) -> Error {
    let mut message = e.kind().to_string();
    if let Some(detail) = e.detail() {
        message += &format!(": {detail}");
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message += &format!("; {s}");
        source = s.source();
    }
    let text = e.line().zip(e.template_source()).and_then(|(n, src)| src.lines().nth(n.checked_sub(1)?));
    if let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) {
        let short: String = text.chars().take(80).collect();
        message += &format!(", near `{short}`");
    }
    Error::Data(Located {
        file: file.to_string(),
        line: e.line(),
        column: None,
        field: String::new(),
        message,
        code: None,
    })
}

/// Filter `md`: text safe inside a Markdown paragraph or table cell: the
/// punctuation Markdown would read is backslash-escaped, line ends become
/// spaces.
///
/// The filters take their argument as minijinja coerces it to a string
/// (`StringInput`: a number or a boolean as `String` would take it, a
/// string borrowed, not copied): as `String` arguments, the two were
/// formatted through `Display`, a third of the filters' cost (issue 11).
fn md(value: StringInput<'_>) -> String {
    md_text(value.as_str())
}

/// [`md`] of a text.
fn md_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '|' | '*' | '_' | '`' | '<' | '>' | '[' | ']' | '&' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Filter `md_code`: a Markdown code span holding `value` as it is: a run of
/// backticks longer than any inside it, and line ends as spaces.
fn md_code(value: StringInput<'_>) -> String {
    md_code_text(value.as_str())
}

/// [`md_code`] of a text.
fn md_code_text(value: &str) -> String {
    let value = value.replace(['\n', '\r'], " ");
    let longest = value.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if value.starts_with('`') || value.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{value}{pad}{fence}")
}

/// Filter `json`: a value as compact JSON (keys in sorted order).
fn json(value: Value) -> std::result::Result<String, minijinja::Error> {
    serde_json::to_string(&value)
        .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, format!("not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_escapes_what_markdown_reads() {
        assert_eq!(md_text("a|b *c* <x> [l](u)\nnext"), r"a\|b \*c\* \<x\> \[l\](u) next");
    }

    /// The filters read a number or a boolean as minijinja's `String`
    /// arguments did (issue 11 changed their argument's type, not what
    /// they print).
    #[test]
    fn the_markdown_filters_read_numbers_and_booleans_as_strings_read_them() {
        let mut env = Environment::new();
        env.add_filter("md", md);
        env.add_filter("md_code", md_code);
        let out = env
            .render_str(
                "{{ n|md }} {{ t|md }} {{ s|md }} {{ n|md_code }} {{ f|md_code }}",
                minijinja::context! {
                    n => -12, t => true, s => "a_b", f => false
                },
            )
            .unwrap();
        assert_eq!(out, r"-12 True a\_b `-12` `False`");
    }

    #[test]
    fn md_code_fences_around_backticks() {
        assert_eq!(md_code_text("a"), "`a`");
        assert_eq!(md_code_text("a``b"), "```a``b```");
        assert_eq!(md_code_text("`x"), "`` `x ``");
    }

    #[test]
    fn the_built_in_templates_compile() {
        let t = load_templates(None).unwrap();
        assert_eq!(t.origin(HTML), Some("templates/report.html.j2 (built in)"));
    }

    #[test]
    fn a_missing_override_folder_is_named() {
        let err = load_templates(Some(Path::new("/no/such/templates"))).unwrap_err();
        assert!(err.to_string().contains("/no/such/templates: no such templates folder"), "{err}");
    }
}
