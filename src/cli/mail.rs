//! `mail` (the reports to the players) and `submit --email` (orders from a
//! raw message, answered by mail).

use std::time::Duration;

use adjutant::game::folder::GameFolder;
use adjutant::mail::post::{self, Selection};
use adjutant::mail::{self, MailSettings, Outgoing, Security, TransportKind};
use adjutant::Error;

use super::arguments::{self, MailArgs, SubmitArgs};
use super::output::{Out, Style};
use super::{receipt_text, standing_receipt_text, Outcome};

fn transport(t: arguments::Transport) -> TransportKind {
    match t {
        arguments::Transport::Smtp => TransportKind::Smtp,
        arguments::Transport::Sendmail => TransportKind::Sendmail,
        arguments::Transport::Folder => TransportKind::Folder,
    }
}

fn security(s: arguments::Security) -> Security {
    match s {
        arguments::Security::Starttls => Security::Starttls,
        arguments::Security::Tls => Security::Tls,
        arguments::Security::None => Security::None,
    }
}

/// game.yaml's settings with the flags' fields over them; `None` when
/// neither gives any.
fn settings(folder: &GameFolder, args: &MailArgs) -> Result<Option<MailSettings>, Error> {
    let flags = args.transport.is_some()
        || args.from.is_some()
        || args.host.is_some()
        || args.port.is_some()
        || args.security.is_some()
        || args.username.is_some()
        || args.password_env.is_some()
        || args.folder.is_some()
        || args.sendmail.is_some()
        || args.ca_file.is_some();
    if !flags {
        return Ok(None);
    }
    let mut s = match folder.config.mail.clone() {
        Some(s) => s,
        None => {
            let (Some(from), Some(kind)) = (&args.from, &args.transport) else {
                return Err(Error::usage(
                    "game.yaml has no mail settings: give at least --transport and --from (or add a `mail:` section)",
                ));
            };
            MailSettings::new(from.clone(), transport(*kind))
        }
    };
    if let Some(kind) = args.transport {
        s.transport = transport(kind);
    }
    if let Some(from) = &args.from {
        s.from = from.clone();
    }
    macro_rules! over {
        ($($field:ident),*) => { $( if let Some(v) = &args.$field { s.$field = Some(v.clone()); } )* };
    }
    over!(host, port, username, password_env, sendmail, ca_file);
    // A path given on the command line is relative to where the command
    // runs, as every other path argument is (game.yaml's is relative to the
    // game folder).
    if let Some(dir) = &args.folder {
        let dir = if dir.is_relative() {
            std::env::current_dir().map_err(|e| Error::io(".", e))?.join(dir)
        } else {
            dir.to_path_buf()
        };
        s.folder = Some(dir);
    }
    if let Some(mode) = args.security {
        s.security = Some(security(mode));
    }
    Ok(Some(s))
}

pub fn run(args: &MailArgs, wait: Duration, out: &Out) -> Outcome {
    let folder = GameFolder::open(&args.dir)?;
    let given = settings(&folder, args)?;
    let selection = Selection { dispatch: args.dispatch.clone(), sides: args.side.clone() };
    let posted = post::mail_reports(&args.dir, given, &selection, args.dry_run, wait)?;
    out.result(&posted, |s| {
        let mut text = String::new();
        let verb = if posted.dry_run { "would send" } else { "sent" };
        for m in &posted.messages {
            text += &format!("{} {} to {}: {}\n", s.good(&format!("{verb}:")), m.dispatch, m.to, m.subject);
            text += &s.dim(&format!("  attached: {}\n", m.attachments.join(", ")));
            if let Some(file) = &m.file {
                text += &s.dim(&format!("  written to {file}\n"));
            }
        }
        if posted.messages.is_empty() {
            text += "nothing to send: every dispatch has gone to every player\n";
        }
        for side in &posted.no_address {
            text +=
                &format!("{} {side} has no address in game.yaml: its reports stay in reports/\n", s.bad("not sent:"));
        }
        for why in &posted.bad_address {
            text += &format!("{} {why}\n", s.bad("not sent:"));
        }
        text
    })?;
    // An address mail cannot be sent to is game.yaml's data error: exit 2,
    // once every other side's messages are sent.
    Ok(if posted.bad_address.is_empty() { 0 } else { 2 })
}

