//! `tick` (deadlines, from cron) and `welcome` (the first mail of a club
//! game). The clock is read here, in the shell, and handed to the library
//! (src/game/deadline.rs), which records what it decided.

use std::time::Duration;

use adjutant::game::deadline::{self, Instant};
use adjutant::game::folder::GameFolder;
use adjutant::mail::post::{self, Selection};
use adjutant::mail::{self, Attachment, MailSettings, Outgoing};
use adjutant::Error;

use super::arguments::{TickArgs, WelcomeArgs};
use super::output::Out;
use super::Outcome;

/// The environment variable `tick` reads the time from when `--now` is not given.
pub const NOW_VAR: &str = "ADJUTANT_NOW";

/// The time to act at: `--now`, else ADJUTANT_NOW, else the system clock.
fn now(given: Option<&str>) -> Result<Instant, Error> {
    if let Some(text) = given {
        return Instant::parse(text.trim()).map_err(|e| Error::usage(format!("--now {e}")));
    }
    if let Some(text) = std::env::var_os(NOW_VAR) {
        let text = text.to_string_lossy();
        return Instant::parse(text.trim()).map_err(|e| Error::usage(format!("{NOW_VAR}={e}")));
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| Error::usage("the system clock is before 1970: give --now"))?;
    Ok(Instant(since.as_secs() as i64))
}

