//! Deadlines (issue 16): `game.yaml`'s `deadlines:` section says how long a
//! step may await orders, and `adjutant tick` (run from cron) applies it.
//!
//! ```yaml
//! deadlines:
//!   default: {after: 48h, grace: 6h, remind: 12h}
//!   steps:                       # a step's name without its turn
//!     initiative: {after: 24h}
//! ```
//!
//! A step's clock starts when `tick` first sees it awaited (the procmail
//! recipe and the crontab line run `tick` after every `resolve`, so that is
//! within minutes of the step becoming awaited). `remind` before the
//! deadline, the sides still owing orders are reminded once. At the
//! deadline, each side that still owes orders and has no standing orders
//! for the step gets its default orders written into `inbox/`: the least
//! orders `adjutant template` gives, under a first line that marks them as
//! written for the side, not by it, and records the decision (the deadline,
//! the time read). A real file that arrives before the step is resolved
//! replaces them (kept in `kept/superseded/`), as any newer file does. At
//! the deadline plus `grace`, `tick` resolves the step with the defaults;
//! a plain `resolve` never uses them (it has no clock), so the grace holds.
//!
//! No system reads a clock: the time is read by the command line (`--now`,
//! `ADJUTANT_NOW`, or the system clock) and handed in. Each decision is
//! recorded twice: in the default orders file itself, which the journal
//! hashes and `orders/` keeps, so `verify` replays the game with no clock;
//! and in `ticks.yaml` beside the journal (what `tick` saw and did, step by
//! step), which nothing replays.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameFolder};

/// What `tick` saw and did, step by step, in the game folder.
pub const TICKS_FILE: &str = "ticks.yaml";

/// The first bytes of an orders file `tick` wrote for a side.
pub const DEFAULT_MARK: &str = "# adjutant tick: default orders";

/// True when `bytes` are default orders written by `tick`.
pub fn is_default(bytes: &[u8]) -> bool {
    bytes.starts_with(DEFAULT_MARK.as_bytes())
}

/// A moment, in whole seconds since 1970-01-01T00:00:00Z, written
/// `2026-12-03T10:00:00Z` (UTC only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(pub i64);

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