/// `submit --email`: the message's orders submitted; the receipt or the
/// refusal printed, and mailed back with --reply.
pub fn submit_email(args: &SubmitArgs, raw: &[u8], wait: Duration, out: &Out) -> Outcome {
    // The settings are checked before anything is stored, so that a reply
    // that cannot be sent is known at once.
    let settings = if args.reply {
        let folder = GameFolder::open(&args.dir)?;
        let settings = post::settings(&folder, None)?;
        settings.transport()?;
        Some((folder, settings))
    } else {
        None
    };
    let outcome = adjutant::game::inbox::submit_email(&args.dir, raw, wait)?;
    let plain = Style { enabled: false };
    let said = |s: &Style| match (&outcome.receipt, &outcome.standing, &outcome.refused) {
        _ if outcome.withdrawn.is_some() => {
            outcome.withdrawn.as_ref().map(|w| super::withdrawal_text(w, s)).unwrap_or_default()
        }
        (Some(receipt), _, _) => receipt_text(receipt, s),
        (None, Some(standing), _) => standing_receipt_text(standing, s),
        (None, None, None) if outcome.dice.is_some() => {
            outcome.dice.as_ref().map(|d| super::dice_receipt_text(d, s)).unwrap_or_default()
        }
        (None, None, Some(reason)) => format!("{} {reason}\n", s.bad("refused:")),
        (None, None, None) => String::new(),
    };
    // Each further file of the message (a player who holds several sides).
    let said_also = |s: &Style| {
        outcome
            .also
            .iter()
            .map(|o| {
                let mut text = match (&o.receipt, &o.standing, &o.refused) {
                    (Some(receipt), _, _) => receipt_text(receipt, s),
                    (None, Some(standing), _) => standing_receipt_text(standing, s),
                    (None, None, Some(reason)) => format!("{} {reason}\n", s.bad("refused:")),
                    _ => String::new(),
                };
                text += &format!("  ({})\n", o.source.as_deref().unwrap_or_default());
                text
            })
            .collect::<String>()
    };
    let refused = outcome.refused.is_some() || outcome.also.iter().any(|o| o.refused.is_some());
    // What the answer quotes of the message is escaped (src/base/error.rs).
    let mut answer = adjutant::base::error::escape_lines(&(said(&plain) + &said_also(&plain)));
    let (game_id, mutual) = GameFolder::open(&args.dir)
        .map(|f| (f.config.game_id, f.config.dice.mode == adjutant::game::folder::DiceMode::Mutual))
        .unwrap_or_default();
    if refused {
        answer += "\nNothing of the orders refused above was taken";
        if let Some(kept) = &outcome.kept {
            answer += &format!(" (your message is kept as {kept}, with the reason above)");
        }
        answer += ": correct them and send the whole file again by mail; a message with no mistake is taken.\n";
    }
    for used in std::iter::once(&outcome).chain(&outcome.also).filter_map(|o| o.used.as_deref()) {
        answer += &quoted_bytes(used);
    }
    answer += &player_help(&game_id, mutual);
    let mut replied = None;
    let mut reply_failed = None;
    if let Some((folder, settings)) = &settings {
        if let Some(to) = &outcome.reply_to {
            let (in_reply_to, references, subject) = outcome.reply_headers.clone();
            let message = Outgoing {
                to: vec![to.clone()],
                subject: format!("{subject} [{}]", folder.config.game_id),
                text: format!("adjutant, the referee of {}:\n\n{answer}", folder.config.game_id),
                in_reply_to,
                references,
                ..Outgoing::default()
            };
            // The orders are stored (or refused) whatever happens to the
            // answer: a failure to send it is said, not made the outcome.
            match mail::send(settings, &folder.root, &[message], false) {
                Ok(sent) => replied = sent.into_iter().next(),
                Err(e) => reply_failed = Some(e.to_string()),
            }
        }
    }
    #[derive(serde::Serialize)]
    struct Shown<'a> {
        #[serde(flatten)]
        outcome: &'a adjutant::game::inbox::EmailSubmission,
        replied: bool,
        reply_failed: Option<&'a str>,
    }
    let shown = Shown { outcome: &outcome, replied: replied.is_some(), reply_failed: reply_failed.as_deref() };
    out.result(&shown, |s| {
        let mut text = said(s) + &said_also(s);
        let from = if outcome.from.is_empty() { "an unknown sender" } else { outcome.from.as_str() };
        text += &format!("  from {from} ({})\n", outcome.source.as_deref().unwrap_or("no orders found"));
        match (&replied, args.reply, &outcome.reply_to) {
            (Some(sent), _, Some(to)) => {
                text += &format!(
                    "  answered {to}{}\n",
                    sent.message_id.as_deref().map(|id| format!(" ({id})")).unwrap_or_default()
                )
            }
            (None, true, Some(to)) => {
                text += &format!(
                    "  {} the answer to {to} could not be sent: {}\n",
                    s.bad("warning:"),
                    reply_failed.as_deref().unwrap_or("unknown")
                )
            }
            (None, true, None) => {
                text += &format!("  no answer: {} is not a player's address in game.yaml\n", outcome.from)
            }
            _ => {}
        }
        text
    })?;
    Ok(if refused { 1 } else { 0 })
}

