//! `adjutant mail`: the reports `resolve` wrote (`reports/`, one dispatch
//! per resolve) sent to the players, one message per side with a player's
//! address: the side's text report as the body, the report in HTML as its
//! alternative (the map in it as a PNG sent once beside it), and as
//! attachments what game.yaml's `mail: attachments:` asks for (by default
//! the template of the next orders the player owes; also `json`, `svg`,
//! `png`). A mail of the demo games stays under 300 KB (issue 16: the map
//! went three times, 1.6 MB; measured now, the Historical demo's largest
//! 250 KB, the Campaign demo's 267 KB).
//!
//! Every message sent is recorded in `mailed.yaml` as soon as it is sent
//! (the file rewritten whole and atomically with the new record after the
//! others, so that a kill leaves it with or without the record, never half
//! of one), so that `mail` sends each dispatch once to each side; a failure
//! part-way leaves the messages already sent recorded, and a second run
//! sends the rest. A kill between sending a message and recording it sends
//! that message again on the next run: mail goes at least once.
//!
//! With game.yaml's `mail: digest: true` (issue 16, a digest per player
//! turn) a side's dispatches wait until the step after one awaits the side
//! (for the game's last dispatch: the side still owes orders) or the game
//! is over; then one message covers them all, its text and JSON rendered
//! for the steps it covers (what `adjutant report --steps A-B` gives), and
//! `mailed.yaml` records each dispatch it covers. The records hold no secret: the password is read by
//! mail.rs when a message is really sent, and is never written anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameFolder, GAME_FILE};
use crate::mail::{self, Attachment, MailSettings, Outgoing, ReportPart};
use crate::report::game::{dispatch_name, dispatches, entries, game_templates, map_file, Dispatch, MapIn, Steps};
use crate::report::{Format, ReportModel, Viewer};

/// The record of messages sent, in the game folder.
pub const MAILED_FILE: &str = "mailed.yaml";

/// One message sent: a dispatch to a side's player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailedRecord {
    pub dispatch: String,
    pub side: String,
    pub to: String,
    pub subject: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// What `mail` is asked to send.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// One dispatch (`000003-000007`), sent again even if it was sent;
    /// `None`: every dispatch not yet sent to each side.
    pub dispatch: Option<String>,
    /// Only these sides (all when empty).
    pub sides: Vec<String>,
}

/// One message, sent or (dry run) not.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    pub dispatch: String,
    pub side: String,
    pub to: String,
    pub subject: String,
    pub attachments: Vec<String>,
    pub message_id: Option<String>,
    /// The file written, for the folder transport.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The body (dry run only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What `mail` did.
#[derive(Debug, Clone, Serialize)]
pub struct Posted {
    pub dry_run: bool,
    pub messages: Vec<Message>,
    /// Sides that would receive a dispatch but have no address in game.yaml.
    pub no_address: Vec<String>,
    /// Sides whose address in game.yaml mail cannot be sent to: why, at its
    /// field (`british: game.yaml:9:12: players[0].email: ...`). The other
    /// sides' messages are sent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bad_address: Vec<String>,
}

