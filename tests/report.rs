//! Issue 6: every step's report, per side, in four formats. A real game of
//! the Savannah Historical Scenario is played through the binary (turn 16:
//! the Allied movement, the French mortar's fire, the Allied close combat,
//! with known dice), and its journal is reported for each side and the
//! referee in text, Markdown, HTML and JSON.

mod common;
use common::*;

use std::collections::BTreeMap;
use std::fs;
use std::sync::OnceLock;

use adjutant::game::folder::{GameConfig, GameFolder};
use adjutant::game::journal::JournalEntry;
use adjutant::report::{self, load_templates, Format, ReportInput, ReportModel, Viewer};
use adjutant::system::Standing;

/// The known chain top of `known_dice`: it must never be in a report.
const CHAIN_TOP: &str = "1111111111111111111111111111111111111111111111111111111111111111";

/// What a report is made of, read back from a game folder.
#[derive(Clone)]
struct Game {
    config: GameConfig,
    entries: Vec<JournalEntry>,
    standing: Standing,
    awaiting: Vec<String>,
    next_step: Option<String>,
    players: BTreeMap<String, String>,
    svg: String,
    /// The table of positions by viewer: a side's id, "" for the referee.
    positions: BTreeMap<String, Vec<adjutant::system::Position>>,
    routine: &'static [&'static str],
}

impl Game {
    fn input(&self, viewer: Viewer) -> ReportInput<'_> {
        let positions = self.positions[match &viewer {
            Viewer::Side(side) => side.as_str(),
            Viewer::Referee => "",
        }]
        .clone();
        ReportInput {
            game: &self.config,
            viewer,
            entries: &self.entries,
            standing: self.standing.clone(),
            awaiting: self.awaiting.clone(),
            next_step: self.next_step.clone(),
            map_svg: Some(self.svg.clone()),
            map_file: None,
            players_of_sides: self.players.clone(),
            positions,
            routine: self.routine,
        }
    }
}

fn viewers() -> Vec<Viewer> {
    vec![
        Viewer::Side("british".into()),
        Viewer::Side("french".into()),
        Viewer::Side("american".into()),
        Viewer::Referee,
    ]
}

/// Turn 16's first steps of the Historical Scenario, resolved by three
/// `adjutant resolve` calls.
fn played() -> Game {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let g = d.join("g");
    known_dice(&g);
    play_turn_16_opening(d);
    let svg = run(d, &["map", "savannah-1779", "--scenario", "historical", "--region", "1801:2008"]).ok();

    let folder = GameFolder::open(&g).unwrap();
    let listing = folder.journal().list().unwrap();
    let entries: Vec<JournalEntry> = listing
        .entries
        .iter()
        .map(|e| adjutant::base::yaml::from_str(&fs::read_to_string(&e.path).unwrap()).unwrap())
        .collect();
    let state = adjutant::game::load_state(&folder).unwrap();
    let rules = adjutant::game::load_rules(&folder).unwrap();
    let step = state.next_step().expect("the game goes on after turn 16's close combat");
    let awaiting = rules.awaited(state.as_ref());
    Game {
        config: folder.config.clone(),
        entries,
        next_step: Some(step.name),
        awaiting,
        players: rules.players_of_sides(),
        standing: rules.standing(state.as_ref()),
        svg,
        positions: viewers()
            .into_iter()
            .map(|v| match v {
                Viewer::Side(side) => (side.clone(), rules.positions(state.as_ref(), Some(&side))),
                Viewer::Referee => (String::new(), rules.positions(state.as_ref(), None)),
            })
            .collect(),
        routine: rules.routine_events(),
    }
}

/// The game, played once for all the tests.
fn game() -> Game {
    static GAME: OnceLock<Game> = OnceLock::new();
    GAME.get_or_init(played).clone()
}

/// Every report of the game: each viewer, each format, default templates.
fn reports(game: &Game) -> Vec<(Viewer, Format, String)> {
    let templates = load_templates(None).unwrap();
    let mut out = Vec::new();
    for viewer in viewers() {
        for format in Format::ALL {
            let text = report::render(&game.input(viewer.clone()), format, &templates)
                .unwrap_or_else(|e| panic!("{viewer:?} {format}: {e}"));
            out.push((viewer.clone(), format, text));
        }
    }
    out
}

