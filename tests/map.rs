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
