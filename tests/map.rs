//! `adjutant map`: the SVG is well-formed, rasterises, is the same bytes
//! every time, and shows what a player looks for.

mod common;
use common::*;

use std::fs;

fn rasterise(svg: &str) -> Vec<u8> {
    adjutant::report::map::png::render_png(svg).unwrap_or_else(|e| panic!("the SVG does not rasterise: {e}"))
}

#[test]
fn both_scenarios_render_and_rasterise() {
    let dir = temp();
    for scenario in ["historical", "campaign"] {
        let file = format!("{scenario}.svg");
        run(dir.path(), &["map", "savannah-1779", "--scenario", scenario, "--output", &file]).ok();
        let svg = fs::read_to_string(dir.path().join(&file)).unwrap();
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        let png = rasterise(&svg);
        assert_eq!(&png[1..4], b"PNG");
        // What a player looks for is on it: the city, the redoubt, the swamp, each army.
        for name in ["City of Savannah", "Spring Hill Redoubt", "Yamacraw Swamp", "Jewish Cemetery", ">1404<"] {
            assert!(svg.contains(name), "{scenario}: no {name}");
        }
        // Savannah 4.4: "the printed siege works hexsides are used in the
        // Historical Scenario"; the Campaign Game builds its own.
        let printed = svg.matches(": siege-works</title>").count();
        if scenario == "historical" {
            assert!(printed > 5, "historical: only {printed} printed siege works hexsides drawn");
        } else {
            assert_eq!(printed, 0, "campaign: the Historical Scenario's printed siege works are drawn");
        }
        let stacks = svg.matches(r#"<g class="stack">"#).count();
        let least = if scenario == "historical" { 40 } else { 8 };
        assert!(stacks >= least, "{scenario}: only {stacks} stacks drawn");
        // Counter colours of the three armies (Savannah 1.1: tan, light turquoise, sky blue).
        if scenario == "historical" {
            for fill in ["#d9c29a", "#b4e6e2", "#9ccbf0"] {
                assert!(
                    svg.contains(&format!(r##"fill="{fill}" stroke="#222""##)),
                    "{scenario}: no counter coloured {fill}"
                );
            }
        }
        // The same input gives the same bytes.
        let again = run(dir.path(), &["map", "savannah-1779", "--scenario", scenario]).ok();
        assert_eq!(again, svg, "{scenario}: output differs between runs");
    }
}

#[test]
fn png_region_and_highlight() {
    let dir = temp();
    let out =
        run(dir.path(), &["map", "--region", "1001:2208", "--highlight", "1404,1303", "--png", "--output", "west.png"])
            .ok();
    assert!(out.starts_with("wrote west.png"), "{out}");
    let png = fs::read(dir.path().join("west.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = run(dir.path(), &["map", "--region", "1001:2208", "--highlight", "1404"]).ok();
    assert!(svg.contains(r#"<g id="highlight""#));
    assert!(svg.contains(">1404<") && !svg.contains(">3123<"), "the region is not cropped");
    let whole = run(dir.path(), &["map"]).ok();
    assert!(whole.len() > svg.len() * 2);
}

#[test]
fn bad_map_requests_get_one_line() {
    let dir = temp();
    let cases: &[(&[&str], &str)] = &[
        (&["map", "--highlight", "9999"], "not on the map"),
        (&["map", "--highlight", "14x4"], "'14x4'"),
        (&["map", "--region", "1001"], "two corner hexes"),
        (&["map", "--scenario", "brandywine"], "historical, campaign"),
        (&["map", "chess"], "chess"),
        (&["map", "--png"], "--output"),
    ];
    for (args, needle) in cases {
        let stderr = run(dir.path(), args).fails(2);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

/// A report's map of the Campaign Game (the system's picture, as every
/// dispatch draws it): the game's siege works from the state (a marker,
/// a completed work, its breach), a breached fieldwork and a destroyed
/// city hex over a board without the printed works, with a legend of what
/// is drawn; with none, no works layer and no legend.
#[test]
fn the_campaign_map_draws_the_games_works_with_a_legend() {
    use adjutant::systems::gboar::board::state::{SiegeWork, State};
    let system = adjutant::game::modules::system_of("savannah-1779").unwrap();
    let files = adjutant::game::modules::ModuleFiles::embedded("savannah-1779");
    let rules = system.load(&files, "campaign").unwrap();
    let setup = rules.setup().unwrap();
    let draw = |state: &State| {
        let picture = rules.map(state, &[]).expect("Savannah has a map");
        adjutant::report::map::svg::picture(picture, "turn 12".into())
    };
    let mut state: State = setup.as_any().downcast_ref::<State>().unwrap().clone();
    let bare = draw(&state);
    assert!(!bare.contains(r#"<g id="works""#) && !bare.contains(r#"<g id="legend""#), "nothing built, nothing drawn");
    assert_eq!(bare.matches(": siege-works</title>").count(), 0, "the printed works are the Historical Scenario's");
    let work = |hex: &str, toward: &[&str], completed: bool, breached: &[&str]| SiegeWork {
        hex: hex.into(),
        toward: toward.iter().map(|s| s.to_string()).collect(),
        placed: 9,
        completed,
        breached: breached.iter().map(|s| s.to_string()).collect(),
    };
    state.siege_works = vec![work("2208", &["2308", "2309"], true, &["2308"]), work("2107", &[], false, &[])];
    state.breaches = vec!["1805/1806".into()];
    state.destroyed_hexes = vec!["1703".into()];
    let svg = draw(&state);
    assert_eq!(svg, draw(&state), "the same state gives the same bytes");
    let works = &svg[svg.find(r#"<g id="works""#).expect("a works layer")..];
    let works = &works[..works.find("<g id=\"counters\"").unwrap_or(works.len())];
    for title in [
        "2208/2308: siege works",
        "2208/2309: siege works",
        "2208/2308: breached",
        "1805/1806: breached",
        "2107: siege works under construction",
        "1703: destroyed city hex",
    ] {
        assert!(works.contains(&format!("<title>{title}</title>")), "no {title} on the map");
    }
    let legend = &svg[svg.find(r#"<g id="legend""#).expect("a legend")..];
    for words in ["siege works<", "siege works under construction<", "breached hexside<", "destroyed city hex<"] {
        assert!(legend.contains(words), "the legend lacks {words}");
    }
    // Under the counters: the works layer comes before them.
    assert!(svg.find(r#"<g id="works""#) < svg.find(r#"<g id="counters""#));
    assert_eq!(&rasterise(&svg)[1..4], b"PNG");
}