/// One message `tick` or `welcome` sent (or would send).
#[derive(Debug, Clone, serde::Serialize)]
struct Mailed {
    side: String,
    to: String,
    subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// The body (dry run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

/// Send one message to `side`'s player; `None` when the side has no address.
fn send_to(
    folder: &GameFolder,
    settings: &MailSettings,
    side: &str,
    subject: String,
    text: String,
    attachments: Vec<Attachment>,
    dry_run: bool,
) -> Result<Option<Mailed>, Error> {
    let to = match folder.player_mailbox(side) {
        Ok(Some(mailbox)) => mailbox.to_string(),
        Ok(None) => return Ok(None),
        Err(problem) => return Err(Error::Data(problem)),
    };
    let text = wrap(&text);
    let message = Outgoing {
        to: vec![to.clone()],
        subject: subject.clone(),
        text: text.clone(),
        attachments,
        ..Outgoing::default()
    };
    let sent = mail::send(settings, &folder.root, std::slice::from_ref(&message), dry_run)?;
    let file = sent.first().and_then(|s| s.file.as_ref()).map(|f| f.display().to_string());
    Ok(Some(Mailed { side: side.to_string(), to, subject, file, text: dry_run.then_some(text) }))
}

/// The template of the step `side` owes now, as an attachment; none when
/// the step does not await the side.
fn template_attachment(folder: &GameFolder, side: &str, wait: Duration) -> Option<(String, Attachment)> {
    let (text, value) = adjutant::game::template(&folder.root, side, wait).ok()?;
    let step = value["step"].as_str()?.to_string();
    let filename = format!("{}-{step}-{side}.yaml", folder.config.game_id);
    Some((step, Attachment { filename, content_type: "text/plain; charset=utf-8".into(), bytes: text.into_bytes() }))
}

/// Each line of `text` longer than 78 columns wrapped at its spaces (a
/// player reads it first on a phone).
fn wrap(text: &str) -> String {
    let mut out = String::new();
    for line in text.split('\n') {
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        let mut current = String::new();
        for word in line.trim_start().split(' ') {
            if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > 78 {
                out += &current;
                out.push('\n');
                current.clear();
            }
            if current.is_empty() {
                current += &indent;
                current += word;
            } else {
                current.push(' ');
                current += word;
            }
        }
        out += &current;
        out.push('\n');
    }
    out.pop();
    out
}

fn signature(game: &str, from: &str) -> String {
    format!("\n-- \nadjutant, the referee of {game}. Send orders to {from}.\n")
}

pub fn run(args: &TickArgs, wait: Duration, out: &Out) -> Outcome {
    let now = now(args.now.as_deref())?;
    let decision = deadline::decide(&args.dir, now, wait)?;
    let folder = GameFolder::open(&args.dir)?;
    let settings = if args.no_mail { None } else { folder.config.mail.clone() };
    if let Some(s) = &settings {
        s.transport()?;
    }
    let game = folder.config.game_id.clone();
    // Mutual dice mode: what the mails say of files, defaults and keys.
    let mutual = folder.config.dice.mode == adjutant::game::folder::DiceMode::Mutual;
    let mut mailed = Vec::new();
    let mut mail_failed = Vec::new();
    if let (Some(settings), Some(record)) = (&settings, &decision.record) {
        let from = settings.from_mailbox()?.email.to_string();
        for side in &decision.remind {
            let (attachments, attached) = match template_attachment(&folder, side, wait) {
                Some((_, a)) => {
                    (vec![a.clone()], format!("The template of these orders is attached ({}).\n", a.filename))
                }
                None => (Vec::new(), String::new()),
            };
            // Mutual mode (docs/DICE.md A11): the default is written for a
            // side with no commitment in, and stands; a side that committed
            // forfeits if its file is not in by the grace's end.
            let then = if mutual {
                format!(
                    "In this game (mutual dice mode, DICE.md A11): if no commitment of yours has arrived by then, \
                     adjutant writes the least orders of the template for {side} and commits them for it, and they \
                     stand (at a step where they would settle nothing, an AWI battle, none are written and {side} \
                     forfeits at {}); if you have committed, the file you committed to must arrive by {}, or {side} \
                     forfeits the game.",
                    record.resolve_at, record.resolve_at
                )
            } else {
                format!(
                    "If none arrive by then, adjutant writes the least orders of the template for {side} and \
                     resolves the step with them at {}, unless yours arrive first.",
                    record.resolve_at
                )
            };
            let text = format!(
                "Your orders for step {step} of {game} are due by {deadline} (UTC).\n{attached}\n{then}\n{help}{sig}",
                step = record.game_step,
                deadline = record.deadline,
                help = super::mail::player_help(&game, mutual),
                sig = signature(&game, &from),
            );
            let subject =
                format!("[{game}] {side}: your orders for {} are due by {}", record.game_step, record.deadline);
            match send_to(&folder, settings, side, subject, text, attachments, false) {
                Ok(Some(m)) => mailed.push(m),
                Ok(None) => {}
                Err(e) => mail_failed.push(format!("{side}: {e}")),
            }
        }
        for w in &decision.written {
            let text = format!(
                "The deadline for your orders for step {step} of {game} passed at {deadline} (UTC), and none had \
                 arrived: adjutant wrote these orders for {side}, the least the step takes (stored as {stored}, \
                 sha256 {sha}):\n\n{quoted}\n{when}\n{help}{sig}",
                step = record.game_step,
                deadline = record.deadline,
                side = w.side,
                stored = w.stored,
                sha = w.sha256.to_hex(),
                quoted = w.text.lines().map(|l| format!("    {l}\n")).collect::<String>(),
                when = if mutual {
                    "In mutual mode they stand: a file once in is never replaced (docs/DICE.md A5, A11).\n".to_string()
                } else if record.resolve_at > now {
                    format!(
                        "Send your own orders before {} (UTC), when the step is resolved, and they replace these.\n",
                        record.resolve_at
                    )
                } else {
                    "The step is resolved with them now.\n".to_string()
                },
                help = super::mail::player_help(&game, mutual),
                sig = signature(&game, &from),
            );
            let subject =
                format!("[{game}] {}: the deadline for {} passed; orders written for you", w.side, record.game_step);
            match send_to(&folder, settings, &w.side, subject, text, Vec::new(), false) {
                Ok(Some(m)) => mailed.push(m),
                Ok(None) => {}
                Err(e) => mail_failed.push(format!("{}: {e}", w.side)),
            }
        }
    }
    // Mutual mode: a deadline passed with a key or a committed file
    // withheld ends the game (DICE.md 7.4, docs/DICE.md A8, A11); its
    // reports tell every player.
    let progress = match decision.forfeit {
        Some(due) => adjutant::game::play::forfeit(&args.dir, due.withheld, due.since, due.span, now, wait)?,
        // A sealed step awaiting keys: nothing to resolve, nobody's orders refused.
        None if decision.adjourned.is_some() || !decision.keys_owed.is_empty() || !decision.anchors_owed.is_empty() => {
            adjutant::game::play::Progress::default()
        }
        None => adjutant::game::play::resolve_game_with(&args.dir, &[], wait, decision.defaults_due)?,
    };
    // Orders refused when their step came: each side concerned is mailed
    // its problems, once (issue 16: the game never stalls unseen).
    if let Some(settings) = &settings {
        let from = settings.from_mailbox()?.email.to_string();
        let mut sides: Vec<&String> = progress.blocked.iter().flat_map(|b| b.sides.iter()).collect();
        sides.sort();
        sides.dedup();
        for side in sides {
            let mine: Vec<&adjutant::game::play::Blocker> =
                progress.blocked.iter().filter(|b| b.sides.contains(side)).collect();
            let problems: Vec<String> = mine.iter().map(|b| b.problem.clone()).collect();
            let step = mine[0].step.clone();
            if !deadline::first_refusal(&args.dir, &step, side, &problems, wait)? {
                continue;
            }
            // Mutual mode: no message replaces a file once in (docs/DICE.md
            // A5); only the referee's setting aside clears the step (A6).
            let what_now = if mutual {
                format!(
                    "In this game (mutual dice mode) a file once in stands: no message replaces it (DICE.md A5). \
                     The referee sets the step's files aside (`adjutant correct --from` the step, DICE.md A6); \
                     every side the step awaits then sends a new commitment and a new file for {step}, which \
                     `adjutant status` will show."
                )
            } else {
                format!("Send a new message with corrected orders for {step}: it replaces the file named.")
            };
            let text = format!(
                "Your orders for step {step} of {game} cannot be used now: the step cannot be resolved until new \
                 orders come from {side}.\n\n{listed}\n{what_now}\n{help}{sig}",
                listed = problems.iter().map(|p| format!("  {p}\n")).collect::<String>(),
                help = super::mail::player_help(&game, mutual),
                sig = signature(&game, &from),
            );
            let subject = if mutual {
                format!("[{game}] {side}: your orders for {step} are refused; the referee sets them aside")
            } else {
                format!("[{game}] {side}: your orders for {step} are refused; please send new ones")
            };
            let attachments = template_attachment(&folder, side, wait).map(|(_, a)| vec![a]).unwrap_or_default();
            match send_to(&folder, settings, side, subject, text, attachments, false) {
                Ok(Some(m)) => mailed.push(m),
                Ok(None) => {}
                Err(e) => mail_failed.push(format!("{side}: {e}")),
            }
        }
    }
    // The next step's clock starts now.
    let next = if progress.resolved.is_empty() { None } else { deadline::decide(&args.dir, now, wait)?.record };
    let posted = match &settings {
        Some(_) => Some(post::mail_reports(&args.dir, None, &Selection::default(), false, wait)?),
        None => None,
    };
    #[derive(serde::Serialize)]
    struct Shown<'a> {
        decision: &'a deadline::Decision,
        progress: &'a adjutant::game::play::Progress,
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<&'a deadline::TickRecord>,
        mailed: &'a [Mailed],
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        mail_failed: &'a [String],
        #[serde(skip_serializing_if = "Option::is_none")]
        reports: Option<&'a post::Posted>,
    }
    let shown = Shown {
        decision: &decision,
        progress: &progress,
        next: next.as_ref(),
        mailed: &mailed,
        mail_failed: &mail_failed,
        reports: posted.as_ref(),
    };
    out.result(&shown, |s| {
        let mut text = format!("{} {now}\n", s.bold("tick at"));
        match &decision.record {
            None if decision.adjourned.is_some() => {
                text += &format!("  {}\n", decision.adjourned.as_deref().unwrap_or_default())
            }
            None if !decision.anchors_owed.is_empty() => {
                text += &format!(
                    "  awaiting the anchors of the players of {} (`adjutant join`, DICE.md 7.1); no clock runs\n",
                    decision.anchors_owed.join(", ")
                )
            }
            None => text += "  no step awaits orders\n",
            Some(r) => {
                text += &format!(
                    "  step {} awaited since {}; deadline {}, resolved with defaults from {}\n",
                    r.game_step, r.awaited_since, r.deadline, r.resolve_at
                );
                if decision.owing.is_empty() {
                    text += "  every side's orders are in\n";
                } else {
                    text += &format!("  still owing orders: {}\n", decision.owing.join(", "));
                }
                if let (Some(sealed), Some(due)) = (r.sealed_at, r.reveal_deadline) {
                    text += &format!("  sealed at {sealed}; every key is due by {due}\n");
                }
                if !decision.keys_owed.is_empty() {
                    text += &format!("  awaiting key {}\n", decision.keys_owed.join(", "));
                }
            }
        }
        for side in &decision.remind {
            text += &format!("  {} {side}\n", s.good("reminded:"));
        }
        for w in &decision.written {
            text += &format!(
                "  {} the least orders for {}, as {} (sha256 {}): the deadline passed\n",
                s.good("defaulted:"),
                w.side,
                w.stored,
                w.sha256.to_hex()
            );
        }
        for m in &mailed {
            text += &format!("  {} {} to {}: {}\n", s.good("sent:"), m.side, m.to, m.subject);
        }
        for f in &mail_failed {
            text += &format!("  {} {f}\n", s.bad("not sent:"));
        }
        if !progress.resolved.is_empty() || !progress.refused.is_empty() {
            text += &super::progress_text(&progress, s);
        }
        if let Some(r) = &next {
            text += &format!("  step {} awaited from now; deadline {}\n", r.game_step, r.deadline);
        }
        if let Some(p) = &posted {
            for m in &p.messages {
                text += &format!("  {} {} to {}: {}\n", s.good("sent:"), m.dispatch, m.to, m.subject);
            }
        }
        text
    })?;
    Ok(super::progress_code(&progress))
}

