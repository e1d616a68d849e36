//! `adjutant generate`: the man pages (clap_mangen) and shell completions
//! (clap_complete) in `man/`, made from the clap types so they never drift;
//! `--check` is what the test suite runs to catch a stale `man/`.

use std::fs;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;

use adjutant::base::fsio;
use adjutant::Error;

use super::arguments::{Cli, GenerateArgs};
use super::output::Out;
use super::Outcome;

/// Every file `generate` writes, relative to the output folder, with its bytes.
fn files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut command = Cli::command();
    command.build();
    let mut files = Vec::new();
    man_pages(&command, "adjutant", &mut files);
    files.push((PathBuf::from("adjutant-module.5"), module_format_page().into_bytes()));
    for (shell, name) in [(Shell::Bash, "adjutant.bash"), (Shell::Zsh, "_adjutant"), (Shell::Fish, "adjutant.fish")] {
        let mut bytes = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "adjutant", &mut bytes);
        files.push((Path::new("completions").join(name), bytes));
    }
    files
}

/// Sections of the main page that clap does not know about.
const MAIN_SECTIONS: &str = r#".SH "EXIT STATUS"
.TP
0
Success.
.TP
1
The input was refused: an invalid file, a failed verification.
.TP
2
A usage, I/O or data error: a bad argument, a missing folder, a corrupt game.yaml.
.SH ENVIRONMENT
.TP
\fIthe variable named by mail.password_env\fR
the SMTP password for \fBmail\fR and \fBsubmit \-\-email \-\-reply\fR; read only when a message is really sent.
.TP
NO_COLOR
When set to anything, no colour even on a terminal (unless \fB\-\-color always\fR).
.TP
ADJUTANT_FLUSH
How a command flushes the several files it writes together: \fBeach\fR, an fsync a file; \fBtogether\fR, one syncfs of their filesystem (Linux 5.8 and later; elsewhere an fsync a file). Unset, it is one syncfs while the system holds under 4 MiB of other data waiting to be written, else an fsync a file: set \fBeach\fR where other programs keep the disk busy.
.SH FILES
A game folder (\fBnew\fR) or roll log (\fBroll init\fR) holds:
.TP
game.yaml
game id, module, scenario, players, the dice anchor.
.TP
journal/
one file per resolved step, written once and never replaced; each carries the SHA\-256 of the one before it.
.TP
game.yaml mail:
how \fBmail\fR sends (smtp, sendmail or folder); a password only through password_env or password_command, never written there.
.TP
orders/
orders files as received, as the journal records them.
.TP
reports/
a dispatch per \fBresolve\fR (reports/000003\-000007/): each side's report as .txt, .md, .html and .json, and map.svg; \fBverify\fR renders them again and names any file that differs.
.TP
reports/pending.yaml
\fBfirst_step: N\fR: the reports of the steps from N on are being written. \fBresolve\fR writes it before its first journal entry and removes it once their dispatch is written; a \fBresolve\fR killed in between leaves it, \fBverify\fR then says that those steps await their reports, and the next \fBresolve\fR writes them. Committed steps without a dispatch and without this file fail \fBverify\fR.
.TP
state.yaml
the state after the journal's last step, a cache: rebuilt from the journal when a command was killed before writing it.
.TP
mailed.yaml
every report message \fBmail\fR sent (dispatch, side, address, subject, Message\-ID), recorded right after it is sent (the file rewritten whole, atomically); a kill between sending and recording sends that message again.
.TP
game.yaml deadlines:
when orders are due, per kind of step, with grace and reminder (\fBtick\fR).
.TP
ticks.yaml
what \fBtick\fR saw and did for each awaited step: when its clock started, its deadline, the sides reminded, the default orders written and the refusals mailed to sides whose orders blocked the step (a record only: the default orders file itself, which the journal hashes, carries the decision, so \fBverify\fR needs no clock).
.TP
inbox/, standing/
orders submitted ahead of their step (\fBsubmit\fR), default orders \fBtick\fR wrote for a side that missed a deadline (first line \fB# adjutant tick: default orders\fR), and each side's standing orders (\fBsubmit \-\-standing\fR).
.TP
\&.secret/chain\-top
the referee's secret chain top (mode 0600). Never publish or mail this folder; \fBverify\fR does not need it.
.TP
\&.lock
locked exclusively by a command that writes the folder (\fBresolve\fR, \fBsubmit\fR, \fBmail\fR, \fBroll\fR) and shared by one that only reads it (\fBverify\fR, \fBstatus\fR, \fBreport\fR, \fBtemplate\fR, \fBvalidate\fR, \fBodds \-\-dir\fR); each waits for the other up to \fB\-\-wait\fR seconds. A command that takes the lock first finishes or undoes what a killed command left: temporary .tmp\-* files, orders files no journal entry records, inbox copies of resolved steps, a stale reports/pending.yaml, a state.yaml behind the journal. A reader does so only where it can write; a copy without .lock is never changed.
.SH "SEE ALSO"
The dice protocol: docs/DICE.md in the adjutant sources. The reference implementation tests/reference/dice_ref.py recomputes every roll with Python's standard library alone.
"#;

/// The module format, for module authors: docs/module-format/*.md as one
/// section 5 page, so the page and the docs never disagree.
const MODULE_FORMAT_DOCS: &[(&str, &str)] = &[
    ("map.md", include_str!("../../docs/module-format/map.md")),
    ("counters.md", include_str!("../../docs/module-format/counters.md")),
    ("charts.md", include_str!("../../docs/module-format/charts.md")),
    ("awi-southern.md", include_str!("../../docs/module-format/awi-southern.md")),
];

fn module_format_page() -> String {
    let mut roff = String::from(".TH ADJUTANT-MODULE 5 \"\" \"adjutant\" \"File Formats\"\n");
    roff += ".SH NAME\nadjutant\\-module \\- the game module format: map, counters, scenarios, charts\n";
    roff += ".SH DESCRIPTION\nA game module is a folder games/<module>/ of YAML files: module.yaml, map.yaml, \
            counters.yaml, scenarios/<id>.yaml, charts/*.yaml and cards.yaml. adjutant embeds the shipped modules; \
            \\fB\\-\\-games\\-dir\\fR or a module folder's path reads a changed copy, which \
            \\fBadjutant module export\\fR writes out. \\fBadjutant check\\-game\\fR checks a module whole. A game \
            begun with a module folder (\\fBadjutant new ./my\\-charts ...\\fR) records in game.yaml the folder and \
            the SHA\\-256 of each of its YAML files, and every command that loads the game refuses to go on (exit 1), \
            naming the file, when one has changed since.\n";
    for (_, text) in MODULE_FORMAT_DOCS {
        roff += &markdown_to_roff(text);
    }
    roff += ".SH \"SEE ALSO\"\n\\fBadjutant\\fR(1), \\fBadjutant\\-check\\-game\\fR(1), \\fBadjutant\\-map\\fR(1)\n";
    roff
}

/// Text for roff: a backslash and a hyphen escaped, and every character
/// past ASCII written as groff's `\[uXXXX]` (raw UTF-8 is not portable
/// roff: groff -Tutf8 warns of each byte).
fn roff_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            c if c.is_ascii() => out.push(c),
            c => out.push_str(&format!("\\[u{:04X}]", u32::from(c))),
        }
    }
    out
}

