//! The step's map: movement arrows and combat markers read off a step's
//! events, for the map a report draws (`report/map/svg.rs`). Like a report, this only reads
//! what the events say (their hexes and their text); it never recomputes a
//! rule. Events from before an event carried a hex simply draw nothing.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::base::hex::HexId;
use crate::base::hexmap::{Arrow, Marker, MarkerKind};
use crate::system::Event;

fn hex(v: Option<&Value>) -> Option<HexId> {
    v?.as_str()?.parse().ok()
}

fn hexes(v: Option<&Value>) -> Vec<HexId> {
    v.and_then(Value::as_array).map(|list| list.iter().filter_map(|h| hex(Some(h))).collect()).unwrap_or_default()
}

fn text(v: Option<&Value>) -> Option<&str> {
    v?.as_str()
}

/// Arrows and markers in the order they first appear, one arrow per path and
/// army and one marker per hex and kind, their labels one line per event.
#[derive(Default)]
struct Overlay {
    arrows: Vec<Arrow>,
    markers: Vec<Marker>,
}

impl Overlay {
    fn arrow(&mut self, path: Vec<HexId>, army: String, label: &str) {
        if path.len() < 2 {
            return;
        }
        match self.arrows.iter_mut().find(|a| a.path == path && a.army == army) {
            Some(a) => add_line(a.label.get_or_insert_with(String::new), label),
            None => self.arrows.push(Arrow { path, army, label: Some(label.to_string()) }),
        }
    }

    fn marker(&mut self, hex: HexId, kind: MarkerKind, label: &str) {
        match self.markers.iter_mut().find(|m| m.hex == hex && m.kind == kind) {
            Some(m) => add_line(&mut m.label, label),
            None => self.markers.push(Marker { hex, kind, label: label.to_string() }),
        }
    }
}

fn add_line(label: &mut String, line: &str) {
    if label.lines().any(|l| l == line) {
        return;
    }
    if !label.is_empty() {
        label.push('\n');
    }
    label.push_str(line);
}

