//! `adjutant status`: where a game stands.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use adjutant::game::folder::{FolderKind, GameFolder};
use adjutant::Error;

use super::output::Out;
use super::Outcome;

#[derive(Serialize)]
struct Status {
    game: String,
    module: String,
    scenario: String,
    steps_resolved: u32,
    turn: u32,
    /// The next step, absent when the game is over.
    step: Option<String>,
    /// The sides whose orders the next step awaits, and those already in
    /// the inbox for it.
    awaiting: Vec<String>,
    submitted: Vec<String>,
    /// The sides the next step still owes orders from: `awaiting` less
    /// those whose own file is in and those whose standing orders cover it.
    owed: Vec<String>,
    /// A role whose one entry may stand in for every awaited side's files
    /// (the AWI referee's entry of a battle), entered with `resolve`.
    #[serde(skip_serializing_if = "Option::is_none")]
    stand_in: Option<String>,
    /// What stops the game now, if anything: the problems `resolve` would
    /// meet (file, line, field) and the sides that must send new orders.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blocked: Vec<adjutant::game::play::Blocker>,
    /// Sides whose orders for the next step are default orders `tick`
    /// wrote for them at a missed deadline: written for the side, not by
    /// it, so not counted in `submitted` (its own file still replaces them
    /// until the step is resolved).
    defaults: Vec<String>,
    /// Orders sent ahead for later steps: `step: [sides]`.
    ahead: BTreeMap<String, Vec<String>>,
    /// Each side's standing orders (`submit --standing`): the kinds of step
    /// they cover; `covers_next` when they will give the next step's orders.
    standing: Vec<StandingStatus>,
    weather: Option<String>,
    army_morale: BTreeMap<String, i32>,
    /// Victory points per army, in halves (Savannah 2.9).
    vp_halves: BTreeMap<String, i32>,
    momentum: BTreeMap<String, u32>,
    /// The turn track of the turn (Savannah 1.6), if the game has tracks.
    track: Option<String>,
    /// How many Random Events cards each player holds (Savannah 4.3).
    hand_sizes: BTreeMap<String, usize>,
    /// What else stands on the board, in words (Savannah 4.4, 4.5: siege
    /// works, breaches, destroyed city hexes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    board: Vec<String>,
    result: Option<adjutant::system::GameResult>,
    players: Vec<adjutant::game::folder::Player>,
    /// The latest dispatch of reports (`reports/000047-000049`), if any.
    latest_reports: Option<String>,
    /// Report messages `adjutant mail` would send: a dispatch not yet
    /// mailed to a side with an address.
    not_mailed: usize,
    /// Mutual mode (DICE.md 7): the commitments, orders and keys the next
    /// step waits for.
    #[serde(skip_serializing_if = "Option::is_none")]
    mutual: Option<adjutant::game::mutual::Waiting>,
    /// Mutual mode: the forfeit that adjourned the game (DICE.md 7.4), if
    /// any: its journal step and record.
    #[serde(skip_serializing_if = "Option::is_none")]
    adjourned: Option<Adjourned>,
}

#[derive(Serialize)]
struct Adjourned {
    journal_step: u32,
    forfeit: adjutant::game::journal::Forfeit,
    /// In words.
    text: String,
}

#[derive(Serialize)]
struct StandingStatus {
    #[serde(flatten)]
    summary: adjutant::game::standing::Summary,
    covers_next: bool,
}

/// Halves as a player reads them: 3 -> "1½".
pub fn halves(h: i32) -> String {
    let sign = if h < 0 { "-" } else { "" };
    let (whole, half) = (h.abs() / 2, h.abs() % 2 == 1);
    match (whole, half) {
        (0, true) => format!("{sign}½"),
        (w, true) => format!("{sign}{w}½"),
        (w, false) => format!("{sign}{w}"),
    }
}