/// Escape text for roff, with `code` and **bold** in bold.
fn roff_inline(text: &str) -> String {
    let escaped = roff_escape(text);
    let mut out = String::new();
    let mut bold = false;
    let mut rest = escaped.as_str();
    while let Some(i) = rest.find(['`', '*']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        // `code` and **bold** toggle bold; a lone * is just a star.
        let marker = if tail.starts_with("**") {
            2
        } else if tail.starts_with('`') {
            1
        } else {
            0
        };
        if marker == 0 {
            out.push('*');
            rest = &tail[1..];
            continue;
        }
        out.push_str(if bold { "\\fR" } else { "\\fB" });
        bold = !bold;
        rest = &tail[marker..];
    }
    out.push_str(rest);
    if bold {
        out.push_str("\\fR");
    }
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

/// A small Markdown subset to roff: headings, paragraphs, lists, tables, code.
fn markdown_to_roff(md: &str) -> String {
    let mut roff = String::new();
    let mut in_code = false;
    let mut header: Vec<String> = Vec::new();
    for line in md.lines() {
        if line.starts_with("```") {
            roff += if in_code { ".fi\n.RE\n" } else { ".RS 4\n.nf\n" };
            in_code = !in_code;
            continue;
        }
        if in_code {
            roff += &format!("{}\n", roff_inline(line).replace("\\fB", "`").replace("\\fR", "`"));
            continue;
        }
        let trimmed = line.trim();
        if let Some(h) = trimmed.strip_prefix("# ") {
            // Upper-cased before escaping: `\fB` upper-cased is `\FB`, a font family.
            roff += &format!(".SH \"{}\"\n", roff_inline(&h.to_uppercase()));
        } else if let Some(h) = trimmed.strip_prefix("## ").or_else(|| trimmed.strip_prefix("### ")) {
            roff += &format!(".SS \"{}\"\n", roff_inline(h));
        } else if trimmed.starts_with('|') {
            let cells: Vec<String> =
                trimmed.trim_matches('|').split(" | ").map(|c| c.trim().trim_matches('|').trim().to_string()).collect();
            if cells.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ':' || ch == ' ')) {
                continue;
            }
            if header.is_empty() {
                header = cells;
                continue;
            }
            roff += &format!(".TP\n{}\n", roff_inline(&cells[0]));
            let rest: Vec<String> = cells
                .iter()
                .zip(&header)
                .skip(1)
                .map(|(c, h)| if cells.len() > 2 { format!("{h}: {c}") } else { c.clone() })
                .collect();
            roff += &format!("{}\n", roff_inline(&rest.join("; ")));
        } else if let Some(item) = trimmed.strip_prefix("- ") {
            header.clear();
            roff += &format!(".IP \\(bu 2\n{}\n", roff_inline(item));
        } else if trimmed.is_empty() {
            header.clear();
            roff += ".PP\n";
        } else {
            roff += &format!("{}\n", roff_inline(trimmed));
        }
    }
    roff
}