/// The arrows and markers of a step's events: moves (9.1), retreats
/// (13.2) and advances (12.23 step 9) as arrows in the army's colour
/// (`army_of` gives a unit's army); fire (10.3, 11.3, Savannah 4.12), close
/// combats (12.23), retreats' ends, step losses, eliminations and captures
/// as markers whose tooltips are the events' texts.
pub fn overlay<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    army_of: &dyn Fn(&str) -> Option<String>,
) -> (Vec<Arrow>, Vec<Marker>) {
    let mut out = Overlay::default();
    let army = |unit: Option<&str>| unit.and_then(army_of).unwrap_or_default();
    // Where each fired-at unit was, for its damage roll; the hexes of the
    // close combat being resolved, for its rolls and results.
    let mut fired_at: BTreeMap<String, HexId> = BTreeMap::new();
    let mut combat: Vec<HexId> = Vec::new();
    for e in events {
        let f = |key: &str| e.fields.get(key);
        match e.kind.as_str() {
            "move" | "retreat" => {
                let mut path: Vec<HexId> = hex(f("from")).into_iter().collect();
                path.extend(hexes(f("path")));
                if let Some(to) = hex(f("to")) {
                    if path.last() != Some(&to) {
                        path.push(to);
                    }
                }
                out.arrow(path, army(text(f("unit"))), &e.text);
                if e.kind == "retreat" {
                    if let Some(to) = hex(f("to")) {
                        out.marker(to, MarkerKind::Retreat, &e.text);
                    }
                }
            }
            "advance" => {
                let Some(to) = hex(f("hex")) else { continue };
                let from = f("from").and_then(Value::as_object);
                for (unit, at) in from.into_iter().flatten() {
                    if let Some(at) = hex(Some(at)) {
                        out.arrow(vec![at, to], army(Some(unit)), &e.text);
                    }
                }
            }
            "to-hit" => {
                let Some(at) = hex(f("hex")) else { continue };
                if let Some(target) = text(f("target")) {
                    fired_at.insert(target.to_string(), at);
                }
                out.marker(at, MarkerKind::Fire, &e.text);
            }
            "damage" => {
                if let Some(at) = text(f("target")).and_then(|t| fired_at.get(t)) {
                    out.marker(*at, MarkerKind::Fire, &e.text);
                }
            }
            "scatter" => {
                if let Some(lands) = hex(f("lands")) {
                    out.marker(lands, MarkerKind::Fire, &e.text);
                }
            }
            "close-combat" => {
                combat = hexes(f("defending_hexes"));
                for h in &combat {
                    out.marker(*h, MarkerKind::CloseCombat, &e.text);
                }
            }
            "odds" | "close-combat-roll" | "combat-result" => {
                for h in &combat {
                    out.marker(*h, MarkerKind::CloseCombat, &e.text);
                }
            }
            "step-loss" => {
                let Some(at) = hex(f("hex")) else { continue };
                let gone = f("eliminated").and_then(Value::as_bool).unwrap_or(false);
                out.marker(at, if gone { MarkerKind::Eliminated } else { MarkerKind::StepLoss }, &e.text);
            }
            "captured" | "leader-captured" | "shattered-captured" => {
                if let Some(at) = hex(f("hex")) {
                    out.marker(at, MarkerKind::Captured, &e.text);
                }
            }
            _ => {}
        }
    }
    (out.arrows, out.markers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> HexId {
        s.parse().unwrap()
    }

    fn army(unit: &str) -> Option<String> {
        match unit {
            "grenadiers" | "dillon" => Some("french".into()),
            "highlanders" => Some("british".into()),
            _ => None,
        }
    }

    fn events() -> Vec<Event> {
        vec![
            Event::new("9.1", "move", "Grenadiers moves 1507 → 1508 → 1608")
                .with("unit", "grenadiers")
                .with("from", "1507")
                .with("to", "1608")
                .with("path", ["1508", "1608"]),
            Event::new("9.1", "move", "Dillon (in a stack with Grenadiers) moves 1507 → 1508 → 1608")
                .with("unit", "dillon")
                .with("from", "1507")
                .with("to", "1608")
                .with("path", ["1508", "1608"]),
            Event::new("11.3", "to-hit", "guns fire at highlanders in 1709: hit")
                .with("target", "highlanders")
                .with("hex", "1709"),
            Event::new("11.3", "damage", "damage roll 5: R").with("target", "highlanders"),
            Event::new("12.23", "close-combat", "cc-1: grenadiers attack highlanders")
                .with("defending_hexes", ["1709"]),
            Event::new("12.23", "close-combat-roll", "roll 4 +1 = 5 on 1:1: attacker -, defender R"),
            Event::new("13.2", "retreat", "Highlanders retreats 2 hexes from 1709 to 1911")
                .with("unit", "highlanders")
                .with("from", "1709")
                .with("path", ["1810", "1911"])
                .with("to", "1911"),
            Event::new("12.23", "advance", "grenadiers advance into 1709")
                .with("units", ["grenadiers"])
                .with("hex", "1709")
                .with("from", BTreeMap::from([("grenadiers", "1608")])),
            Event::new("13.1", "step-loss", "Dillon loses 1 step: eliminated")
                .with("hex", "1608")
                .with("eliminated", true),
            Event::new("13.1", "step-loss", "Highlanders loses 1 step: reduced")
                .with("hex", "1911")
                .with("eliminated", false),
            Event::new("12.3", "captured", "a gun is captured").with("hex", "1911"),
            Event::new("11.3", "to-hit", "an old event, without its hex").with("target", "highlanders"),
            Event::new("15.2", "rally", "nothing to draw").with("unit", "dillon").with("hex", "1608"),
        ]
    }

    #[test]
    fn arrows_follow_moves_retreats_and_advances() {
        let (arrows, _) = overlay(&events(), &army);
        let got: Vec<(Vec<HexId>, &str)> = arrows.iter().map(|a| (a.path.clone(), a.army.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (vec![h("1507"), h("1508"), h("1608")], "french"),
                (vec![h("1709"), h("1810"), h("1911")], "british"),
                (vec![h("1608"), h("1709")], "french"),
            ]
        );
        // The stack's two moves are one arrow, both explained.
        let label = arrows[0].label.as_deref().unwrap();
        assert!(label.contains("Grenadiers moves") && label.contains("Dillon (in a stack"), "{label}");
    }

    #[test]
    fn markers_say_what_happened_where() {
        let (_, markers) = overlay(&events(), &army);
        let got: Vec<(HexId, MarkerKind)> = markers.iter().map(|m| (m.hex, m.kind)).collect();
        assert_eq!(
            got,
            vec![
                (h("1709"), MarkerKind::Fire),
                (h("1709"), MarkerKind::CloseCombat),
                (h("1911"), MarkerKind::Retreat),
                (h("1608"), MarkerKind::Eliminated),
                (h("1911"), MarkerKind::StepLoss),
                (h("1911"), MarkerKind::Captured),
            ]
        );
        assert_eq!(markers[0].label, "guns fire at highlanders in 1709: hit\ndamage roll 5: R");
        assert!(markers[1].label.ends_with("defender R"), "{}", markers[1].label);
    }

    #[test]
    fn a_unit_of_no_known_army_still_gets_its_arrow() {
        let e = Event::new("9.1", "move", "x moves")
            .with("unit", "stranger")
            .with("from", "0101")
            .with("to", "0102")
            .with("path", ["0102"]);
        let (arrows, markers) = overlay(&[e], &army);
        assert_eq!(arrows.len(), 1);
        assert_eq!(arrows[0].army, "");
        assert!(markers.is_empty());
    }
}