impl Instant {
    /// Read `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn parse(s: &str) -> std::result::Result<Instant, String> {
        let bad = || format!("'{}': write a UTC time as 2026-12-03T10:00:00Z", crate::base::error::echo(s));
        let b = s.as_bytes();
        if b.len() != 20
            || b[4] != b'-'
            || b[7] != b'-'
            || b[10] != b'T'
            || b[13] != b':'
            || b[16] != b':'
            || b[19] != b'Z'
        {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| -> std::result::Result<i64, String> {
            let part = &s[r];
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (y, mo, d, h, mi, se) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
        let month_days = [
            31,
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if !(1..=12).contains(&mo) || d < 1 || d > month_days[(mo - 1) as usize] || h > 23 || mi > 59 || se > 59 {
            return Err(bad());
        }
        Ok(Instant(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se))
    }

    pub fn plus(self, span: Span) -> Instant {
        Instant(self.0.saturating_add(span.0 as i64))
    }

    pub fn minus(self, span: Span) -> Instant {
        Instant(self.0.saturating_sub(span.0 as i64))
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (days, secs) = (self.0.div_euclid(86400), self.0.rem_euclid(86400));
        let (y, m, d) = civil_from_days(days);
        write!(f, "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
    }
}

impl Serialize for Instant {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Instant::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A length of time in whole seconds, written `48h`, `30m`, `2d`, `1d12h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Span(pub u64);

impl Span {
    pub fn parse(s: &str) -> std::result::Result<Span, String> {
        let bad = || {
            format!(
                "'{}': write a length of time as a number and a unit (d, h, m, s), e.g. 48h, 30m, 2d or 1d12h",
                crate::base::error::echo(s)
            )
        };
        let mut total: u64 = 0;
        let mut digits = String::new();
        if s.is_empty() {
            return Err(bad());
        }
        for c in s.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            let unit = match c {
                'd' => 86400,
                'h' => 3600,
                'm' => 60,
                's' => 1,
                _ => return Err(bad()),
            };
            let n: u64 = digits.parse().map_err(|_| bad())?;
            total = n.checked_mul(unit).and_then(|v| total.checked_add(v)).ok_or_else(bad)?;
            digits.clear();
        }
        if !digits.is_empty() {
            return Err(bad());
        }
        Ok(Span(total))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut left = self.0;
        if left == 0 {
            return f.write_str("0m");
        }
        for (unit, name) in [(86400, "d"), (3600, "h"), (60, "m"), (1, "s")] {
            if left >= unit {
                write!(f, "{}{name}", left / unit)?;
                left %= unit;
            }
        }
        Ok(())
    }
}

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Span::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// One kind of step's deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// How long after the step becomes awaited its orders are due.
    pub after: Span,
    /// How long after the deadline the step is resolved with the defaults
    /// (a real file arriving meanwhile replaces a side's default).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grace: Span,
    /// How long before the deadline the sides still owing orders are
    /// reminded (none when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind: Option<Span>,
}

fn is_zero(s: &Span) -> bool {
    s.0 == 0
}

/// game.yaml's `deadlines:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deadlines {
    /// The policy of every step `steps` does not name.
    pub default: Policy,
    /// By a step's name without its turn (`initiative`, `allies-movement`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub steps: BTreeMap<String, Policy>,
    /// Mutual mode (DICE.md 7.4, docs/DICE.md A8): how long after a rolling
    /// step is sealed (as `tick` first sees it) every player's key p_j is
    /// due; at that deadline the players still owing it forfeit. Absent: a
    /// step waits for its keys however long it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<Span>,
}

impl Deadlines {
    pub fn policy(&self, kind: &str) -> Policy {
        self.steps.get(kind).copied().unwrap_or(self.default)
    }
}

/// A default orders file written for a side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaulted {
    pub side: String,
    /// The time read when it was written.
    pub at: Instant,
    pub file: String,
    pub sha256: Bytes32,
}

/// What `tick` saw and did for one awaited step (`ticks.yaml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TickRecord {
    /// The journal step awaited (k) and the game's step.
    pub step: u32,
    pub game_step: String,
    /// When `tick` first saw the step awaited: its clock starts there.
    pub awaited_since: Instant,
    pub deadline: Instant,
    /// The deadline plus the grace: when `tick` resolves with defaults.
    pub resolve_at: Instant,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reminded: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defaulted: Vec<Defaulted>,
    /// The refusals mailed while the step was blocked: the SHA-256 of each
    /// side's name and problems, so that each is mailed once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refusals_mailed: Vec<Bytes32>,
    /// Mutual mode: when `tick` first saw the step sealed and rolling (its
    /// keys' clock starts there, DICE.md 7.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_at: Option<Instant>,
    /// Mutual mode (docs/DICE.md A11): when `tick` first saw every
    /// commitment of the step in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub committed_at: Option<Instant>,
    /// `sealed_at` plus game.yaml's `reveal`: when a key not in forfeits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal_deadline: Option<Instant>,
}

/// A forfeit due now (mutual mode): what is withheld, and the deadline it
/// missed as `since` plus `span`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ForfeitDue {
    #[serde(serialize_with = "withheld_name")]
    pub withheld: crate::game::play::Withheld,
    pub since: Instant,
    pub span: Span,
}

fn withheld_name<S: Serializer>(w: &crate::game::play::Withheld, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(match w {
        crate::game::play::Withheld::Key => "key",
        crate::game::play::Withheld::Orders => "orders",
        crate::game::play::Withheld::Commitment => "commitment",
    })
}

/// The records of `ticks.yaml` (none when it does not exist).
pub fn records(folder: &GameFolder) -> Result<Vec<TickRecord>> {
    let path = folder.root.join(TICKS_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = fsio::read_text(&path, TICKS_FILE)?;
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    crate::base::yaml::parse(TICKS_FILE, &text).map_err(Error::Data)
}

fn write_records(folder: &GameFolder, list: &[TickRecord]) -> Result<()> {
    let text = crate::base::yaml::to_string(&list).map_err(|e| Error::usage(e.to_string()))?;
    fsio::write_atomic(&folder.root.join(TICKS_FILE), text.as_bytes())
}

/// A side's orders file written at the deadline.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub side: String,
    pub stored: String,
    pub sha256: Bytes32,
    /// The file's text (the player is mailed it).
    pub text: String,
}

/// What `tick` decided, before resolving.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// The time read.
    pub now: Instant,
    /// The step awaited; absent when the game is over (or awaits no one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<TickRecord>,
    /// The sides that still owe orders (without a file in, nor standing
    /// orders for the step).
    pub owing: Vec<String>,
    /// Sides to remind now (their reminder is recorded as sent).
    pub remind: Vec<String>,
    /// Default orders written now.
    pub written: Vec<Written>,
    /// True when the step's defaults may be used: its deadline plus grace
    /// has passed.
    pub defaults_due: bool,
    /// Mutual mode: a forfeit due now (a key past the reveal deadline, or a
    /// committed orders file past the step's deadline and grace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<ForfeitDue>,
    /// Mutual mode: the labels whose key p_j the sealed step awaits (it
    /// is not resolved, nor any of its orders refused, until they are in).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys_owed: Vec<String>,
    /// Mutual mode: the sides whose players have not sent their anchors
    /// (7.1): no orders are taken, and no clock runs, until they have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anchors_owed: Vec<String>,
    /// Mutual mode: the game was adjourned by a forfeit; why, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjourned: Option<String>,
}