pub fn run(dir: &Path, wait: Duration, out: &Out) -> Outcome {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; status is for games", dir.display())).into());
    }
    let read = adjutant::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
    let rules = adjutant::game::load_rules(&folder)?;
    let state = adjutant::game::load_state(&folder)?;
    let next = state.next_step();
    let awaiting = rules.awaited(state.as_ref());
    let standing_now = rules.standing(state.as_ref());
    let mut submitted = Vec::new();
    let mut defaults = Vec::new();
    let mut ahead: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in adjutant::game::inbox::pending(&folder)? {
        if next.as_ref().is_some_and(|s| s.name == p.step) {
            if adjutant::game::deadline::is_default(&p.bytes) {
                defaults.push(p.side);
            } else {
                submitted.push(p.side);
            }
        } else {
            ahead.entry(p.step).or_default().push(p.side);
        }
    }
    let next_kind = next.as_ref().map(|s| s.field.clone());
    let standing: Vec<StandingStatus> = adjutant::game::standing::summaries(&folder)?
        .into_iter()
        .map(|summary| {
            let covers_next = awaiting.contains(&summary.side)
                && !submitted.contains(&summary.side)
                && !defaults.contains(&summary.side)
                && next_kind.as_ref().is_some_and(|k| summary.steps.contains(k));
            StandingStatus { summary, covers_next }
        })
        .collect();
    let (dispatches, _) = adjutant::report::game::dispatches(&folder)?;
    let mailed: std::collections::BTreeSet<(String, String)> =
        adjutant::mail::post::mailed(&folder)?.into_iter().map(|r| (r.dispatch, r.side)).collect();
    let addressed: Vec<&str> =
        folder.config.players.iter().filter(|p| p.email.is_some()).map(|p| p.side.as_str()).collect();
    let names: Vec<String> =
        dispatches.iter().map(|d| adjutant::report::game::dispatch_name(d.first, d.last)).collect();
    let not_mailed = names
        .iter()
        .flat_map(|n| addressed.iter().map(move |side| (n.clone(), side.to_string())))
        .filter(|pair| !mailed.contains(pair))
        .count();
    let adjourned = adjutant::game::play::forfeited(&folder)?.map(|(journal_step, forfeit)| Adjourned {
        text: adjutant::game::play::adjourned_words(journal_step, &forfeit),
        journal_step,
        forfeit,
    });
    let mutual = match adjourned {
        Some(_) => None,
        None => adjutant::game::mutual::waiting(&folder, rules, &state)?,
    };
    let owed = adjutant::game::inbox::owed(&folder, rules, &state)?;
    let mut status = Status {
        owed,
        stand_in: adjutant::game::stand_in(&folder.config, rules, state.as_ref()),
        blocked: Vec::new(),
        mutual,
        adjourned,
        latest_reports: names.last().map(|n| format!("{}/{n}", adjutant::game::folder::REPORTS_DIR)),
        not_mailed,
        game: folder.config.game_id.clone(),
        module: folder.config.module.clone().unwrap_or_default(),
        scenario: folder.config.scenario.clone().unwrap_or_default(),
        steps_resolved: state.resolved_steps(),
        turn: standing_now.turn,
        step: next.as_ref().map(|s| s.name.clone()),
        awaiting,
        submitted,
        defaults,
        ahead,
        standing,
        weather: standing_now.weather,
        army_morale: standing_now.army_morale,
        vp_halves: standing_now.vp_halves,
        momentum: standing_now.momentum,
        track: standing_now.track,
        hand_sizes: standing_now.cards.iter().map(|(h, c)| (h.clone(), c.len())).collect(),
        board: standing_now.board,
        result: standing_now.result,
        players: folder.config.players.clone(),
    };
    drop(read);
    // What stops the game, from a run of resolve written nowhere; under its
    // own lock (the one above may have been taken to settle a killed
    // command's leftovers, and is let go first).
    if next.is_some() && status.adjourned.is_none() {
        status.blocked = adjutant::game::play::blockers(dir, wait)?;
    }
    out.result(&status, |s| {
        let mut text = format!(
            "{} {} ({} {}), {} steps resolved\n",
            s.bold("game"),
            status.game,
            status.module,
            status.scenario,
            status.steps_resolved
        );
        if let Some(a) = &status.adjourned {
            text += &format!(
                "{} {} forfeit{} at step {}: {} of {} not in by the deadline {} (DICE.md 7.4, {})\n",
                s.bad("adjourned:"),
                a.forfeit.sides.join(", "),
                if a.forfeit.sides.len() == 1 { "s" } else { "" },
                a.forfeit.step,
                adjutant::game::play::withheld_words(&a.forfeit),
                a.forfeit.players.join(", "),
                a.forfeit.deadline,
                adjutant::game::journal::label(a.journal_step)
            );
        }
        match (&status.result, &status.step) {
            (Some(r), _) => {
                text += &format!("{} {} {} victory\n", s.good("game over:"), r.winner, r.level);
                text += &super::individual_winners_text(r);
            }
            (None, Some(step)) => {
                let track = status.track.as_ref().map(|t| format!(" ({t} turn track)")).unwrap_or_default();
                text += &format!("turn {}{track}, next step {step}\n", status.turn);
                let waiting: Vec<String> = status
                    .awaiting
                    .iter()
                    .map(|side| {
                        if status.submitted.contains(side) {
                            format!("{side} (in)")
                        } else if status.defaults.contains(side) && status.mutual.is_some() {
                            // Mutual mode: the default is committed for the
                            // side and stands (docs/orders.md, DICE.md A11).
                            format!("{side} (default orders written and committed for it at the deadline; they stand)")
                        } else if status.defaults.contains(side) {
                            format!("{side} (default orders written for it at the deadline; its own file still wins)")
                        } else if status.standing.iter().any(|o| o.covers_next && &o.summary.side == side) {
                            format!("{side} (standing orders)")
                        } else {
                            side.clone()
                        }
                    })
                    .collect();
                let or = status
                    .stand_in
                    .as_ref()
                    .map(|role| {
                        format!("; or the {role}'s one entry in their place (`adjutant resolve --dir GAME FILE`)")
                    })
                    .unwrap_or_default();
                text += &format!(
                    "awaiting orders from: {}{or}\n",
                    if waiting.is_empty() { "nobody (resolve runs it)".to_string() } else { waiting.join(", ") }
                );
            }
            (None, None) => text += "game over\n",
        }
        for b in &status.blocked {
            text += &format!("{} {}\n", s.bad("refused:"), adjutant::base::error::escape_lines(&b.problem));
        }
        text += &super::blocked_text(&status.blocked, s);
        if let Some(w) = &status.mutual {
            text += "dice: mutual mode (DICE.md 7)\n";
            text += &super::waiting_text(w);
        }
        if let Some(latest) = &status.latest_reports {
            text += &format!("latest reports: {latest}/");
            text += &match status.not_mailed {
                0 => "; every dispatch mailed\n".to_string(),
                n => format!("; {n} report message(s) not mailed yet (adjutant mail)\n"),
            };
        }
        for (step, sides) in &status.ahead {
            text += &format!("sent ahead for {step}: {}\n", sides.join(", "));
        }
        for o in status.standing.iter().map(|o| &o.summary) {
            match &o.problem {
                Some(p) => text += &format!("standing orders of {}: unreadable: {p}\n", o.side),
                None if o.steps.is_empty() => text += &format!("standing orders of {}: none\n", o.side),
                None => text += &format!("standing orders of {}: {}\n", o.side, o.steps.join(", ")),
            }
        }
        if let Some(w) = &status.weather {
            text += &format!("weather: {w}\n");
        }
        for line in &status.board {
            text += &format!("{line}\n");
        }
        let mut table = comfy_table::Table::new();
        table.load_style(comfy_table::presets::ASCII_MARKDOWN);
        table.set_header(vec!["army", "army morale", "victory points"]);
        for (army, morale) in &status.army_morale {
            table.add_row(vec![
                army.clone(),
                morale.to_string(),
                halves(status.vp_halves.get(army).copied().unwrap_or(0)),
            ]);
        }
        text += &format!("{table}\n");
        let chits: Vec<String> = status.momentum.iter().map(|(p, n)| format!("{p} {n}")).collect();
        text += &format!("momentum chits: {}\n", if chits.is_empty() { "none".into() } else { chits.join(", ") });
        if !status.hand_sizes.is_empty() {
            let hands: Vec<String> = status.hand_sizes.iter().map(|(p, n)| format!("{p} {n}")).collect();
            text += &format!("Random Events cards in hand: {}\n", hands.join(", "));
        }
        for p in &status.players {
            text += &format!(
                "player {}: {}{}\n",
                p.side,
                p.name,
                p.email.as_ref().map(|e| format!(" <{e}>")).unwrap_or_default()
            );
        }
        text
    })?;
    Ok(0)
}