/// The bytes used from a player's message, quoted in his receipt (each line
/// indented four spaces, escaped where it is not plain text), so that he
/// sees exactly what was taken and hashed.
fn quoted_bytes(used: &[u8]) -> String {
    let text = String::from_utf8_lossy(used);
    let mut quoted = format!("\nThe bytes used, exactly as stored ({} bytes), line by line:\n", used.len());
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        quoted += &format!("    {}\n", adjutant::base::error::escape_lines(bare));
    }
    if !text.ends_with('\n') {
        quoted += "    (no line end after the last line)\n";
    }
    quoted
}

/// How a player manages his orders by mail (docs/orders.md, "By mail"):
/// every answer to a message ends with it.
pub fn player_help(game_id: &str, mutual: bool) -> String {
    // Lines of at most 78 columns, each bullet's hanging by two: the mails
    // that wrap (tick.rs `wrap`) leave them as they are, and so does a
    // reader's phone.
    if mutual {
        // Mutual dice mode (docs/DICE.md 7, A4, A5): commitments first,
        // no file replaced or withdrawn, no orders ahead or standing, keys.
        return format!(
            "\nManaging your orders by mail (this game rolls its dice in mutual mode,\n\
             DICE.md 7):\n\
             - At a step that awaits more than one player, send your commitment first:\n  \
             a message whose body is these four lines (COMMIT: the SHA-256 of the\n  \
             file you will send, as `sha256sum FILE` prints it):\n    \
             game: {game_id}\n    side: YOUR-SIDE\n    step: 16-allies-movement\n    commit: COMMIT\n  \
             then, once every commitment of the step is in, the file itself,\n  \
             attached: it must hash to your commitment.\n\
             - A file once in stands: no message replaces or withdraws it. Orders are\n  \
             taken for the step the game awaits only; there are no standing orders.\n\
             - When a step that rolls dice is sealed (every file in), send your next\n  \
             key p_j, a message whose body is these three lines (YOUR-LABEL: your\n  \
             sides, sorted, joined with +):\n    \
             game: {game_id}\n    player: YOUR-LABEL\n    key: HEX\n\
             - Put the orders in the body (a greeting line before them and a\n  \
             signature after them are fine) or attach them as one .yaml or .txt\n  \
             file per side.\n"
        );
    }
    format!(
        "\nManaging your orders by mail:\n\
         - To correct orders for a step not yet resolved, send the whole file\n  \
         again: the newer message replaces the older (newer means later to\n  \
         arrive here; the Date header is not read), and the older is kept in\n  \
         the game folder.\n\
         - To withdraw orders sent ahead or standing orders, send a message whose\n  \
         body is these three lines (the step as your receipt names it, or the\n  \
         word standing):\n    \
         game: {game_id}\n    side: YOUR-SIDE\n    withdraw: 16-allies-movement\n\
         - Put the orders in the body (a greeting line before them and a\n  \
         signature after them are fine) or attach them as one .yaml or .txt\n  \
         file per side.\n"
    )
}