/// `tick`'s decisions for the game at `dir` at the time `now`: the
/// awaited step's clock started (if not yet), reminders owed, default
/// orders written at the deadline. Resolving and mailing are the caller's.
pub fn decide(dir: &Path, now: Instant, wait: Duration) -> Result<Decision> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log has no deadlines", dir.display())));
    }
    let Some(deadlines) = folder.config.deadlines.clone() else {
        return Err(Error::usage(format!(
            "{}: game.yaml has no `deadlines:` section, so tick has nothing to do: add one, e.g.\n  \
             deadlines:\n    default: {{after: 48h, grace: 6h, remind: 12h}}\n(see `man adjutant-tick`)",
            dir.display()
        )));
    };
    let mutual = folder.config.dice.mode == crate::game::folder::DiceMode::Mutual;
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let state = crate::game::load_state(&folder)?;
    let mut decision = Decision {
        now,
        record: None,
        owing: Vec::new(),
        remind: Vec::new(),
        written: Vec::new(),
        defaults_due: false,
        forfeit: None,
        keys_owed: Vec::new(),
        anchors_owed: Vec::new(),
        adjourned: None,
    };
    if let Some((at, f)) = crate::game::play::forfeited(&folder)? {
        decision.adjourned = Some(crate::game::play::adjourned_words(at, &f));
        return Ok(decision);
    }
    if mutual {
        decision.anchors_owed = crate::game::mutual::sides_without_player(&folder.config, rules);
        if !decision.anchors_owed.is_empty() {
            return Ok(decision);
        }
    }
    let Some(step) = state.next_step() else { return Ok(decision) };
    let awaited = rules.awaited(state.as_ref());
    if awaited.is_empty() {
        return Ok(decision);
    }
    let (k, _) = folder.journal().tail()?;
    let mut list = records(&folder)?;
    let policy = deadlines.policy(&step.field);
    let at = match list.iter().position(|r| r.step == k && r.game_step == step.name) {
        Some(i) => i,
        None => {
            let deadline = now.plus(policy.after);
            list.push(TickRecord {
                step: k,
                game_step: step.name.clone(),
                awaited_since: now,
                deadline,
                resolve_at: deadline.plus(policy.grace),
                reminded: Vec::new(),
                defaulted: Vec::new(),
                refusals_mailed: Vec::new(),
                sealed_at: None,
                committed_at: None,
                reveal_deadline: None,
            });
            list.len() - 1
        }
    };
    let record = &mut list[at];
    let pending = crate::game::inbox::pending(&folder)?;
    let standing = crate::game::standing::summaries(&folder)?;
    let owing: Vec<String> = awaited
        .iter()
        .filter(|side| !pending.iter().any(|p| p.step == step.name && &&p.side == side))
        .filter(|side| {
            !standing.iter().any(|s| &&s.side == side && s.problem.is_none() && s.steps.contains(&step.field))
        })
        .cloned()
        .collect();
    if let Some(remind) = policy.remind {
        if now >= record.deadline.minus(remind) && now < record.deadline {
            for side in &owing {
                if !record.reminded.contains(side) {
                    record.reminded.push(side.clone());
                    decision.remind.push(side.clone());
                }
            }
        }
    }
    // Mutual mode (docs/DICE.md A11): a step that takes commitments, each
    // side's commitment in, owes only the files committed to; those are
    // never defaulted (the commitment stands), and forfeit at the deadline
    // plus the grace.
    let commitments = mutual && crate::game::mutual::needs_commitments(&folder.config, &awaited);
    let mut committed = Vec::new();
    if commitments {
        for side in &owing {
            if crate::game::mutual::commitment(&folder, &step.name, side)?.is_some() {
                committed.push(side.clone());
            }
        }
    }
    // Mutual mode at a step a stand-in's one entry settles in referee mode
    // (an AWI battle, `Rules::stand_in`): a side's least orders there (a
    // commander's empty entry) settle nothing, and a default once in stands
    // for good (A5), so it would leave the step waiting for ever. A side
    // that sent no commitment is not defaulted: it forfeits at the deadline
    // plus the grace (docs/DICE.md A11 (3)).
    let no_defaults = mutual && rules.stand_in(state.as_ref()).is_some();
    if now >= record.deadline && !no_defaults {
        for side in owing.iter().filter(|s| !committed.contains(s)) {
            let body = crate::game::least_orders(&folder, rules, state.as_ref(), side)?;
            let text = format!(
                "{DEFAULT_MARK} written for {side}, not by {side}: the deadline {} passed (clock read {now}); \
                 the least orders of `adjutant template`\n{body}",
                record.deadline
            );
            let name = crate::game::inbox::file_name(&step.name, side);
            let inbox = folder.root.join(crate::game::inbox::INBOX_DIR);
            if !inbox.is_dir() {
                std::fs::create_dir(&inbox).map_err(|e| Error::io(&inbox, e))?;
                fsio::sync_dir(&folder.root)?;
            }
            let sha256 = Bytes32::sha256(text.as_bytes());
            if commitments {
                // Its commitment first: the default's bytes are fixed by
                // rule, so tick commits them for the side (A11).
                crate::game::mutual::store_commitment(&folder, &step.name, side, &sha256)?;
            }
            fsio::write_atomic(&inbox.join(&name), text.as_bytes())?;
            let stored = format!("{}/{name}", crate::game::inbox::INBOX_DIR);
            record.defaulted.push(Defaulted { side: side.clone(), at: now, file: stored.clone(), sha256 });
            decision.written.push(Written { side: side.clone(), stored, sha256, text });
        }
    }
    decision.defaults_due = now >= record.resolve_at;
    if let Some(w) = mutual.then(|| crate::game::mutual::waiting(&folder, rules, &state)).transpose()?.flatten() {
        // A11: the files committed to are due `grace` after the later of
        // the deadline and the moment tick first saw every commitment in
        // (its defaults complete them at the deadline), so that a late
        // tick never leaves a side less than the grace to send its file.
        if commitments && w.commitments_owed.is_empty() {
            let complete = *record.committed_at.get_or_insert(now);
            let since = complete.max(record.deadline);
            if now >= since.plus(policy.grace) && !committed.is_empty() {
                decision.forfeit =
                    Some(ForfeitDue { withheld: crate::game::play::Withheld::Orders, since, span: policy.grace });
            }
        } else if no_defaults && !w.commitments_owed.is_empty() && now >= record.deadline.plus(policy.grace) {
            decision.forfeit = Some(ForfeitDue {
                withheld: crate::game::play::Withheld::Commitment,
                since: record.deadline,
                span: policy.grace,
            });
        }
        // DICE.md 7.4: the keys' clock starts when tick first sees the step
        // sealed and rolling.
        if w.sealed && w.rolls && !w.keys_owed.is_empty() && decision.forfeit.is_none() {
            decision.keys_owed = w.keys_owed.iter().map(|l| format!("p_{} of {l}", w.rolling_step)).collect();
            let sealed_at = *record.sealed_at.get_or_insert(now);
            if let Some(reveal) = deadlines.reveal {
                let due = sealed_at.plus(reveal);
                record.reveal_deadline = Some(due);
                if now >= due {
                    decision.forfeit =
                        Some(ForfeitDue { withheld: crate::game::play::Withheld::Key, since: sealed_at, span: reveal });
                }
            }
        }
    }
    decision.owing = owing;
    decision.record = Some(record.clone());
    write_records(&folder, &list)?;
    Ok(decision)
}