/// The records of `mailed.yaml` (none when it does not exist).
pub fn mailed(folder: &GameFolder) -> Result<Vec<MailedRecord>> {
    let path = folder.root.join(MAILED_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = fsio::read_text(&path, MAILED_FILE)?;
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    crate::base::yaml::parse(MAILED_FILE, &text).map_err(Error::Data)
}

/// Add one record after the others in `mailed.yaml`: the file is
/// rewritten whole, atomically, with the same bytes an append would give.
fn record(folder: &GameFolder, r: &MailedRecord) -> Result<()> {
    let path = folder.root.join(MAILED_FILE);
    let mut bytes = if path.exists() { fsio::read(&path)? } else { Vec::new() };
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    let item = crate::base::yaml::to_string(&vec![r]).map_err(|e| Error::usage(e.to_string()))?;
    bytes.extend_from_slice(item.as_bytes());
    fsio::write_atomic(&path, &bytes)
}

/// The settings `mail` uses: game.yaml's `mail:` section, or the one given.
pub fn settings(folder: &GameFolder, given: Option<MailSettings>) -> Result<MailSettings> {
    given.or_else(|| folder.config.mail.clone()).ok_or_else(|| {
        Error::usage(format!(
            "{}: no mail settings: add a `mail:` section to {GAME_FILE} (see `man adjutant-mail`), \
             or give --transport and --from",
            folder.root.display()
        ))
    })
}

/// The subject of a dispatch's message for `side`.
/// `owed`: for the game's last dispatch, the sides whose orders the next
/// step still owes (`inbox::owed`: orders sent ahead and standing orders
/// count as in); for an earlier one, those it awaited.
fn subject(game_id: &str, side: &str, d: &Dispatch, model: &ReportModel, owed: Option<&[String]>) -> String {
    let steps = if d.first == d.last { format!("step {}", d.first) } else { format!("steps {}-{}", d.first, d.last) };
    let what = match (&model.standing.result, &model.standing.next_step) {
        (Some(r), _) => format!("game over, {} {} victory", r.winner, r.level),
        (None, Some(next)) if owed.unwrap_or(&model.standing.awaiting).iter().any(|s| s == side) => {
            format!("your orders for {next}, please")
        }
        (None, Some(next)) => format!("next {next}"),
        (None, None) => "game over".to_string(),
    };
    format!("[{game_id}] {side}: {steps} resolved; {what}")
}

/// The widest a mail's map picture is drawn (pixels), and its colours: the
/// Historical Scenario's map then takes about 160 KB (1.6 MB went before:
/// the SVG inline in the HTML, the SVG and a 2048-pixel PNG), so that a
/// report mail stays under [`MAX_MAIL_BYTES`]. Measured on the demo's
/// largest mail with its JSON: 900 pixels and 64 colours 280 KB in all; 1100 and 256,
/// 388 KB; 1000 and 32, 262 KB but flat colours of rare counters lost.
pub const MAIL_MAP_WIDTH: u32 = 900;
pub const MAIL_MAP_COLOURS: usize = 64;

/// The most bytes a report mail of the embedded scenarios takes with the
/// default attachments (tests/club.rs checks it): what a player's mailbox
/// accepts.
pub const MAX_MAIL_BYTES: usize = 300 * 1024;

/// The content ID of the map the HTML body shows.
const MAP_CID: &str = "map";

/// The dispatch being mailed: its folder, its steps as reported, its map.
struct Mailing<'a> {
    d: &'a Dispatch,
    steps: &'a Steps<'a>,
    /// The map, when the game's system draws one.
    svg: Option<&'a str>,
    /// The map as the HTML body shows it (a PNG), when there is one.
    picture: Option<&'a Attachment>,
    /// The template of the next orders each side owes, when this is the
    /// game's last dispatch and the side owes some.
    templates: &'a BTreeMap<String, String>,
    /// The game's last dispatch: the sides the next step still owes.
    owed: Option<&'a [String]>,
    parts: &'a [ReportPart],
    /// A digest (game.yaml `mail: digest: true`): `steps` cover the
    /// dispatches held for the side and this one, and the text and JSON are
    /// rendered from them rather than read from the dispatch.
    digest: bool,
}

