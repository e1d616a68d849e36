//! The model's secrets (cards in hand, `visible_to`) and the formats'
//! escaping, on a made-up step of the Savannah Historical Scenario.

use super::*;
use crate::base::dice::{Bytes32, Die, Roll};
use crate::game::folder::{DiceConfig, DiceMode, FolderKind, Player};
use crate::game::journal::OrdersRecord;
use crate::system::{Event, Standing};

fn game() -> GameConfig {
    GameConfig {
        adjutant: 1,
        game_id: "unit-1".into(),
        kind: FolderKind::Game,
        module: Some("savannah-1779".into()),
        scenario: Some("historical".into()),
        players: vec![Player { side: "british".into(), name: "Ann".into(), email: Some("ann@example.org".into()) }],
        dice: DiceConfig {
            protocol: 1,
            mode: DiceMode::Referee,
            chain_length: 16,
            anchor: Bytes32([0xaa; 32]),
            players: Vec::new(),
        },
        module_folder: None,
        mail: None,
        senders: None,
        deadlines: None,
        player_changes: Vec::new(),
        published: false,
    }
}

/// Where a made-up game stands, as a system gives it to reports.
fn standing() -> Standing {
    let mut standing = Standing { turn: 16, resolved_steps: 3, ..Standing::default() };
    standing.army_morale.insert("british".into(), 12);
    standing.momentum.insert("allies".into(), 1);
    standing.cards.insert("allies".into(), vec!["card-allied-fleet".into()]);
    standing.cards.insert("british".into(), vec!["card-british-sortie".into(), "card-british-spy".into()]);
    standing.vp_halves.insert("british".into(), 7);
    standing.vp_halves.insert("french".into(), 1);
    standing.board = vec![
        "siege works: 2208 (toward 2308, 2309), completed, breached toward 2308".into(),
        "destroyed city hexes: 1703".into(),
    ];
    standing
}

/// Savannah 4.4-4.6: the standing's board (siege works, breaches,
/// destroyed city hexes) is in every format, for every viewer; a JSON
/// report of a game with nothing of the kind has no `board`.
#[test]
fn every_report_shows_what_stands_on_the_board() {
    for viewer in [Viewer::Referee, Viewer::Side("british".into()), Viewer::Side("french".into())] {
        for (format, out) in all_formats(viewer.clone()) {
            for line in ["2208 (toward 2308, 2309), completed, breached toward 2308", "destroyed city hexes: 1703"] {
                assert!(out.contains(line), "{format}: no {line}\n{out}");
            }
            if format == Format::Json {
                let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                assert_eq!(v["standing"]["board"].as_array().map(Vec::len), Some(2), "{out}");
            }
        }
    }
    let (game, entries) = (game(), vec![entry()]);
    let input = ReportInput {
        game: &game,
        viewer: Viewer::Referee,
        entries: &entries,
        standing: Standing { turn: 16, ..Standing::default() },
        awaiting: Vec::new(),
        next_step: None,
        map_svg: None,
        map_file: None,
        players_of_sides: players(),
        positions: Vec::new(),
        routine: &[],
    };
    let templates = load_templates(None).unwrap();
    let json = render(&input, Format::Json, &templates).unwrap();
    assert!(!json.contains("\"board\""), "{json}");
}

fn entry() -> JournalEntry {
    JournalEntry {
        step: 3,
        previous: Some(Bytes32([0x11; 32])),
        orders: vec![OrdersRecord {
            side: "british".into(),
            sha256: Bytes32([0x22; 32]),
            text: None,
            file: Some("orders/000003-british.yaml".into()),
            default: false,
            trimmed: Vec::new(),
        }],
        orders_digest: Bytes32([0x33; 32]),
        key: Bytes32([0x44; 32]),
        seed: Bytes32([0x55; 32]),
        commitments: vec![],
        rolling_step: None,
        player_keys: vec![],
        dice: vec![],
        rolls: vec![Roll { index: 0, die: Die::D10, value: 7, purpose: "weather <roll> | fog".into() }],
        game_step: Some("16-british-rally".into()),
        correction: None,
        forfeit: None,
        events: vec![
            Event::new("15.2", "rally", "public: <script>alert(1)</script> rallies"),
            Event::new("4.3", "card", "SECRET-BRITISH-PLAN drawn").with("visible_to", ["british"]),
            Event::new("4.3", "card", "SECRET-ALLIED-PLAN drawn").with("visible_to", ["allies"]),
            Event::new("4.3", "card", "MALFORMED-MARK drawn").with("visible_to", "british"),
            Event::new("10.1", "fire", "a shot")
                .with("target", "dillon-irish")
                .with("hidden_odds", "HIDDEN-ODDS-FOR-FRENCH")
                .with("fields_visible_to", serde_json::json!({"hidden_odds": ["french"]})),
        ],
        state_sha256: Some(Bytes32([0x66; 32])),
        players_sha256: None,
    }
}