/// The refusal `problems` of the awaited step `game_step` to mail to
/// `side`: true (and recorded in `ticks.yaml`) when it was not mailed yet.
pub fn first_refusal(dir: &Path, game_step: &str, side: &str, problems: &[String], wait: Duration) -> Result<bool> {
    let folder = GameFolder::open(dir)?;
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let mut list = records(&folder)?;
    let Some(record) = list.iter_mut().rev().find(|r| r.game_step == game_step) else { return Ok(true) };
    let key = Bytes32::sha256(format!("{side}\n{}", problems.join("\n")).as_bytes());
    if record.refusals_mailed.contains(&key) {
        return Ok(false);
    }
    record.refusals_mailed.push(key);
    write_records(&folder, &list)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_spans_read_and_written() {
        let t = Instant::parse("2026-12-03T10:00:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-12-03T10:00:00Z");
        assert_eq!(Instant::parse("1970-01-01T00:00:00Z").unwrap(), Instant(0));
        assert_eq!(Instant::parse("2024-02-29T23:59:59Z").unwrap().plus(Span(1)).to_string(), "2024-03-01T00:00:00Z");
        for bad in ["2026-12-03 10:00:00Z", "2026-13-03T10:00:00Z", "2025-02-29T10:00:00Z", "2026-12-03T10:00:00+01:00"]
        {
            assert!(Instant::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Span::parse("1d12h").unwrap(), Span(36 * 3600));
        assert_eq!(Span::parse("30m").unwrap().to_string(), "30m");
        assert_eq!(Span(36 * 3600 + 90).to_string(), "1d12h1m30s");
        for bad in ["", "12", "h", "3w", "-1h", "99999999999999999999d"] {
            assert!(Span::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(t.plus(Span::parse("48h").unwrap()).to_string(), "2026-12-05T10:00:00Z");
    }
}
