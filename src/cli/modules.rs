//! `adjutant modules`: the embedded game modules, their scenarios and
//! sides, and which sides one player may hold together.

use adjutant::game::modules;

use super::output::Out;
use super::Outcome;

pub fn run(out: &Out) -> Outcome {
    let all = modules::summaries()?;
    out.result(&all, |s| {
        let mut text = String::new();
        for m in &all {
            text += &format!("{} {} (system {})\n", s.bold(&m.id), m.name, m.system);
            let sides: Vec<String> = m.sides.iter().map(|side| format!("{} ({})", side.id, side.name)).collect();
            text += &format!("  sides      {}\n", sides.join(", "));
            for sc in &m.scenarios {
                text += &format!("  scenario   {}: {}, turns {}-{}\n", sc.id, sc.name, sc.first_turn, sc.last_turn);
                let players: Vec<String> =
                    sc.players.iter().map(|p| format!("{} ({})", p.player, p.sides.join(", "))).collect();
                text += &format!("             players: {}\n", players.join("; "));
            }
        }
        text += "One person may hold the sides of one player (`new --player SIDE=...` for each).\n";
        text
    })?;
    Ok(0)
}
