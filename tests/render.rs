//! Maps and pages are checked by rendering them in headless Chromium: the
//! screenshot must be the size asked for and must not be blank. These tests
//! fail, not skip, without Chromium (`apt-get install chromium`).

mod common;
use common::browser;
use common::*;

use std::fs;

use adjutant::report::map::svg::{self, Options};
use adjutant::system::Event;
use adjutant::systems::gboar::data::{Module, Source};
use adjutant::systems::gboar::overlay::overlay;

/// A step of the Historical Scenario as events: two moves, fire, a close
/// combat, a retreat, an elimination.
fn step_events() -> Vec<Event> {
    let moved = |unit: &str, path: &[&str]| {
        Event::new("9.1", "move", format!("{unit} moves {}", path.join(" → ")))
            .with("unit", unit)
            .with("from", path[0])
            .with("to", path[path.len() - 1])
            .with("path", &path[1..])
    };
    vec![
        moved("dillon-irish", &["1910", "1909", "1908", "1907"]),
        moved("1-sc", &["1409", "1408", "1407", "1406"]),
        Event::new("11.3", "to-hit", "guns fire at 2-ga-militia in 1905: hit")
            .with("target", "2-ga-militia")
            .with("hex", "1905"),
        Event::new("12.23", "close-combat", "1-sc attacks maitland's stack in 1405").with("defending_hexes", ["1405"]),
        Event::new("13.2", "retreat", "2-ga-militia retreats from 1905 to 2004")
            .with("unit", "2-ga-militia")
            .with("from", "1905")
            .with("path", ["2004"])
            .with("to", "2004"),
        Event::new("13.1", "step-loss", "1-ga-militia is eliminated").with("hex", "1904").with("eliminated", true),
    ]
}

/// The Historical Scenario's set-up with the step drawn on it.
fn step_map() -> String {
    let module = Module::load(&Source::Embedded("savannah-1779".into())).unwrap();
    let counters = module.setup_counters("historical").unwrap();
    let army_of = |unit: &str| module.counters.iter().find(|c| c.id == unit).map(|c| c.army.clone());
    let (arrows, markers) = overlay(&step_events(), &army_of);
    assert_eq!((arrows.len(), markers.len()), (3, 4));
    assert!(arrows.iter().all(|a| !a.army.is_empty()), "every unit's army is known");
    let options = Options { title: Some("Savannah 1779: a step".into()), arrows, markers, ..Options::default() };
    svg::render(&module.map, &counters, &options)
}

/// The `width` and `height` an SVG document declares.
fn declared_size(svg: &str) -> (u32, u32) {
    let attr = |name: &str| -> u32 {
        let start = svg.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        svg[start..start + svg[start..].find('"').unwrap()].parse().unwrap()
    };
    (attr("width"), attr("height"))
}

#[test]
fn the_step_map_renders_in_chromium() {
    let dir = temp();
    let svg = step_map();
    let file = dir.path().join("step.svg");
    fs::write(&file, &svg).unwrap();
    let (width, height) = declared_size(&svg);
    assert!(width > 1000 && height > 1000, "the whole map: {width}×{height}");
    let png = browser::screenshot(&file, width, height);
    assert_eq!(browser::size(&png), (width, height), "the screenshot is the size asked for");
    let (colours, drawn) = browser::not_blank(&png);
    assert!(colours > 200, "only {colours} colours: is the map drawn?");
    assert!(drawn > 0.4, "only {:.0}% of the pixels are not background", drawn * 100.0);
}

#[test]
fn a_page_with_the_map_inline_renders_in_chromium() {
    let dir = temp();
    let svg = step_map();
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Turn 16</title>\
         <style>body {{ font-family: sans-serif; margin: 16px; }} svg {{ max-width: 100%; height: auto; }}</style>\
         </head><body><h1>Turn 16: the French assault</h1><p>The map of the step's end.</p>\n{svg}</body></html>\n"
    );
    let file = dir.path().join("report.html");
    fs::write(&file, page).unwrap();
    let png = browser::screenshot(&file, 1000, 900);
    assert_eq!(browser::size(&png), (1000, 900));
    let (colours, drawn) = browser::not_blank(&png);
    assert!(colours > 100, "only {colours} colours: is the map on the page?");
    assert!(drawn > 0.3, "only {:.0}% of the page is not background", drawn * 100.0);
}

#[test]
fn a_blank_page_is_seen_as_blank() {
    let dir = temp();
    let file = dir.path().join("blank.html");
    fs::write(&file, "<!DOCTYPE html><html><body></body></html>\n").unwrap();
    let (colours, drawn) = browser::not_blank(&browser::screenshot(&file, 320, 200));
    assert_eq!((colours, drawn), (1, 0.0));
}
