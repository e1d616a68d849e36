//! `adjutant odds`: the exact probability of every outcome of a proposed
//! close combat.

use std::time::Duration;

use adjutant::game::modules;
use adjutant::system::{OddsQuery, OddsReport, Rules, State};
use adjutant::Error;

use super::arguments::OddsArgs;
use super::output::Out;
use super::Outcome;

fn query(args: &OddsArgs) -> OddsQuery {
    OddsQuery {
        attackers: args.attackers.clone(),
        defenders: args.defenders.clone(),
        attacker_lead: args.attacker_lead.clone(),
        defender_lead: args.defender_lead.clone(),
        attacker_tactics: args.attacker_tactics.clone(),
        defender_tactics: args.defender_tactics.clone(),
        diversion: args.diversion,
        column: args.column.clone(),
        drm: args.drm,
        attacker_chits: args.attacker_chits,
        defender_chits: args.defender_chits,
        attacker_reroll_if: args.attacker_reroll_if.clone(),
        defender_reroll_if: args.defender_reroll_if.clone(),
        attacker_at_most: args.attacker_at_most,
        defender_at_most: args.defender_at_most,
    }
}

/// One line of an outcome table.
fn row(
    percent: &str,
    numerator: &str,
    denominator: &str,
    attacker: &[String],
    defender: &[String],
    gains: &Option<String>,
    checks: Vec<String>,
) -> Vec<String> {
    vec![
        percent.to_string(),
        format!("{numerator}/{denominator}"),
        attacker.join(" + "),
        defender.join(" + "),
        gains.clone().unwrap_or_default(),
        checks.join(", "),
    ]
}

/// The outcome table, as the text output prints both of them; the
/// momentum and morale-check columns only where a system's outcomes have
/// them (the AWI's have neither).
fn outcome_table(rows: impl Iterator<Item = Vec<String>>) -> comfy_table::Table {
    let rows: Vec<Vec<String>> = rows.collect();
    let header = ["probability", "exact", "attacker", "defender", "momentum gained", "morale checks"];
    let shown: Vec<usize> = (0..header.len()).filter(|&i| i < 4 || rows.iter().any(|r| !r[i].is_empty())).collect();
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::ASCII_MARKDOWN);
    table.set_header(shown.iter().map(|&i| header[i]).collect::<Vec<_>>());
    for r in rows {
        table.add_row(shown.iter().map(|&i| r[i].clone()).collect::<Vec<_>>());
    }
    table
}

pub fn run(args: &OddsArgs, wait: Duration, out: &Out) -> Outcome {
    // The rules and state the combat is weighed in: a game folder's, or
    // a module's scenario's set-up.
    let folder;
    let loaded;
    let (rules, state, system, module): (&dyn Rules, State, _, String) = if let Some(dir) = &args.dir {
        folder = adjutant::game::folder::GameFolder::open(dir)?;
        let _read = adjutant::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
        let (Some(module), Some(_)) = (&folder.config.module, &folder.config.scenario) else {
            return Err(Error::usage(format!("{}: a roll log, not a game", dir.display())).into());
        };
        let state = adjutant::game::load_state(&folder)?;
        (folder.rules()?, state, folder.system()?, module.clone())
    } else {
        let module = args.module.clone().unwrap_or_else(|| "savannah-1779".into());
        let scenario = args
            .scenario
            .clone()
            .ok_or_else(|| Error::usage("give --dir GAME, or --module M --scenario S".to_string()))?;
        let files = modules::files(&module, args.games_dir.as_deref())?;
        let system = modules::system_reading(&files)?;
        loaded = system.load(&files, &scenario)?;
        let state = loaded.setup()?;
        (loaded.as_ref(), state, system, module)
    };
    let report: OddsReport =
        rules.odds(state.as_ref(), &query(args)).unwrap_or_else(|| Err(modules::lacks(&module, system, "odds")))?;
    out.result(&report, |s| {
        let mut text = String::new();
        for e in &report.explanation {
            text += &format!("  {e}\n");
        }
        text += &format!("{} column {}, total DRM {:+}\n", s.bold("odds:"), report.column, report.drm);
        if report.no_combat {
            text += "the tactics matrix gives NC: no combat takes place (12.23 step 4)\n";
            return text;
        }
        let rows = report.outcomes.iter().map(|l| {
            let checks: Vec<String> =
                l.morale_checks.iter().map(|c| format!("{} passes {}/10", c.unit, c.passes_in_ten)).collect();
            row(&l.percent, &l.numerator, &l.denominator, &l.attacker, &l.defender, &l.gains_momentum, checks)
        });
        text += &format!("{}\n", outcome_table(rows));
        if !report.with_morale_checks.is_empty() {
            text += &format!("{}\n", s.bold("with the morale checks rolled (13.5):"));
            let rows = report.with_morale_checks.iter().map(|l| {
                let checks: Vec<String> = l
                    .morale
                    .iter()
                    .map(|c| format!("{} {}", c.unit, if c.passes { "passes" } else { "fails" }))
                    .collect();
                row(&l.percent, &l.numerator, &l.denominator, &l.attacker, &l.defender, &l.gains_momentum, checks)
            });
            text += &format!("{}\n", outcome_table(rows));
        }
        if !report.attacker_chits_spent.is_empty() || !report.defender_chits_spent.is_empty() {
            text += &format!(
                "expected momentum chits spent: attacker {}, defender {}\n",
                report.attacker_chits_spent, report.defender_chits_spent
            );
        }
        text
    })?;
    Ok(0)
}