/// Roff for a block of literal text (examples keep their layout).
fn literal(text: &str) -> String {
    let mut roff = String::from(".nf\n");
    for line in text.lines() {
        let escaped = roff_escape(line);
        if escaped.starts_with('.') || escaped.starts_with('\'') {
            roff.push_str("\\&");
        }
        roff.push_str(&escaped);
        roff.push('\n');
    }
    roff.push_str(".fi\n");
    roff
}

fn man_pages(command: &clap::Command, name: &str, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let page = command.clone().name(name.to_string());
    let man = clap_mangen::Man::new(page.clone());
    let mut bytes = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut bytes)?;
        man.render_name_section(&mut bytes)?;
        man.render_synopsis_section(&mut bytes)?;
        man.render_description_section(&mut bytes)?;
        man.render_options_section(&mut bytes)?;
        if page.has_subcommands() {
            man.render_subcommands_section(&mut bytes)?;
        }
        if let Some(after) = page.get_after_help() {
            bytes.extend_from_slice(b".SH EXAMPLES\n");
            bytes.extend_from_slice(literal(&after.to_string()).as_bytes());
        }
        if name == "adjutant" {
            bytes.extend_from_slice(MAIN_SECTIONS.as_bytes());
        }
        if page.get_version().is_some() {
            man.render_version_section(&mut bytes)?;
        }
        Ok(())
    })();
    rendered.expect("rendering to memory cannot fail");
    files.push((PathBuf::from(format!("{name}.1")), bytes));
    for sub in command.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        man_pages(sub, &format!("{name}-{}", sub.get_name()), files);
    }
}

pub fn run(args: &GenerateArgs, out: &Out) -> Outcome {
    let files = files();
    if args.check {
        let mut stale = Vec::new();
        for (path, bytes) in &files {
            let full = args.out.join(path);
            if fs::read(&full).ok().as_deref() != Some(bytes.as_slice()) {
                stale.push(full.display().to_string());
            }
        }
        // A page of a command that no longer exists is stale too.
        for dir in [args.out.clone(), args.out.join("completions")] {
            for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let relative = path.strip_prefix(&args.out).unwrap_or(&path).to_path_buf();
                if path.is_file() && !files.iter().any(|(p, _)| *p == relative) {
                    stale.push(format!("{} (no longer generated)", path.display()));
                }
            }
        }
        if stale.is_empty() {
            let checked =
                serde_json::json!({ "files": files.len(), "out": args.out.display().to_string(), "up_to_date": true });
            out.result(&checked, |_| format!("{}: {} files up to date\n", args.out.display(), files.len()))?;
            return Ok(0);
        }
        return Err(Error::refused(format!(
            "{} stale (run `cargo run -- generate`): {}",
            args.out.display(),
            stale.join(", ")
        ))
        .into());
    }
    for (path, bytes) in &files {
        let full = args.out.join(path);
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        fsio::write_atomic(&full, bytes)?;
    }
    let written = serde_json::json!({ "files": files.len(), "out": args.out.display().to_string() });
    out.result(&written, |_| format!("wrote {} files to {}\n", files.len(), args.out.display()))?;
    Ok(0)
}