fn players() -> BTreeMap<String, String> {
    [("french", "allies"), ("american", "allies"), ("british", "british")]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn all_formats(viewer: Viewer) -> Vec<(Format, String)> {
    let (game, standing, entries) = (game(), standing(), vec![entry()]);
    let input = ReportInput {
        game: &game,
        viewer,
        entries: &entries,
        standing: standing.clone(),
        awaiting: vec!["french".into(), "american".into()],
        next_step: Some("16-allies-movement".into()),
        map_svg: Some(
            "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>1404</text></svg>\n".into(),
        ),
        map_file: None,
        players_of_sides: players(),
        positions: Vec::new(),
        routine: &[],
    };
    let templates = load_templates(None).unwrap();
    Format::ALL.iter().map(|&f| (f, render(&input, f, &templates).unwrap_or_else(|e| panic!("{f}: {e}")))).collect()
}

#[test]
fn a_side_sees_its_own_cards_only_and_the_referee_all() {
    for (format, out) in all_formats(Viewer::Side("french".into())) {
        assert!(out.contains("card-allied-fleet"), "{format}: the Allies' hand is the French player's own\n{out}");
        assert!(!out.contains("card-british"), "{format}: a British card in the French report\n{out}");
    }
    for (format, out) in all_formats(Viewer::Side("british".into())) {
        assert!(out.contains("card-british-sortie") && out.contains("card-british-spy"), "{format}\n{out}");
        assert!(!out.contains("card-allied-fleet"), "{format}: an Allied card in the British report\n{out}");
    }
    for (format, out) in all_formats(Viewer::Referee) {
        for card in ["card-allied-fleet", "card-british-sortie", "card-british-spy"] {
            assert!(out.contains(card), "{format}: the referee misses {card}\n{out}");
        }
    }
}

/// Savannah 4.3: the other player's hand is secret, its size is not.
#[test]
fn a_side_sees_the_size_of_the_other_hand() {
    let json_sizes = |out: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(out).unwrap()["standing"]["hand_sizes"].clone()
    };
    for (viewer, words, other) in
        [("french", "2 cards (not shown)", "british"), ("british", "1 card (not shown)", "allies")]
    {
        for (format, out) in all_formats(Viewer::Side(viewer.into())) {
            if format == Format::Json {
                let sizes = json_sizes(&out);
                assert_eq!(sizes, serde_json::json!({"allies": 1, "british": 2}), "{viewer}: {out}");
                assert!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["standing"]["cards"][other].is_null());
            } else {
                assert!(out.contains(words), "{format}: {viewer} sees the size of the {other} hand\n{out}");
            }
        }
    }
    for (format, out) in all_formats(Viewer::Referee) {
        assert!(!out.contains("(not shown)"), "{format}: the referee sees every hand\n{out}");
    }
}

#[test]
fn without_players_a_side_sees_only_cards_under_its_own_name() {
    let (game, standing, entries) = (game(), standing(), vec![entry()]);
    let input = ReportInput {
        game: &game,
        viewer: Viewer::Side("french".into()),
        entries: &entries,
        standing: standing.clone(),
        awaiting: vec![],
        next_step: None,
        map_svg: None,
        map_file: None,
        players_of_sides: BTreeMap::new(),
        positions: Vec::new(),
        routine: &[],
    };
    assert!(model(&input).standing.cards.is_empty());
}

#[test]
fn events_visible_to_other_sides_are_left_out() {
    for (format, out) in all_formats(Viewer::Side("french".into())) {
        assert!(out.contains("SECRET-ALLIED-PLAN"), "{format}: the French player is one of the Allies\n{out}");
        assert!(!out.contains("SECRET-BRITISH-PLAN"), "{format}\n{out}");
        assert!(!out.contains("MALFORMED-MARK"), "{format}: a malformed mark must hide the event\n{out}");
        assert!(out.contains("a shot"), "{format}\n{out}");
    }
    for (format, out) in all_formats(Viewer::Side("british".into())) {
        assert!(out.contains("SECRET-BRITISH-PLAN"), "{format}\n{out}");
        assert!(!out.contains("SECRET-ALLIED-PLAN"), "{format}\n{out}");
        assert!(!out.contains("MALFORMED-MARK"), "{format}\n{out}");
    }
    for (format, out) in all_formats(Viewer::Referee) {
        for text in ["SECRET-BRITISH-PLAN", "SECRET-ALLIED-PLAN", "MALFORMED-MARK"] {
            assert!(out.contains(text), "{format}: the referee misses {text}\n{out}");
        }
    }
}