/// The message of a dispatch for `side`, to `to`: the text report as the
/// body, the HTML report as its alternative (the map in it, once, as a
/// picture beside it), and the attachments game.yaml asks for.
fn outgoing(folder: &GameFolder, settings: &MailSettings, m: &Mailing, side: &str, to: &str) -> Result<Outgoing> {
    let Mailing { d, steps, svg, picture, templates, owed: owing, parts, digest } = *m;
    let name = dispatch_name(d.first, d.last);
    let read = |file: &str| {
        let path = d.path.join(file);
        fsio::read(&path)
    };
    let viewer = || Viewer::Side(side.to_string());
    let json = match digest {
        true => steps.render(viewer(), Format::Json, MapIn::None)?,
        false => String::from_utf8_lossy(&read(&format!("{side}.json"))?).into_owned(),
    };
    let label = format!("reports/{name}/{side}.json");
    let model: ReportModel = serde_json::from_str(&json)
        .map_err(|e| Error::refused(format!("{label}: not a report adjutant wrote ({e}); run `adjutant verify`")))?;
    let text = match digest {
        true => steps.render(viewer(), Format::Text, MapIn::None)?,
        false => String::from_utf8_lossy(&read(&format!("{side}.txt"))?).into_owned(),
    };
    let reply_to = settings.from_mailbox()?.email.to_string();
    let game = &folder.config.game_id;
    let template_name = format!("{game}-{name}-{side}-next-orders.yaml");
    let owed = templates.get(side).filter(|_| parts.contains(&ReportPart::Template));
    let footer = format!(
        "\n-- \nadjutant, the referee of {game}. Send orders to {reply_to}: one YAML file per step, \
         attached or as the message's text.{}\nAnyone can check every roll with `adjutant verify` \
         on the published game folder.\n",
        if owed.is_some() {
            format!("\nThe template of your next orders is attached ({template_name}).")
        } else {
            String::new()
        }
    );
    let map = match (picture, svg) {
        (Some(_), _) => MapIn::File("cid:map"),
        (None, Some(svg)) => MapIn::Inline(svg),
        (None, None) => MapIn::None,
    };
    let html = steps.render(Viewer::Side(side.to_string()), Format::Html, map)?;
    let mut attachments = Vec::new();
    for part in parts {
        match part {
            ReportPart::Json => attachments.push(Attachment {
                filename: format!("{game}-{name}-{side}.json"),
                content_type: "application/json".into(),
                bytes: json.clone().into_bytes(),
            }),
            ReportPart::Template => {
                if let Some(t) = owed {
                    attachments.push(Attachment {
                        filename: template_name.clone(),
                        content_type: "text/plain; charset=utf-8".into(),
                        bytes: t.clone().into_bytes(),
                    })
                }
            }
            ReportPart::Svg => {
                if let Some(svg) = svg {
                    attachments.push(Attachment {
                        filename: format!("{game}-map-after-step-{}.svg", d.last),
                        content_type: "image/svg+xml".into(),
                        bytes: svg.as_bytes().to_vec(),
                    })
                }
            }
            ReportPart::Png =>
            {
                #[cfg(feature = "png")]
                if let Some(svg) = svg {
                    let png = crate::report::map::png::render_png(svg).map_err(|e| {
                        Error::usage(format!(
                            "reports/{name}/{}: cannot be drawn as PNG: {e}",
                            crate::report::game::MAP_FILE
                        ))
                    })?;
                    attachments.push(Attachment {
                        filename: format!("{game}-map-after-step-{}.png", d.last),
                        content_type: "image/png".into(),
                        bytes: png,
                    })
                }
            }
        }
    }
    Ok(Outgoing {
        to: vec![to.to_string()],
        subject: subject(game, side, d, &model, owing),
        // Issue 16: the footer too fits 78 columns, as the report does.
        text: text + &crate::report::tables::wrap(&footer),
        html: Some(html),
        attachments,
        inline: picture.map(|p| vec![(MAP_CID.to_string(), p.clone())]).unwrap_or_default(),
        in_reply_to: None,
        references: None,
    })
}