pub fn welcome(args: &WelcomeArgs, wait: Duration, out: &Out) -> Outcome {
    let folder = GameFolder::open(&args.dir)?;
    let settings = post::settings(&folder, None)?;
    settings.transport()?;
    let rules = adjutant::game::load_rules(&folder)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    for side in &args.side {
        if !sides.contains(side) {
            return Err(Error::usage(format!("--side '{side}': the sides are {}", sides.join(", "))).into());
        }
    }
    let info = folder.module_info()?;
    let scenario = folder.config.scenario.clone().unwrap_or_default();
    let scenario_name = info.scenarios.iter().find(|s| s.id == scenario).map(|s| s.name.clone()).unwrap_or(scenario);
    let game = folder.config.game_id.clone();
    let from = settings.from_mailbox()?.email.to_string();
    let mutual = folder.config.dice.mode == adjutant::game::folder::DiceMode::Mutual;
    let players: String = folder.config.players.iter().map(|p| format!("  {:<10} {}\n", p.side, p.name)).collect();
    let deadlines = match &folder.config.deadlines {
        None => "There are no deadlines: each step waits until every side's orders are in.\n".to_string(),
        Some(d) => {
            let policy = |p: &deadline::Policy| {
                let mut t = format!("{} after the step is first awaited", p.after);
                if p.grace.0 > 0 {
                    t += &format!(", with {} of grace", p.grace);
                }
                if let Some(r) = p.remind {
                    t += &format!(" (a reminder {r} before)");
                }
                t
            };
            let mut t = format!("Deadlines: orders are due {}.\n", policy(&d.default));
            for (kind, p) in &d.steps {
                t += &format!("  {kind} steps: {}.\n", policy(p));
            }
            if mutual {
                t += "A side that has sent no commitment by a deadline gets the least orders of the step's \
                      template, written and committed for it and marked so in the journal; they stand. A side that \
                      committed and has not sent its file by the grace after the deadline forfeits the game \
                      (docs/DICE.md A11).\n";
                if let Some(reveal) = d.reveal {
                    t += &format!(
                        "Keys: every key of a step that rolls is due {reveal} after the step is sealed; a player \
                         whose key is not in by then forfeits the game for his sides (DICE.md 7.4).\n"
                    );
                }
            } else {
                t += "A side that sends nothing by a deadline (and has no standing orders for the step) gets the \
                      least orders of the step's template, written for it and marked so in the journal; its own \
                      file still replaces them until the step is resolved.\n";
            }
            t
        }
    };
    let mut mailed = Vec::new();
    let mut no_address = Vec::new();
    for side in sides.iter().filter(|s| args.side.is_empty() || args.side.contains(s)) {
        let Some(player) = folder.config.players.iter().find(|p| &p.side == side) else { continue };
        let first = template_attachment(&folder, side, wait);
        let first_text = match &first {
            Some((step, a)) => format!(
                "Your first orders: step {step}. Their template is attached ({}): edit it and send it back.\n",
                a.filename
            ),
            None => "The first step does not await your orders: a report will tell you when a step does, with its \
                     template attached.\n"
                .to_string(),
        };
        // Mutual mode (DICE.md 7): the player's own chain and keys.
        let chain_words = if mutual {
            let chain = folder.config.dice.players.iter().find(|p| p.sides().contains(&side.as_str()));
            let yours = match chain {
                Some(p) => format!(
                    "Your key chain ({}) is anchored at\n  {}\nKeep its top secret; when a step that rolls is sealed \
                     (every orders file in), send its next key, as the help below says. Each key is checked \
                     against your anchor.",
                    p.label,
                    p.anchor.to_hex()
                ),
                None => "Your key chain's anchor is not recorded yet: send it to the referee, who records it with \
                         `adjutant join` before step 1; no orders are taken until every side has a player."
                    .to_string(),
            };
            format!(
                "This game rolls its dice in mutual mode (DICE.md 7): no one, the referee included, can know a \
                 step's rolls before every side's orders for it are fixed, and at a step that awaits more than one \
                 player each sends a commitment before any file. {yours}\n\n"
            )
        } else {
            String::new()
        };
        let text = format!(
            "Welcome to {game}, {name}: a game of {module} ({scenario_name}) refereed by adjutant.\n\n\
             You play {side}.\n\nThe sides and their players:\n{players}\n\
             The dice anchor of the game is\n  {anchor}\nKeep it. Every roll of the game is committed to it before \
             any orders are sent; each step reveals the next key of the chain that ends in it, and anyone can \
             recompute every roll with `adjutant verify` (docs/DICE.md).\n\n{chain_words}\
             How to send orders: mail them to {from}, one orders file per step and side, as the message's text or \
             attached as a .yaml or .txt file. Every message is answered: a receipt that quotes the bytes used, or \
             a refusal that says what to correct. After each resolve you receive a report of what happened, with \
             the template of the next orders you owe attached.\n\n{deadlines}\n{first_text}{help}{sig}",
            name = player.name,
            module = info.name,
            anchor = folder.config.dice.anchor.to_hex(),
            help = super::mail::player_help(&game, mutual),
            sig = signature(&game, &from),
        );
        let subject = format!("[{game}] welcome: you play {side}");
        let attachments = first.map(|(_, a)| vec![a]).unwrap_or_default();
        match send_to(&folder, &settings, side, subject, text, attachments, args.dry_run)? {
            Some(m) => mailed.push(m),
            None => no_address.push(side.clone()),
        }
    }
    #[derive(serde::Serialize)]
    struct Shown<'a> {
        dry_run: bool,
        messages: &'a [Mailed],
        no_address: &'a [String],
    }
    out.result(&Shown { dry_run: args.dry_run, messages: &mailed, no_address: &no_address }, |s| {
        let verb = if args.dry_run { "would send:" } else { "sent:" };
        let mut text = String::new();
        for m in &mailed {
            text += &format!("{} welcome to {} ({}): {}\n", s.good(verb), m.to, m.side, m.subject);
            if let Some(body) = &m.text {
                text += &body.lines().map(|l| format!("    {l}\n")).collect::<String>();
            }
        }
        for side in &no_address {
            text += &format!("{} {side} has no address in game.yaml\n", s.bad("not sent:"));
        }
        text
    })?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_wrap_at_78_columns() {
        let long = "word ".repeat(40);
        let wrapped = super::wrap(&format!("{}\n  {}\nshort", long.trim(), long.trim()));
        assert!(wrapped.lines().all(|l| l.chars().count() <= 78), "{wrapped}");
        assert!(wrapped.lines().filter(|l| l.starts_with("  word")).count() >= 2, "{wrapped}");
        assert!(wrapped.ends_with("\nshort"));
    }
}