/// minijinja's HTML escaping.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
        .replace('/', "&#x2f;")
}

/// The `md` filter's escaping.
fn md(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\|*_`<>[]&#".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The part of a report about journal step `n`: from its heading to the next.
fn section(format: Format, report: &str, n: u32) -> String {
    let marker = |k: u32| match format {
        Format::Text => format!("== Step {k}:"),
        Format::Markdown => format!("## Step {k}:"),
        Format::Html => format!("<section class=\"step\" id=\"step-{k}\">"),
        Format::Json => unreachable!(),
    };
    let start = report.find(&marker(n)).unwrap_or_else(|| panic!("{format}: no step {n}\n{report}"));
    let rest = &report[start..];
    let end = [marker(n + 1), "== Standing".into(), "## Standing".into(), "<section id=\"standing\">".into()]
        .iter()
        .filter_map(|m| rest.find(m.as_str()))
        .min()
        .unwrap_or(rest.len());
    rest[..end].to_string()
}

/// `text` with every run of white space one space.
fn spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The cells of a table row: `| a | b |` (text or Markdown).
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    if !line.starts_with('|') {
        return Vec::new();
    }
    // Split on `|` not escaped by a backslash.
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut escaped = false;
    for c in line[1..].chars() {
        match c {
            '|' if !escaped => cells.push(std::mem::take(&mut cell).trim().to_string()),
            c => {
                escaped = c == '\\' && !escaped;
                cell.push(c);
            }
        }
    }
    cells
}

#[test]
fn every_roll_appears_with_its_purpose_in_every_format_for_every_viewer() {
    let game = game();
    assert!(game.entries.len() >= 3, "{} steps", game.entries.len());
    let rolls: usize = game.entries.iter().map(|e| e.rolls.len()).sum();
    assert!(rolls >= 3, "the game rolled only {rolls} dice");
    assert!(game.entries.iter().flat_map(|e| &e.rolls).any(|r| r.purpose.contains("scatter")));
    for (viewer, format, report) in reports(&game) {
        if format == Format::Json {
            let json: serde_json::Value = serde_json::from_str(&report).unwrap();
            for (i, entry) in game.entries.iter().enumerate() {
                assert_eq!(json["steps"][i]["rolls"], serde_json::to_value(&entry.rolls).unwrap(), "{viewer:?}");
            }
            continue;
        }
        for entry in &game.entries {
            let part = section(format, &report, entry.step);
            for roll in &entry.rolls {
                let (index, die, value) = (roll.index.to_string(), roll.die.to_string(), roll.value.to_string());
                let found = match format {
                    Format::Text => {
                        let want = [index, die, value, roll.purpose.clone()];
                        part.lines().any(|l| cells(l) == want)
                    }
                    Format::Markdown => {
                        let want = [index, die, value, md(&roll.purpose)];
                        part.lines().any(|l| cells(l) == want)
                    }
                    Format::Html => part.contains(&format!(
                        "<tr><td class=\"n\">{index}</td><td>{die}</td><td class=\"n\">{value}</td><td>{}</td></tr>",
                        html(&roll.purpose)
                    )),
                    Format::Json => unreachable!(),
                };
                assert!(found, "{viewer:?} {format}: step {} lacks roll {roll:?}\n{part}", entry.step);
            }
        }
    }
}

#[test]
fn hashes_keys_and_anchor_appear_but_never_the_chain_top() {
    let game = game();
    let anchor = game.config.dice.anchor.to_hex();
    assert_ne!(anchor, CHAIN_TOP);
    let orders: usize = game.entries.iter().map(|e| e.orders.len()).sum();
    assert_eq!(orders, 7, "the set-up took one orders file, the three resolves six");
    for (viewer, format, report) in reports(&game) {
        assert!(report.contains(&anchor), "{viewer:?} {format}: no anchor");
        assert!(report.contains(&game.config.game_id), "{viewer:?} {format}");
        for entry in &game.entries {
            assert!(report.contains(&entry.key.to_hex()), "{viewer:?} {format}: no key of step {}", entry.step);
            assert!(report.contains(&entry.seed.to_hex()), "{viewer:?} {format}");
            assert!(report.contains(&entry.orders_digest.to_hex()), "{viewer:?} {format}");
            if let Some(step) = &entry.game_step {
                assert!(report.contains(step.as_str()), "{viewer:?} {format}: no {step}");
            }
            for o in &entry.orders {
                assert!(report.contains(&o.sha256.to_hex()), "{viewer:?} {format}: no hash of {o:?}");
                let file = o.file.clone().unwrap();
                let shown = if format == Format::Html { html(&file) } else { file };
                assert!(report.contains(&shown), "{viewer:?} {format}: no {shown}");
            }
            for event in &entry.events {
                let shown = match format {
                    Format::Html => html(&event.text),
                    Format::Markdown => md(&event.text),
                    Format::Json => serde_json::to_string(&event.text).unwrap(),
                    Format::Text => event.text.clone(),
                };
                // The text report wraps its lines at 78 columns: a space
                // becomes a line break and an indent.
                let found = match format {
                    Format::Text => spaced(&report).contains(&spaced(&shown)),
                    _ => report.contains(&shown),
                };
                assert!(found, "{viewer:?} {format}: no event {shown}");
            }
        }
        assert!(!report.contains(CHAIN_TOP), "{viewer:?} {format}: the chain top is in the report");
        assert!(!report.contains("example.org"), "{viewer:?} {format}: an address is in the report");
    }
}

#[test]
fn json_is_the_versioned_model() {
    let game = game();
    let templates = load_templates(None).unwrap();
    for viewer in viewers() {
        let input = game.input(viewer.clone());
        let text = report::render(&input, Format::Json, &templates).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["report_version"], 1);
        assert_eq!(json["game_id"], "club-7");
        assert_eq!(json["dice"]["anchor"], game.config.dice.anchor.to_hex());
        assert_eq!(json["dice"]["chain_length"], 4096);
        assert_eq!(json["steps"].as_array().unwrap().len(), game.entries.len());
        assert_eq!(json["standing"]["turn"], game.standing.turn);
        assert_eq!(json["standing"]["next_step"], serde_json::json!(game.next_step));
        assert_eq!(json["standing"]["awaiting"], serde_json::json!(game.awaiting));
        let back: ReportModel = serde_json::from_str(&text).unwrap();
        assert_eq!(back, report::model(&input), "{viewer:?}: the JSON is the model");
    }
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let game = game();
    let first = reports(&game);
    let second = reports(&game);
    assert_eq!(first.len(), 16);
    for ((v, f, a), (_, _, b)) in first.iter().zip(&second) {
        assert_eq!(a, b, "{v:?} {f}: two renders differ");
    }
    // Each viewer's report is its own.
    let texts: Vec<&String> = first.iter().filter(|(_, f, _)| *f == Format::Text).map(|(_, _, t)| t).collect();
    assert!(texts[0].contains("Report for british") && texts[3].contains("Referee's report"));
}

/// Every element opened is closed, in order (void elements aside): enough
/// to catch a template that forgets a closing tag.
fn check_balanced(html: &str) {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        if rest.starts_with("<!--") {
            rest = &rest[rest.find("-->").expect("an unclosed comment") + 3..];
            continue;
        }
        let end = rest.find('>').expect("a tag without its '>'");
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') || tag.starts_with('?') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name.trim(), "<{top}> is closed by </{name}>");
            continue;
        }
        let name: String = tag.chars().take_while(|c| !c.is_whitespace() && *c != '/').collect();
        if tag.ends_with('/') || VOID.contains(&name.to_ascii_lowercase().as_str()) {
            continue;
        }
        // <style> holds CSS, not tags.
        if name == "style" {
            let close = rest.find("</style>").expect("an unclosed <style>");
            rest = &rest[close + "</style>".len()..];
            continue;
        }
        stack.push(name);
    }
    assert!(stack.is_empty(), "never closed: {stack:?}");
}

#[test]
fn html_is_a_whole_page_with_the_map_inline() {
    let game = game();
    for (viewer, format, report) in reports(&game) {
        if format != Format::Html {
            continue;
        }
        assert!(report.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"), "{viewer:?}");
        assert!(report.trim_end().ends_with("</html>"), "{viewer:?}");
        assert!(report.contains("<style>"), "{viewer:?}: the CSS is inline");
        assert!(report.contains("<svg "), "{viewer:?}: no inline map");
        assert!(report.contains(">1904<"), "{viewer:?}: the map is not the one given");
        check_balanced(&report);
    }
}

#[test]
fn the_balance_check_finds_an_unclosed_tag() {
    let caught = std::panic::catch_unwind(|| check_balanced("<html><body><p>text</body></html>"));
    assert!(caught.is_err());
    check_balanced("<html><body><p>text<br></p><svg><path d=\"\"/></svg></body></html>");
}

#[test]
fn a_game_folder_template_replaces_the_default_of_its_name() {
    let game = game();
    let dir = temp();
    fs::write(dir.path().join("report.txt.j2"), "CUSTOM {{ game_id }}: {{ steps|length }} steps\n").unwrap();
    let templates = load_templates(Some(dir.path())).unwrap();
    let input = game.input(Viewer::Referee);
    let text = report::render(&input, Format::Text, &templates).unwrap();
    assert_eq!(text, format!("CUSTOM club-7: {} steps\n", game.entries.len()));
    let origin = dir.path().join("report.txt.j2").display().to_string();
    assert_eq!(templates.origin("report.txt.j2"), Some(origin.as_str()));
    // The others are still the built-in ones.
    let md = report::render(&input, Format::Markdown, &templates).unwrap();
    assert!(md.starts_with("# Referee's report: club-7"), "{md}");
}

#[test]
fn a_broken_template_is_an_error_naming_its_file_and_line() {
    let game = game();
    let input = game.input(Viewer::Side("british".into()));
    // A syntax error: found when the templates are read.
    let dir = temp();
    let path = dir.path().join("report.md.j2");
    fs::write(&path, "# {{ game_id }}\n\n{% for step in %}\n{% endfor %}\n").unwrap();
    let err = load_templates(Some(dir.path())).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:3: syntax error", path.display())), "{err}");
    assert!(err.contains("{% for step in %}"), "{err}");
    // A mistake found while rendering: a misspelt name, an unknown filter.
    for (source, line, what) in [
        ("<html>\n<body>\n{{ standing.trun + 1 }}\n</body>\n</html>\n", 3, "undefined"),
        ("line one\n{{ game_id|shout }}\n", 2, "shout"),
    ] {
        let dir = temp();
        let path = dir.path().join("report.html.j2");
        fs::write(&path, source).unwrap();
        let templates = load_templates(Some(dir.path())).unwrap();
        let err = report::render(&input, Format::Html, &templates).unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with(&format!("{}:{line}: ", path.display())), "{message}");
        assert!(message.contains(what), "{message}");
        assert_eq!(err.exit_code(), 2);
    }
}

#[test]
fn a_side_never_sees_another_sides_cards() {
    let mut game = game();
    game.standing.cards.insert("allies".into(), vec!["allied-card-x".into()]);
    game.standing.cards.insert("british".into(), vec!["british-card-y".into()]);
    let templates = load_templates(None).unwrap();
    for format in Format::ALL {
        let render = |side: &str| report::render(&game.input(Viewer::Side(side.into())), format, &templates).unwrap();
        for ally in ["french", "american"] {
            let r = render(ally);
            assert!(r.contains("allied-card-x") && !r.contains("british-card-y"), "{ally} {format}\n{r}");
        }
        let r = render("british");
        assert!(r.contains("british-card-y") && !r.contains("allied-card-x"), "british {format}\n{r}");
        let r = report::render(&game.input(Viewer::Referee), format, &templates).unwrap();
        assert!(r.contains("british-card-y") && r.contains("allied-card-x"), "referee {format}\n{r}");
    }
}

#[test]
fn an_event_visible_to_one_side_reaches_only_that_side_and_the_referee() {
    let mut game = game();
    let secret = adjutant::system::Event::new("4.3", "card", "the British draw SECRET-CARD-Z")
        .with("visible_to", ["british"])
        .with("card", "SECRET-CARD-Z");
    game.entries[0].events.push(secret);
    let templates = load_templates(None).unwrap();
    for format in Format::ALL {
        for viewer in viewers() {
            let r = report::render(&game.input(viewer.clone()), format, &templates).unwrap();
            let sees = matches!(&viewer, Viewer::Referee) || viewer == Viewer::Side("british".into());
            assert_eq!(r.contains("SECRET-CARD-Z"), sees, "{viewer:?} {format}\n{r}");
        }
    }
}

#[test]
fn reports_of_one_resolve_cover_only_its_steps() {
    let game = game();
    let last = &game.entries[game.entries.len() - 1..];
    let input = ReportInput { entries: last, ..game.input(Viewer::Referee) };
    let model = report::model(&input);
    assert_eq!(model.steps.len(), 1);
    assert_eq!(model.steps[0].journal_step, last[0].step);
    let text = report::render(&input, Format::Text, &load_templates(None).unwrap()).unwrap();
    assert!(!text.contains(&game.entries[0].key.to_hex()), "an earlier step's key in a later report");
}

/// Series 7.4 under `intelligence: hidden-stacks` (tests/modules/intel):
/// Red moves Red Horse and examines the Blue stack in 1614 by order. In the
/// dispatch, Blue's and Green's reports (every format, and their maps) show
/// the move without Red Horse; Red's show Blue Foot, examined, but never
/// Blue Horse, which it did not examine; the referee's report shows all;
/// Red's examination costs it 1 Army Morale, in every side's report.
#[test]
fn hidden_stacks_stay_hidden_from_a_side_until_it_examines_them() {
    let dir = temp();
    let d = dir.path();
    let module = repo_root().join("tests/modules/intel");
    run(
        d,
        &[
            "new",
            module.to_str().unwrap(),
            "--scenario",
            "battle",
            "--dir",
            "g",
            "--player",
            "red=R <red@example.org>",
            "--player",
            "blue=B <blue@example.org>",
            "--player",
            "green=G <green@example.org>",
        ],
    )
    .ok();
    let g = d.join("g");
    let orders = "game: g\nturn: 1\nstep: red-movement\nside: red\n\
                  moves:\n  - {unit: red-horse, to: \"0412\"}\nexamine: [\"1614\"]\n";
    fs::write(d.join("red.yaml"), orders).unwrap();
    run(&g, &["submit", "../red.yaml"]).ok();
    run(&g, &["resolve"]).ok();
    let dispatch = g.join("reports/000001-000002");
    let read = |file: &str| fs::read_to_string(dispatch.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    // Each side has its own map; there is no shared one to leak from.
    assert!(!dispatch.join("map.svg").exists());
    for side in ["blue", "green"] {
        for file in [format!("{side}.txt"), format!("{side}.md"), format!("{side}.html"), format!("{side}.json")] {
            let text = read(&file);
            for name in ["Red Horse", "red-horse"] {
                assert!(!text.contains(name), "{file} names {name}:\n{text}");
            }
            assert!(text.contains("involving hidden red units"), "{file} should say a red stack moved:\n{text}");
            assert!(text.contains("red army morale -1: 15 → 14"), "{file}: the examination's cost is public");
        }
        let map = read(&format!("{side}-map.svg"));
        assert!(!map.contains("Red Horse"), "{side}'s map draws Red Horse");
        assert!(map.contains("Blue Foot"), "{side}'s map draws its own (or its ally's) units");
        assert!(map.contains(">stack<"), "{side}'s map draws Red's stacks as blank stacks");
    }
    for file in ["red.txt", "red.md", "red.html", "red.json"] {
        let text = read(file);
        assert!(text.contains("Red Horse moves 0414"), "{file}: its own move, whole");
        assert!(text.contains("Blue Foot"), "{file}: the stack it examined");
        for name in ["Blue Horse", "blue-horse", "Blue Rifles", "blue-rifles"] {
            assert!(!text.contains(name), "{file} names {name}, which Red did not examine");
        }
    }
    let json: serde_json::Value = serde_json::from_str(&read("red.json")).unwrap();
    let examine = json["steps"][0]["events"].as_array().unwrap().iter().find(|e| e["kind"] == "examine").unwrap();
    assert_eq!(examine["fields"]["units"], serde_json::json!(["blue-foot"]));
    assert_eq!(json["standing"]["army_morale"]["red"], 14);
    let red_map = read("red-map.svg");
    assert!(red_map.contains("Blue Foot"), "Red's map shows the stack it examined");
    assert!(!red_map.contains("Blue Hors"), "Red's map hides Blue Horse");
    let referee = run(&g, &["report", "--referee", "--steps", "1-2", "--format", "json"]).ok();
    for name in ["Red Horse moves 0414", "Blue Foot", "red-horse"] {
        assert!(referee.contains(name), "the referee sees everything: {name}");
    }
    // Blue's guide to its fire names the hidden Red stack by its hex (Red
    // Elite is there), as its orders must.
    let guide = run(&g, &["template", "--side", "blue"]).ok();
    assert!(guide.contains("{guns: [blue-gun], target: \"1014\"}"), "{guide}");
    assert!(!guide.contains("red-elite") && !guide.contains("Red Elite"), "{guide}");
    // The dispatch is what the journal gives, per-side maps and all.
    run(&g, &["verify"]).ok();
    // Each side's mail carries its own map, as stored.
    // (The SVG is attached when game.yaml asks for it.)
    let mut config = fs::read_to_string(g.join("game.yaml")).unwrap();
    config += "mail:\n  from: Referee <ref@example.org>\n  transport: folder\n  folder: out\n  attachments: [svg]\n";
    fs::write(g.join("game.yaml"), config).unwrap();
    run(&g, &["mail"]).ok();
    let mut mailed = 0;
    for (path, bytes) in all_files(&g.join("out")) {
        let m = mail_parser::MessageParser::default().parse(&bytes).expect("a mail that parses");
        let to = m.to().and_then(|a| a.first()).and_then(|a| a.address()).unwrap_or_default().to_string();
        let side = to.split('@').next().unwrap().to_string();
        let svg = m
            .attachments()
            .find(|a| mail_parser::MimeHeaders::attachment_name(*a).is_some_and(|n| n.ends_with(".svg")))
            .unwrap_or_else(|| panic!("{}: no map", path.display()));
        let want = fs::read(dispatch.join(format!("{side}-map.svg"))).unwrap();
        assert_eq!(svg.contents(), want, "{}: {side}'s own map", path.display());
        mailed += 1;
    }
    assert_eq!(mailed, 3);
}

/// Issue 16: a player reads first, on a phone, what happened (the events
/// of note, not the workings of a combat: no DRM, odds or tactics line),
/// then what is asked next, then a table of positions (unit, hex, steps,
/// condition, pin), in every format; each before the steps' details.
#[test]
fn a_report_begins_with_what_happened_then_the_positions() {
    let game = game();
    let templates = load_templates(None).unwrap();
    for viewer in viewers() {
        let input = game.input(viewer.clone());
        let model = report::model(&input);
        assert!(!model.summary.is_empty() && model.summary.len() <= 9, "{:?}", model.summary);
        let routine = ["drm", "odds", "tactics", "lead-units", "close-combat-roll"];
        let workings: Vec<&String> = game
            .entries
            .iter()
            .flat_map(|e| &e.events)
            .filter(|e| routine.contains(&e.kind.as_str()))
            .map(|e| &e.text)
            .collect();
        assert!(!workings.is_empty(), "turn 16's close combat has its workings");
        for line in &model.summary {
            assert!(!workings.iter().any(|w| line.ends_with(w.as_str())), "{viewer:?}: the summary tells {line}");
        }
        assert!(model.summary.iter().any(|l| l.starts_with("16-allies-close-combat: ")), "{:?}", model.summary);
        let own = game.positions[match &viewer {
            Viewer::Side(side) => side.as_str(),
            Viewer::Referee => "",
        }]
        .clone();
        assert!(own.len() > 50, "{viewer:?}: every unit on the map has a row ({})", own.len());
        let auxerrois = own.iter().find(|p| p.unit == "auxerrois").expect("auxerrois has a row");
        assert_eq!((auxerrois.side.as_str(), auxerrois.steps.as_str()), ("french", "2 of 2"), "{auxerrois:?}");
        for format in Format::ALL {
            let text = report::render(&input, format, &templates).unwrap();
            if format == Format::Json {
                let json: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(json["summary"], serde_json::json!(model.summary));
                assert_eq!(json["standing"]["positions"], serde_json::to_value(&own).unwrap());
                continue;
            }
            let (what, positions, first_step) = match format {
                Format::Text => ("\nWhat happened:\n", "\nPositions:\n", "== Step "),
                Format::Markdown => ("\n## What happened\n", "\n## Positions\n", "## Step "),
                _ => ("<h2>What happened</h2>", "<h2>Positions</h2>", "<section class=\"step\""),
            };
            let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{viewer:?} {format}: no {s:?}\n{text}"));
            assert!(at(what) < at(positions) && at(positions) < at(first_step), "{viewer:?} {format}: out of order");
            let head = &text[..at(positions)];
            for line in &model.summary {
                let shown = match format {
                    Format::Text => spaced(head).contains(&spaced(line)),
                    Format::Markdown => head.contains(&md(line)),
                    _ => head.contains(&html(line)),
                };
                assert!(shown, "{viewer:?} {format}: the top lacks {line}");
            }
            let next =
                format!("{}, awaiting orders from {}", game.next_step.as_ref().unwrap(), game.awaiting.join(", "));
            assert!(head.contains(&next), "{viewer:?} {format}: the top lacks what is asked next");
            let part = &text[at(positions)..at(first_step)];
            let row = [&auxerrois.unit, &auxerrois.hex, &auxerrois.steps, &auxerrois.condition];
            let found = match format {
                Format::Text => part.lines().any(|l| cells(l).get(..4) == Some(&row.map(String::to_string)[..])),
                Format::Markdown => part.lines().any(|l| cells(l).get(1..5) == Some(&row.map(String::to_string)[..])),
                _ => part.contains(&format!(
                    "<tr><td>french</td><td>auxerrois</td><td>{}</td><td>2 of 2</td><td>{}</td><td></td></tr>",
                    auxerrois.hex, auxerrois.condition
                )),
            };
            assert!(found, "{viewer:?} {format}: no row for auxerrois\n{part}");
        }
    }
}

/// Issue 16, over the whole demo game, every dispatch and side: each line
/// of a text report fits 78 columns; the HTML holds no raw JSON; every map
/// has a key.
#[test]
fn text_reports_fit_78_columns_html_holds_no_json_and_maps_have_a_key() {
    let dir = temp();
    run(dir.path(), &["demo", "--keep", "k"]).ok();
    let reports = dir.path().join("k/savannah/reports");
    let (mut texts, mut pages, mut maps) = (0, 0, 0);
    for (path, bytes) in all_files(&reports) {
        let text = String::from_utf8(bytes).unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            Some("txt") => {
                for (n, line) in text.lines().enumerate() {
                    let width = line.chars().count();
                    assert!(width <= 78, "{}:{}: {width} columns: {line}", path.display(), n + 1);
                }
                texts += 1;
            }
            Some("html") => {
                assert!(!text.contains("{\""), "{}: raw JSON in the page", path.display());
                pages += 1;
            }
            Some("svg") => {
                assert!(text.contains("<g id=\"key\""), "{}: no key", path.display());
                maps += 1;
            }
            _ => {}
        }
    }
    assert_eq!((texts, pages), (3 * maps, 3 * maps), "a report per side of each dispatch, a map each");
    assert!(maps >= 18, "{maps} dispatches");
}