/// The map after dispatch `d`'s last step as the HTML body shows it: a PNG
/// at most [`MAIL_MAP_WIDTH`] wide; none when the game's system draws no
/// map or adjutant is built without PNG support (the HTML then carries the
/// SVG inline).
#[allow(unused_variables)]
fn picture(folder: &GameFolder, d: &Dispatch, svg: Option<&str>) -> Result<Option<Attachment>> {
    #[cfg(feature = "png")]
    if let Some(svg) = svg {
        let png = crate::report::map::png::render_png_indexed(svg, MAIL_MAP_WIDTH, MAIL_MAP_COLOURS).map_err(|e| {
            Error::usage(format!(
                "reports/{}/{}: cannot be drawn as PNG: {e}",
                dispatch_name(d.first, d.last),
                crate::report::game::MAP_FILE
            ))
        })?;
        return Ok(Some(Attachment {
            filename: format!("{}-map-after-step-{}.png", folder.config.game_id, d.last),
            content_type: "image/png".into(),
            bytes: png,
        }));
    }
    Ok(None)
}

/// Send the selected dispatches of the game at `dir` to its players.
pub fn mail_reports(
    dir: &Path,
    given: Option<MailSettings>,
    selection: &Selection,
    dry_run: bool,
    wait: Duration,
) -> Result<Posted> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log has no reports to mail", dir.display())));
    }
    let settings = settings(&folder, given)?;
    settings.transport()?;
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    for side in &selection.sides {
        if !sides.contains(side) {
            return Err(Error::usage(format!("--side '{side}': the sides are {}", sides.join(", "))));
        }
    }
    let (all, _) = dispatches(&folder)?;
    let last_step = folder.journal().tail()?.0.saturating_sub(1);
    let chosen: Vec<&Dispatch> = match &selection.dispatch {
        Some(name) => {
            let found: Vec<&Dispatch> = all.iter().filter(|d| &dispatch_name(d.first, d.last) == name).collect();
            if found.is_empty() {
                let known: Vec<String> = all.iter().map(|d| dispatch_name(d.first, d.last)).collect();
                return Err(Error::usage(format!(
                    "--dispatch '{name}': no such dispatch in reports/ ({})",
                    if known.is_empty() { "there is none yet".to_string() } else { known.join(", ") }
                )));
            }
            found
        }
        None => all.iter().collect(),
    };
    // The state after each dispatch's last step, from one replay.
    let ends: BTreeSet<u32> = chosen.iter().map(|d| d.last).collect();
    let mut states = BTreeMap::new();
    if let Some((entry, message)) = crate::game::play::replay_each(&folder, rules, |entry, state| {
        if ends.contains(&entry.step) {
            states.insert(entry.step, state.clone());
        }
        Ok(())
    })? {
        return Err(Error::refused(format!("{entry}: {message}: run `adjutant verify` before mailing")));
    }
    let templates = game_templates(&folder)?;
    let done: BTreeSet<(String, String)> = mailed(&folder)?.into_iter().map(|r| (r.dispatch, r.side)).collect();
    // Issue 16, a digest per player turn: the dispatches held for each side
    // until it owes orders or the game ends (never for a dispatch asked for
    // by name).
    let digest = settings.digest && selection.dispatch.is_none();
    let mut held: BTreeMap<String, Vec<&Dispatch>> = BTreeMap::new();
    let mut posted = Posted { dry_run, messages: Vec::new(), no_address: Vec::new(), bad_address: Vec::new() };
    for d in chosen {
        let name = dispatch_name(d.first, d.last);
        let mut map_files: Option<Option<Attachment>> = None;
        let reported = entries(&folder, d.first, d.last)?;
        let Some(state) = states.get(&d.last) else {
            return Err(Error::refused(format!("reports/{name}: reports steps the journal does not have")));
        };
        let steps = Steps { folder: &folder, rules, templates: &templates, entries: &reported, state };
        // The map a side's mail carries: the dispatch's one, or the side's
        // own when sides see different maps (`map_file`).
        let read_map = |side: &str| -> Result<Option<String>> {
            let file = map_file(rules, &Viewer::Side(side.to_string()));
            match steps.has_map() {
                true => Ok(Some(String::from_utf8_lossy(&fsio::read(&d.path.join(file))?).into_owned())),
                false => Ok(None),
            }
        };
        let differ = rules.maps_differ();
        let mut svg = if differ { None } else { read_map("")? };
        // The template of the next orders each side owes, with the game's last dispatch only.
        let mut owed = BTreeMap::new();
        let mut owing = None;
        if d.last == last_step {
            if let Some(state) = states.get(&d.last) {
                let sides = crate::game::inbox::owed(&folder, rules, state)?;
                owing = Some(sides.clone());
                for side in sides {
                    if let Ok((text, _)) = crate::game::template_at(&folder, rules, state, &side) {
                        owed.insert(side, text);
                    }
                }
            }
        }
        let parts = settings.attachments.clone().unwrap_or_else(|| crate::mail::DEFAULT_PARTS.to_vec());
        // Who the step after this dispatch waits for (for the game's last
        // dispatch, who still owes orders), and whether the game is over.
        let awaited = match &owing {
            Some(sides) => sides.clone(),
            None => rules.awaited(state.as_ref()),
        };
        let over = state.next_step().is_none();
        for side in sides.iter().filter(|s| selection.sides.is_empty() || selection.sides.contains(s)) {
            if selection.dispatch.is_none() && done.contains(&(name.clone(), side.clone())) {
                continue;
            }
            if digest && !over && !awaited.contains(side) {
                held.entry(side.clone()).or_default().push(d);
                continue;
            }
            let covered: Vec<&Dispatch> = match digest {
                true => held.remove(side).unwrap_or_default().into_iter().chain(std::iter::once(d)).collect(),
                false => vec![d],
            };
            let first = covered.first().map_or(d.first, |c| c.first);
            let digest_entries = match first < d.first {
                true => entries(&folder, first, d.last)?,
                false => Vec::new(),
            };
            let digest_steps = Steps { folder: &folder, rules, templates: &templates, entries: &digest_entries, state };
            let whole = Dispatch { first, last: d.last, path: d.path.clone() };
            let to = match folder.player_mailbox(side) {
                Ok(Some(mailbox)) => mailbox.to_string(),
                Ok(None) => {
                    if !posted.no_address.contains(side) {
                        posted.no_address.push(side.clone());
                    }
                    continue;
                }
                Err(problem) => {
                    let why = format!("{side}: {problem}");
                    if !posted.bad_address.contains(&why) {
                        posted.bad_address.push(why);
                    }
                    continue;
                }
            };
            if differ {
                svg = read_map(side)?;
                map_files = None;
            }
            if map_files.is_none() {
                map_files = Some(picture(&folder, d, svg.as_deref())?);
            }
            let picture = map_files.as_ref().and_then(|p| p.as_ref());
            let several = first < d.first;
            let mailing = Mailing {
                d: if several { &whole } else { d },
                steps: if several { &digest_steps } else { &steps },
                svg: svg.as_deref(),
                picture,
                templates: &owed,
                owed: owing.as_deref(),
                parts: &parts,
                digest: several,
            };
            let message = outgoing(&folder, &settings, &mailing, side, &to)?;
            let sent = mail::send(&settings, &folder.root, std::slice::from_ref(&message), dry_run)?;
            let sent = sent.into_iter().next().ok_or_else(|| Error::usage("the mail transport sent nothing"))?;
            if !dry_run {
                // One record per dispatch the message covers, so that each
                // goes once.
                for c in &covered {
                    record(
                        &folder,
                        &MailedRecord {
                            dispatch: dispatch_name(c.first, c.last),
                            side: side.clone(),
                            to: to.clone(),
                            subject: message.subject.clone(),
                            message_id: sent.message_id.clone(),
                        },
                    )?;
                }
            }
            posted.messages.push(Message {
                dispatch: name.clone(),
                side: side.clone(),
                to,
                subject: message.subject.clone(),
                attachments: sent.attachments.clone(),
                message_id: sent.message_id.clone(),
                file: sent.file.as_ref().map(|f| f.display().to_string()),
                text: dry_run.then(|| message.text.clone()),
            });
        }
    }
    Ok(posted)
}