#[test]
fn fields_visible_to_other_sides_are_left_out() {
    let (game, standing, entries) = (game(), standing(), vec![entry()]);
    let input = |viewer| ReportInput {
        game: &game,
        viewer,
        entries: &entries,
        standing: standing.clone(),
        awaiting: vec![],
        next_step: None,
        map_svg: None,
        map_file: None,
        players_of_sides: players(),
        positions: Vec::new(),
        routine: &[],
    };
    let shot = |m: &ReportModel| m.steps[0].events.iter().find(|e| e.kind == "fire").unwrap().clone();
    let british = shot(&model(&input(Viewer::Side("british".into()))));
    assert_eq!(british.fields.get("target"), Some(&serde_json::json!("dillon-irish")));
    assert!(!british.fields.contains_key("hidden_odds"));
    assert!(british.fields_visible_to.is_empty());
    let french = shot(&model(&input(Viewer::Side("french".into()))));
    assert_eq!(french.fields.get("hidden_odds"), Some(&serde_json::json!("HIDDEN-ODDS-FOR-FRENCH")));
    assert_eq!(french.fields_visible_to.get("hidden_odds"), Some(&vec!["french".to_string()]));
    // The marks themselves are lifted out of the fields.
    assert!(!french.fields.contains_key("fields_visible_to"));
    let m = model(&input(Viewer::Referee));
    let secret = m.steps[0].events.iter().find(|e| e.text.starts_with("SECRET-BRITISH")).unwrap();
    assert_eq!(secret.visible_to, Some(vec!["british".to_string()]));
    assert!(!secret.fields.contains_key("visible_to"));
    let json = all_formats(Viewer::Side("british".into())).into_iter().find(|(f, _)| *f == Format::Json).unwrap().1;
    assert!(!json.contains("HIDDEN-ODDS-FOR-FRENCH"), "{json}");
}

#[test]
fn html_escapes_everything_but_the_map() {
    let html = all_formats(Viewer::Referee).into_iter().find(|(f, _)| *f == Format::Html).unwrap().1;
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"), "{html}");
    assert!(html.contains("weather &lt;roll&gt; | fog"), "{html}");
    // The map is inline, without its XML declaration.
    assert!(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>1404</text></svg>"), "{html}");
    assert!(!html.contains("<?xml"), "{html}");
}

#[test]
fn markdown_escapes_table_cells() {
    let md = all_formats(Viewer::Referee).into_iter().find(|(f, _)| *f == Format::Markdown).unwrap().1;
    assert!(md.contains(r"| 0 | d10 | 7 | weather \<roll\> \| fog |"), "{md}");
}

#[test]
fn victory_points_are_shown_in_halves() {
    assert_eq!(halves_text(0), "0");
    assert_eq!(halves_text(1), "½");
    assert_eq!(halves_text(7), "3½");
    assert_eq!(halves_text(8), "4");
    assert_eq!(halves_text(-3), "-1½");
    for (format, out) in all_formats(Viewer::Referee) {
        if format != Format::Json {
            assert!(out.contains("3½"), "{format}\n{out}");
        }
    }
}

#[test]
fn player_addresses_are_not_in_reports() {
    for (format, out) in all_formats(Viewer::Referee) {
        assert!(out.contains("Ann") || format != Format::Json, "{format}");
        assert!(!out.contains("ann@example.org"), "{format}\n{out}");
    }
}

#[test]
fn a_map_that_is_not_svg_is_refused() {
    assert_eq!(inline_svg("<svg a=\"1\"></svg>").unwrap(), "<svg a=\"1\"></svg>");
    assert!(inline_svg("<script>x</script>").is_err());
    assert!(inline_svg("<svg><script>").is_err());
}

#[test]
fn formats_read_their_names() {
    assert_eq!("md".parse::<Format>().unwrap(), Format::Markdown);
    assert_eq!("html".parse::<Format>().unwrap(), Format::Html);
    let err = "pdf".parse::<Format>().unwrap_err();
    assert!(err.to_string().contains("choose text, markdown, html or json"), "{err}");
    for f in Format::ALL {
        assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
    }
}
