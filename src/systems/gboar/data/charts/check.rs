//! Checking the charts whole ([`check`]): the conventions of every file,
//! the helpers each chart's checks share, and the checks that span files.
//! Each chart's own checks are in its file.

use super::*;

/// Check the charts whole, against each other and against the rest of the
/// module, and return every problem, located by file, line and field path:
///
/// - every file: a `source` of the form `rules ...` / `stand-in`, `source:
///   stand-in` at the top when any value is a stand-in, no float anywhere;
/// - ids kebab-case and defined once; every reference (result code, effect
///   and its params, side, terrain, chit, weather, table, counter, leader,
///   colour group, scenario, entry hex, place, zone, chart file) resolves;
/// - roll bands in order without gap or overlap, covering the die's faces
///   for an unmodified roll and every integer for a modified one;
/// - the Fire and Mortar To Hit tables have a number for every SP band and
///   range; both damage tables one row per face;
/// - the Close Combat Table: odds columns strictly increasing and named by
///   their odds, every column on every row from the lowest to the highest
///   reachable modified roll ([`Charts::close_combat_reach`]), results that
///   follow codes.yaml's `combination_rules`;
/// - the Tactics Matrix has a cell for every pair of chits;
/// - counters lie within the `bounds` of counter-valued DRMs;
/// - army morale levels cover the track; the deck matches its counts (4.3);
/// - the map uses no terrain, hexside feature or road the TEC lacks.
pub fn check(charts: &Charts, context: &Context) -> Vec<Located> {
    let mut c = Checker::new(charts, context);
    c.conventions();
    c.table_ids();
    c.codes();
    c.fire();
    c.close_combat();
    c.close_combat_drms();
    c.tactics();
    c.terrain();
    c.army_morale();
    c.morale_check();
    c.leader_casualty();
    c.weather();
    c.siege_bombardment();
    c.mortar();
    c.covered_way();
    c.french_variable_entry();
    c.surrender();
    c.victory_points();
    c.cards();
    let mut list = c.p.list;
    list.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    list
}

/// 13.1 codes that `combination_rules` speak of.
pub(super) const NO_EFFECT: &str = "no-effect";
pub(super) const ARMY_MORALE_RESULT: &str = "army-morale";
pub(super) const LEADER_CASUALTY_RESULT: &str = "leader-casualty";
pub(super) const PIN: &str = "pin";

/// charts.md: "`condition` on `drm` is optional".
pub(super) const OPTIONAL_PARAMS: [(&str, &str); 1] = [("drm", "condition")];

/// Savannah 4.3: the effect that draws cards, and where from.
pub(super) const DRAW_CARDS: &str = "draw-cards";
pub(super) const FROM_DECK: &str = "deck";
pub(super) const FROM_OPPONENT: &str = "opponent-hand";

/// Savannah 4.3: the timing of the red must-play cards.
pub(super) const ON_DRAW: &str = "on-draw";

/// `[a-z0-9]+(-[a-z0-9]+)*`
pub(super) fn kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Up to 20 items, then how many in all.
pub(super) fn listing<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let all: Vec<String> = items.into_iter().map(|s| s.as_ref().to_string()).collect();
    if all.is_empty() {
        return "(none)".to_string();
    }
    if all.len() <= 20 {
        all.join(", ")
    } else {
        format!("{}, ... ({} in all)", all[..20].join(", "), all.len())
    }
}

pub(super) fn show_band(min: Option<i32>, max: Option<i32>) -> String {
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!("{a}"),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("{a} or more"),
        (None, Some(b)) => format!("{b} or less"),
        (None, None) => "every value".to_string(),
    }
}

pub(super) fn basename(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// The chart file a `from:` names (`terrain.yaml`, `cards.yaml`).
pub(super) fn chart_named(name: &str) -> Option<&'static str> {
    FILES.iter().copied().find(|f| basename(f) == name)
}

/// Which counter value a `from: counter ...` reads.
pub(super) fn counter_field(from: &str) -> Option<&'static str> {
    from.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find_map(|w| COUNTER_FIELDS.iter().copied().find(|f| *f == w))
}

/// What a list of bands must cover.
#[derive(Clone, Copy)]
pub(super) enum Domain {
    /// Exactly `lo..=hi` (an unmodified roll, a track).
    Exactly(i32, i32),
    /// Every integer: the first band open below, the last open above (a modified roll).
    Every,
    /// From 1 up, the last open (SP bands).
    FromOne,
    /// From a first value up, the last open or not (game turns).
    Turns,
}

/// Problems with their place in the files.
pub(super) struct Problems<'a> {
    pub(super) files: &'a BTreeMap<String, FileText>,
    pub(super) list: Vec<Located>,
}

impl Problems<'_> {
    /// Record a problem at `field` (`close_combat_table.rows[3].results`),
    /// located by following that path through the file's text.
    pub(super) fn add(&mut self, file: &str, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        let (label, place) = match self.files.get(file) {
            Some(f) => (f.label.clone(), position(&f.text, &field)),
            None => (file.to_string(), None),
        };
        self.list.push(Located {
            file: label,
            line: place.map(|p| p.0),
            column: place.map(|p| p.1),
            field,
            message: message.into(),
            code: None,
        });
    }
}

pub(super) enum Step<'f> {
    Key(&'f str),
    Item(usize),
}

/// `a.b[3].c` → key a, key b, item 3, key c.
pub(super) fn steps(field: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for segment in field.split('.') {
        let (name, mut rest) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(end) = inner.find(']') else { break };
            if let Ok(n) = inner[..end].parse() {
                out.push(Step::Item(n));
            }
            rest = &inner[end + 1..];
        }
    }
    out
}

/// The 1-based line and column of a field path in a YAML text, following
/// keys and list items as far as they can be found (best effort: the text
/// is searched, not parsed again).
pub(super) fn position(text: &str, field: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut at: Option<(usize, usize)> = None;
    for step in steps(field) {
        let found = match step {
            Step::Key(key) => find_key(&lines, at, key),
            Step::Item(n) => at.and_then(|(line, _)| nth_item(&lines, line, n)),
        };
        match found {
            Some(p) => at = Some(p),
            None => break,
        }
    }
    at.map(|(l, c)| (l + 1, c + 1))
}

/// Where `key` of the mapping at `at` is: in a flow mapping on the same
/// line, else a block key on a following line indented under it (at the
/// root, a key at column 0).
pub(super) fn find_key(lines: &[&str], at: Option<(usize, usize)>, key: &str) -> Option<(usize, usize)> {
    let tokens = [format!("{key}:"), format!("\"{key}\":")];
    if let Some((line, col)) = at {
        let text = lines.get(line).copied().unwrap_or("");
        if let Some(c) = tokens.iter().find_map(|t| find_in_line(text, col + 1, t)) {
            return Some((line, c));
        }
    }
    let (start, parent) = match at {
        Some((line, _)) => (line + 1, lines.get(line).map(|t| t.len() - t.trim_start().len())),
        None => (0, None),
    };
    for (n, text) in lines.iter().enumerate().skip(start) {
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = text.len() - trimmed.len();
        match parent {
            Some(p) if indent <= p => return None,
            None if indent > 0 => continue,
            _ => {}
        }
        let content = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        let offset = text.len() - content.len();
        if tokens.iter().any(|t| find_in_line(content, 0, t) == Some(0)) {
            return Some((n, offset));
        }
    }
    None
}

/// The first `token` in `text` at or after byte `col`, standing as a word:
/// after the start, a space or `{[,`, and before the end, a space or `,}]`;
/// never in a comment.
pub(super) fn find_in_line(text: &str, col: usize, token: &str) -> Option<usize> {
    let code = text.find(" #").map_or(text, |i| &text[..i]);
    let mut from = col;
    while let Some(i) = code.get(from..).and_then(|s| s.find(token)) {
        let start = from + i;
        let end = start + token.len();
        let before = code[..start].chars().next_back();
        let after = code[end..].chars().next();
        let starts = before.is_none_or(|c| c.is_whitespace() || "{[,".contains(c));
        let ends = after.is_none_or(|c| c.is_whitespace() || ",}]".contains(c));
        if starts && ends {
            return Some(start);
        }
        from = start + code[start..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// The line and column of item `n` of the block list under the key on `line`.
pub(super) fn nth_item(lines: &[&str], line: usize, n: usize) -> Option<(usize, usize)> {
    let mut indent = None;
    let mut count = 0;
    for (l, text) in lines.iter().enumerate().skip(line + 1) {
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let ind = text.len() - trimmed.len();
        let item = trimmed.starts_with('-');
        match indent {
            None if !item => return None,
            None => indent = Some(ind),
            Some(i) if ind < i || (ind == i && !item) => return None,
            Some(_) => {}
        }
        if indent == Some(ind) && item {
            if count == n {
                return Some((l, ind));
            }
            count += 1;
        }
    }
    None
}

/// What a walk over a file's YAML tree finds.
#[derive(Default, Debug, Clone, PartialEq)]
pub(super) struct Walk {
    floats: Vec<(String, String)>,
    sources: Vec<(String, String)>,
    ids: BTreeSet<String>,
}

impl Walk {
    /// The walk over a file's tree: from its compact form when it has one
    /// (read through [`WalkSeed`], no tree made), else from its YAML text.
    /// None when the file does not read (its parse reported that).
    /// Under the fuzzer a compact form's walk is kept by its bytes, as
    /// what it reads as is (`yaml::fuzz_cache`).
    pub(super) fn of(text: &str, compact: Option<&[u8]>) -> Option<Walk> {
        let mut walk = Walk::default();
        if let Some(form) = compact {
            #[cfg(fuzzing)]
            if let Some(walk) = crate::base::yaml::fuzz_cache::typed::<Walk>(form) {
                return Some(walk);
            }
            let seed = WalkSeed { walk: &mut walk, path: &mut String::new(), key: None };
            if crate::base::yaml::compact::from_slice_seed(form, seed).is_ok() {
                #[cfg(fuzzing)]
                crate::base::yaml::fuzz_cache::keep_typed(form, &walk);
                return Some(walk);
            }
            walk = Walk::default();
        }
        let tree = crate::base::yaml::from_str::<crate::base::yaml::Value>(text).ok()?;
        walk.visit(&tree, &mut String::new());
        Some(walk)
    }

    /// Walk `value`, found at `path` (a buffer each level extends and
    /// gives back as it was: no string is made for a node unless it is
    /// recorded).
    fn visit(&mut self, value: &crate::base::yaml::Value, path: &mut String) {
        use crate::base::yaml::Value;
        use std::borrow::Cow;
        let len = path.len();
        match value {
            Value::Number(n) if n.is_f64() => self.floats.push((path.clone(), n.to_string())),
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    use std::fmt::Write;
                    let _ = write!(path, "[{i}]");
                    self.visit(item, path);
                    path.truncate(len);
                }
            }
            Value::Mapping(map) => {
                for (k, item) in map {
                    let key: Cow<'_, str> = match k {
                        Value::String(s) => Cow::Borrowed(s),
                        Value::Number(n) => Cow::Owned(n.to_string()),
                        Value::Bool(b) => Cow::Owned(b.to_string()),
                        _ => Cow::Borrowed("?"),
                    };
                    if len > 0 {
                        path.push('.');
                    }
                    path.push_str(&key);
                    if let Value::Number(n) = k {
                        if n.is_f64() {
                            self.floats.push((path.clone(), n.to_string()));
                        }
                    }
                    if let Value::String(s) = item {
                        if key == "source" || key.ends_with("_source") {
                            self.sources.push((path.clone(), s.clone()));
                        }
                        if key == "id" {
                            self.ids.insert(s.clone());
                        }
                    }
                    self.visit(item, path);
                    path.truncate(len);
                }
            }
            Value::Tagged(tagged) => self.visit(&tagged.value, path),
            _ => {}
        }
    }
}

/// [`Walk::visit`] over a deserializer rather than a tree: the same
/// floats, sources and ids, found in the same order (serde_norway's
/// `Value` is read through `deserialize_any`, as this is), with no tree
/// built. `key` is the mapping key the value stands under.
struct WalkSeed<'w> {
    walk: &'w mut Walk,
    path: &'w mut String,
    key: Option<&'w str>,
}

impl<'de> serde::de::DeserializeSeed<'de> for WalkSeed<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl WalkSeed<'_> {
    fn string(self, s: &str) {
        if let Some(key) = self.key {
            if key == "source" || key.ends_with("_source") {
                self.walk.sources.push((self.path.clone(), s.to_string()));
            }
            if key == "id" {
                self.walk.ids.insert(s.to_string());
            }
        }
    }
}

/// `[i]` on the end of a path, as `write!(path, "[{i}]")` writes it
/// without the formatting machinery (once per sequence item walked).
fn push_index(path: &mut String, i: usize) {
    let mut digits = [0u8; 20];
    let mut n = i;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    path.push('[');
    path.extend(digits[at..].iter().map(|&d| char::from(d)));
    path.push(']');
}

/// How [`Walk::visit`] writes a float: as the tree's number does.
fn float_text(v: f64) -> String {
    crate::base::yaml::Number::from(v).to_string()
}

impl<'de> serde::de::Visitor<'de> for WalkSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.walk.floats.push((self.path.clone(), float_text(v)));
        Ok(())
    }
    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        self.string(s);
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let len = self.path.len();
        let mut i = 0usize;
        loop {
            push_index(self.path, i);
            let seed = WalkSeed { walk: &mut *self.walk, path: &mut *self.path, key: None };
            let more = seq.next_element_seed(seed)?.is_some();
            self.path.truncate(len);
            if !more {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let len = self.path.len();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if len > 0 {
                self.path.push('.');
            }
            self.path.push_str(&key.text);
            if key.float {
                self.walk.floats.push((self.path.clone(), key.text.clone()));
            }
            let seed = WalkSeed { walk: &mut *self.walk, path: &mut *self.path, key: Some(&key.text) };
            map.next_value_seed(seed)?;
            self.path.truncate(len);
        }
        Ok(())
    }
}

/// A mapping key as [`Walk::visit`] names it: a string as it is, a number
/// or boolean as text, anything else `?`.
struct Key {
    text: String,
    float: bool,
}

struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a mapping key")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Key, E> {
        Ok(Key { text: v.to_string(), float: false })
    }
    fn visit_i64<E>(self, v: i64) -> Result<Key, E> {
        Ok(Key { text: v.to_string(), float: false })
    }
    fn visit_u64<E>(self, v: u64) -> Result<Key, E> {
        Ok(Key { text: v.to_string(), float: false })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Key, E> {
        Ok(Key { text: float_text(v), float: true })
    }
    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(Key { text: s.to_string(), float: false })
    }
    fn visit_unit<E>(self) -> Result<Key, E> {
        Ok(Key { text: "?".to_string(), float: false })
    }
    fn visit_none<E>(self) -> Result<Key, E> {
        Ok(Key { text: "?".to_string(), float: false })
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Key, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Key { text: "?".to_string(), float: false })
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
        while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
        Ok(Key { text: "?".to_string(), float: false })
    }
}

pub(super) struct Checker<'a> {
    pub(super) c: &'a Charts,
    pub(super) ctx: &'a Context,
    pub(super) p: Problems<'a>,
    pub(super) codes: BTreeSet<&'a str>,
    pub(super) effects: BTreeMap<&'a str, &'a EffectDef>,
    pub(super) side_refs: BTreeSet<&'a str>,
    pub(super) weather: BTreeSet<&'a str>,
    /// Every table id of the module (`roll-table` names one).
    pub(super) tables: BTreeSet<&'a str>,
    /// Every id defined in each chart file, by file name (`terrain.yaml`).
    pub(super) ids_by_file: BTreeMap<&'static str, BTreeSet<String>>,
}

impl<'a> Checker<'a> {
    pub(super) fn new(c: &'a Charts, ctx: &'a Context) -> Self {
        Checker {
            c,
            ctx,
            p: Problems { files: &c.files, list: Vec::new() },
            codes: c.codes.combat_results.iter().map(|r| r.id.as_str()).collect(),
            effects: c.codes.effects.iter().map(|e| (e.id.as_str(), e)).collect(),
            side_refs: c.codes.side_refs.iter().map(|s| s.id.as_str()).collect(),
            weather: c.weather.conditions.iter().map(|w| w.id.as_str()).collect(),
            tables: Self::table_list(c).into_iter().map(|(_, _, id)| id).collect(),
            ids_by_file: BTreeMap::new(),
        }
    }

    pub(super) fn table_list(c: &Charts) -> Vec<(&'static str, &'static str, &str)> {
        vec![
            (FIRE, "fire_table.id", c.fire.fire_table.id.as_str()),
            (FIRE, "rifle_fire_damage.id", &c.fire.rifle_fire_damage.id),
            (FIRE, "artillery_fire_damage.id", &c.fire.artillery_fire_damage.id),
            (FIRE, "fire_drms.id", &c.fire.fire_drms.id),
            (CLOSE_COMBAT, "close_combat_table.id", &c.close_combat.close_combat_table.id),
            (CLOSE_COMBAT_DRMS, "close_combat_drms.id", &c.close_combat_drms.close_combat_drms.id),
            (TACTICS, "matrix.id", &c.tactics.matrix.id),
            (ARMY_MORALE, "adjustments.id", &c.army_morale.adjustments.id),
            (LEADER_CASUALTY, "leader_casualty.id", &c.leader_casualty.leader_casualty.id),
            (WEATHER, "weather_table.id", &c.weather.weather_table.id),
            (SIEGE_BOMBARDMENT, "table_i.id", &c.siege_bombardment.table_i.id),
            (SIEGE_BOMBARDMENT, "table_ii.id", &c.siege_bombardment.table_ii.id),
            (MORTAR, "mortar_to_hit.id", &c.mortar.mortar_to_hit.id),
            (MORTAR, "scatter_and_drift.id", &c.mortar.scatter_and_drift.id),
            (MORTAR, "mortar_disable.id", &c.mortar.mortar_disable.id),
            (COVERED_WAY, "lost_roll.id", &c.covered_way.lost_roll.id),
            (FRENCH_VARIABLE_ENTRY, "french_variable_entry.id", &c.french_variable_entry.french_variable_entry.id),
            (SURRENDER, "surrender_roll.id", &c.surrender.surrender_roll.id),
            (VICTORY_POINTS, "victory_points.id", &c.victory_points.victory_points.id),
        ]
    }

    // --- helpers -----------------------------------------------------------

    /// An id: kebab-case, and not defined before in `seen` (id → where).
    pub(super) fn id(&mut self, file: &str, seen: &mut BTreeMap<String, String>, field: &str, id: &str) {
        let at = format!("{field}.id");
        if !kebab(id) {
            self.p.add(
                file,
                &at,
                format!(
                    "'{id}' is not a kebab-case id: lowercase ASCII letters and digits joined by single \
                    hyphens, e.g. 'heavy-rain'"
                ),
            );
        }
        if let Some(first) = seen.get(id) {
            self.p.add(file, &at, format!("'{id}' is defined twice (first at {first}): an id is defined once"));
        } else {
            seen.insert(id.to_string(), field.to_string());
        }
    }

    /// Ids of one list, defined once within it.
    pub(super) fn unique<'s>(&mut self, file: &str, list: &str, ids: impl IntoIterator<Item = &'s str>) {
        let mut seen = BTreeMap::new();
        for (i, id) in ids.into_iter().enumerate() {
            self.id(file, &mut seen, &format!("{list}[{i}]"), id);
        }
    }

    /// A reference into a set of ids the charts define.
    pub(super) fn reference(&mut self, file: &str, field: &str, id: &str, set: &BTreeSet<&str>, what: &str) {
        if !set.contains(id) {
            self.p.add(file, field, format!("'{id}' is not {what}; they are: {}", listing(set.iter())));
        }
    }

    /// A reference into a set the context knows (unknown sets are not checked).
    pub(super) fn context_ref(
        &mut self,
        file: &str,
        field: &str,
        id: &str,
        set: &Option<BTreeSet<String>>,
        what: &str,
    ) {
        if let Some(s) = set {
            if !s.contains(id) {
                self.p.add(file, field, format!("'{id}' is not {what}; they are: {}", listing(s.iter())));
            }
        }
    }

    pub(super) fn sides(&mut self, file: &str, field: &str, sides: &[String]) {
        for (i, s) in sides.iter().enumerate() {
            self.context_ref(file, &format!("{field}[{i}]"), s, &self.ctx.sides.clone(), "a side of module.yaml");
        }
    }

    pub(super) fn scenarios(&mut self, file: &str, field: &str, scenarios: &[String]) {
        for (i, s) in scenarios.iter().enumerate() {
            self.context_ref(
                file,
                &format!("{field}[{i}]"),
                s,
                &self.ctx.scenarios.clone(),
                "a scenario of module.yaml",
            );
        }
    }

    /// Game turns: from 1, strictly increasing.
    pub(super) fn turn_list(&mut self, file: &str, field: &str, turns: &[u32]) {
        for (i, t) in turns.iter().enumerate() {
            if *t == 0 {
                self.p.add(file, format!("{field}[{i}]"), "turn 0: game turns count from 1");
            }
            if i > 0 && turns[i - 1] >= *t {
                self.p.add(
                    file,
                    format!("{field}[{i}]"),
                    format!("turn {t} after turn {}: list the turns once each, in increasing order", turns[i - 1]),
                );
            }
        }
    }

    /// Bands in order, without gap or overlap, covering `domain`.
    pub(super) fn bands(
        &mut self,
        file: &str,
        list: &str,
        at: &dyn Fn(usize) -> String,
        bands: &[(Option<i32>, Option<i32>)],
        domain: Domain,
    ) {
        let Some(last) = bands.len().checked_sub(1) else {
            self.p.add(file, list, "no bands: the table needs at least one");
            return;
        };
        for (i, &(min, max)) in bands.iter().enumerate() {
            let here = at(i);
            if min.is_none() && i != 0 {
                self.p.add(file, &here, "only the first band may omit min ('or less')");
            }
            if max.is_none() && i != last {
                self.p.add(file, &here, "only the last band may omit max ('or more')");
            }
            if let (Some(a), Some(b)) = (min, max) {
                if a > b {
                    self.p.add(file, &here, format!("min {a} is above max {b}"));
                }
            }
            if i > 0 {
                if let (Some(prev), Some(a)) = (bands[i - 1].1, min) {
                    if a <= prev {
                        self.p.add(
                            file,
                            &here,
                            format!("{} overlaps the band before it (up to {prev})", show_band(min, max)),
                        );
                    } else if a - 1 > prev {
                        let gap = show_band(Some(prev + 1), Some(a - 1));
                        self.p.add(
                            file,
                            &here,
                            format!("{gap} falls in no band: the band before ends at {prev}, this one starts at {a}"),
                        );
                    }
                }
            }
        }
        let (first_min, last_max) = (bands[0].0, bands[last].1);
        match domain {
            Domain::Exactly(lo, hi) => {
                if first_min != Some(lo) {
                    self.p.add(
                        file,
                        at(0),
                        format!(
                            "the bands cover {lo} to {hi} exactly (an unmodified roll \
                        reads the die's faces): the first starts at min: {lo}"
                        ),
                    );
                }
                if last_max != Some(hi) {
                    self.p.add(
                        file,
                        at(last),
                        format!(
                            "the bands cover {lo} to {hi} exactly (an unmodified roll \
                        reads the die's faces): the last ends at max: {hi}"
                        ),
                    );
                }
            }
            Domain::Every => {
                if first_min.is_some() {
                    self.p.add(
                        file,
                        at(0),
                        "a modified roll can fall below any number: omit min on the first band ('or less')",
                    );
                }
                if last_max.is_some() {
                    self.p.add(
                        file,
                        at(last),
                        "a modified roll can rise above any number: omit max on the last band ('or more')",
                    );
                }
            }
            Domain::FromOne => {
                if first_min != Some(1) {
                    self.p.add(file, at(0), "the bands start at min: 1");
                }
                if last_max.is_some() {
                    self.p.add(file, at(last), "the last band is open: omit its max ('or more')");
                }
            }
            Domain::Turns => {
                if first_min.is_none() {
                    self.p.add(file, at(0), "the first band of turns starts at a turn: give its min");
                }
            }
        }
    }

    /// The bands of a roll table: the die's faces without DRMs, every integer with them.
    pub(super) fn roll_bands(
        &mut self,
        file: &str,
        list: &str,
        bands: &[(Option<i32>, Option<i32>)],
        die: Die,
        modified: bool,
    ) {
        let (lo, hi) = die.faces();
        let domain = if modified { Domain::Every } else { Domain::Exactly(lo, hi) };
        let at = |i: usize| format!("{list}[{i}]");
        self.bands(file, list, &at, bands, domain);
    }

    /// One side's result in a chart: result codes of codes.yaml, combined as
    /// codes.yaml's `combination_rules` say (13.1).
    pub(super) fn results(&mut self, file: &str, field: &str, codes: &[String]) {
        if codes.is_empty() {
            self.p.add(file, field, "no result: write [no-effect] for none (13.1)");
            return;
        }
        let mut main = Vec::new();
        for (i, code) in codes.iter().enumerate() {
            if !self.codes.contains(code.as_str()) {
                self.p.add(
                    file,
                    format!("{field}[{i}]"),
                    format!(
                        "'{code}' is not a result code of codes.yaml (13.1); the codes are: {}",
                        listing(&self.codes)
                    ),
                );
                continue;
            }
            if codes[..i].contains(code) {
                self.p.add(file, format!("{field}[{i}]"), format!("'{code}' is written twice in one result"));
            }
            if ![NO_EFFECT, ARMY_MORALE_RESULT, LEADER_CASUALTY_RESULT].contains(&code.as_str()) {
                main.push(code.as_str());
            }
        }
        let has = |c: &str| codes.iter().any(|x| x == c);
        if has(NO_EFFECT) && codes.iter().any(|c| c != NO_EFFECT && c != LEADER_CASUALTY_RESULT) {
            self.p.add(
                file,
                field,
                format!("{NO_EFFECT} stands alone, or with {LEADER_CASUALTY_RESULT}: [{}]", codes.join(", ")),
            );
        }
        if codes.iter().all(|c| c == LEADER_CASUALTY_RESULT) {
            self.p.add(
                file,
                field,
                format!(
                    "{LEADER_CASUALTY_RESULT} is never alone; it rides on another result, \
                e.g. [{NO_EFFECT}, {LEADER_CASUALTY_RESULT}]"
                ),
            );
        }
        if main.len() > 1 {
            self.p.add(
                file,
                field,
                format!(
                    "at most one result besides {ARMY_MORALE_RESULT} and {LEADER_CASUALTY_RESULT} in one \
                    side's result; found {}",
                    main.join(", ")
                ),
            );
        }
    }

    /// A `from:` that names a chart file (and maybe an id in it) or a counter.
    pub(super) fn check_from_path(&mut self, file: &str, field: &str, from: &str) {
        let mut words = from.split_whitespace();
        let first = words.next().unwrap_or("");
        if first == "counter" {
            return;
        }
        let Some(target) = chart_named(first) else {
            self.p.add(
                file,
                field,
                format!(
                    "'{from}' reads from neither a chart of this module ({}) nor a counter ('counter <value> ...')",
                    listing(FILES.iter().map(|f| basename(f)))
                ),
            );
            return;
        };
        if let Some(id) = words.next().and_then(selector) {
            let defined = self.ids_by_file.get(basename(target)).is_some_and(|ids| ids.contains(id));
            if !defined {
                self.p.add(file, field, format!("{first} defines no id '{id}'"));
            }
        }
    }

    /// 15.32, 16.2: how far a unit's printed morale can move (Army Morale
    /// levels, then the unit morale modifiers of morale-check.yaml).
    pub(super) fn morale_modifier_span(&self) -> (i32, i32) {
        let levels = self.c.army_morale.levels.iter().filter_map(|l| l.unit_morale_modifier);
        let (mut lo, mut hi) = levels.fold((0, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
        for m in &self.c.morale_check.unit_morale_modifiers {
            if let Some(v) = m.value {
                if v < 0 {
                    lo = lo.saturating_add(v);
                } else {
                    hi = hi.saturating_add(v);
                }
            }
        }
        (lo, hi)
    }

    /// A list of DRMs.
    pub(super) fn drms(&mut self, file: &str, list: &str, entries: &[Drm]) {
        let mut seen = BTreeMap::new();
        for (i, d) in entries.iter().enumerate() {
            let f = format!("{list}[{i}]");
            self.id(file, &mut seen, &f, &d.id);
            let kinds = [d.value.is_some(), d.schedule.is_some(), d.from.is_some()].iter().filter(|k| **k).count();
            if kinds != 1 {
                self.p.add(
                    file,
                    &f,
                    format!("DRM '{}' has {kinds} of value, schedule and from: an entry has exactly one", d.id),
                );
            }
            if let Some(schedule) = &d.schedule {
                let bands: Vec<_> = schedule.iter().map(|s| (s.turns.min, s.turns.max)).collect();
                let at = |j: usize| format!("{f}.schedule[{j}].turns");
                self.bands(file, &format!("{f}.schedule"), &at, &bands, Domain::Turns);
            }
            let counter = d.from.as_deref().is_some_and(|from| from.split_whitespace().next() == Some("counter"));
            if let Some(from) = &d.from {
                if !counter {
                    self.check_from_path(file, &format!("{f}.from"), from);
                }
            }
            if !counter && d.sign.is_some() {
                self.p.add(
                    file,
                    format!("{f}.sign"),
                    "sign goes only with from: counter ... (it says whether the \
                    counter's value is added or subtracted)",
                );
            }
            if !counter && d.bounds.is_some() {
                self.p.add(
                    file,
                    format!("{f}.bounds"),
                    "bounds go only with from: counter ... (the range of the counter's value)",
                );
            }
            if let Some(sign) = d.sign {
                if sign != 1 && sign != -1 {
                    self.p.add(
                        file,
                        format!("{f}.sign"),
                        format!("sign {sign}: write 1 (add the counter's value) or -1 (subtract it)"),
                    );
                }
            }
            if let Some(b) = d.bounds {
                if b.min > b.max {
                    self.p.add(file, format!("{f}.bounds"), format!("bounds min {} is above max {}", b.min, b.max));
                } else if counter {
                    self.counter_bounds(file, &f, d, b);
                }
            }
            if d.max.is_some() && d.per.is_none() && d.per_hexes.is_none() {
                self.p.add(file, format!("{f}.max"), "max caps a DRM that counts per thing: give per, or drop max");
            }
            if d.per_hexes == Some(0) {
                self.p.add(file, format!("{f}.per_hexes"), "per_hexes is 1 or more");
            }
            for (key, word) in [("group", &d.group), ("per", &d.per)] {
                if let Some(w) = word {
                    if !kebab(w) {
                        self.p.add(file, format!("{f}.{key}"), format!("'{w}' is not a kebab-case id"));
                    }
                }
            }
            self.sides(file, &format!("{f}.sides"), &d.sides);
            self.scenarios(file, &format!("{f}.scenarios"), &d.scenarios);
            self.turn_list(file, &format!("{f}.turns"), &d.turns);
        }
    }

    /// Every counter's value lies within a counter-valued DRM's bounds
    /// (morale as modified by Army Morale, 15.32).
    pub(super) fn counter_bounds(&mut self, file: &str, f: &str, d: &Drm, b: Range) {
        let Some(counters) = &self.ctx.counters else { return };
        let from = d.from.as_deref().unwrap_or("");
        let Some(field) = counter_field(from) else {
            self.p.add(
                file,
                format!("{f}.from"),
                format!("'{from}' names no counter value; name one of {}", listing(COUNTER_FIELDS)),
            );
            return;
        };
        let (lo, hi) = if field == "morale" { self.morale_modifier_span() } else { (0, 0) };
        let mut out = Vec::new();
        for (id, facts) in counters {
            for v in facts.values(field) {
                let (low, high) = (v.saturating_add(lo), v.saturating_add(hi));
                if low < b.min || high > b.max {
                    out.push(if (lo, hi) == (0, 0) {
                        format!("counter '{id}' has {field} {v}, outside bounds {} to {}", b.min, b.max)
                    } else {
                        format!(
                            "counter '{id}' has {field} {v}, which Army Morale and the unit morale modifiers \
                                ({lo} to {hi}) take to {} to {}, outside bounds {} to {}",
                            low, high, b.min, b.max
                        )
                    });
                }
            }
        }
        for message in out {
            self.p.add(
                file,
                format!("{f}.bounds"),
                format!("{message}: widen the bounds (and the rows they reach) or correct the counter"),
            );
        }
    }

    /// Effects in the vocabulary of codes.yaml, each with exactly its params.
    pub(super) fn effect_list(&mut self, file: &str, list: &str, effects: &[Effect]) {
        for (i, e) in effects.iter().enumerate() {
            let f = format!("{list}[{i}]");
            let Some(def) = self.effects.get(e.effect.as_str()).copied() else {
                self.p.add(
                    file,
                    format!("{f}.effect"),
                    format!(
                        "'{}' is not an effect of codes.yaml; they are: {}",
                        e.effect,
                        listing(self.effects.keys())
                    ),
                );
                continue;
            };
            let missing: Vec<&str> = def
                .params
                .iter()
                .map(String::as_str)
                .filter(|p| !e.params.contains_key(*p) && !OPTIONAL_PARAMS.contains(&(def.id.as_str(), *p)))
                .collect();
            if !missing.is_empty() {
                self.p.add(
                    file,
                    &f,
                    format!("effect '{}' needs {} (its params: {})", def.id, missing.join(", "), listing(&def.params)),
                );
            }
            for (name, value) in &e.params {
                let at = format!("{f}.{name}");
                if !def.params.contains(name) {
                    self.p.add(
                        file,
                        &at,
                        format!(
                            "'{name}' is not a param of effect '{}' (its params: {})",
                            def.id,
                            listing(&def.params)
                        ),
                    );
                    continue;
                }
                self.param_value(file, &at, name, value);
            }
        }
    }

    /// Effect params (codes.yaml `effects`) whose value names other data.
    pub(super) fn param_value(&mut self, file: &str, field: &str, name: &str, value: &Param) {
        let word = value.as_word();
        let needs_word = ["side", "weather", "table", "unit", "replacement", "leader", "entry"];
        if needs_word.contains(&name) && word.is_none() {
            self.p.add(file, field, format!("{name} names an id: write one word"));
            return;
        }
        let w = word.unwrap_or("");
        match name {
            "side" => self.reference(file, field, w, &self.side_refs.clone(), "a side reference of codes.yaml"),
            "weather" => self.reference(file, field, w, &self.weather.clone(), "a weather of weather.yaml"),
            "table" => self.reference(file, field, w, &self.tables.clone(), "a table id of this module"),
            "unit" | "replacement" | "leader" => {
                let Some(counters) = &self.ctx.counters else { return };
                match counters.get(w) {
                    None => self.p.add(file, field, format!("'{w}' is not a counter of counters.yaml")),
                    Some(c) if name == "leader" && !c.leader => {
                        self.p.add(file, field, format!("'{w}' is a counter of counters.yaml but not a leader"))
                    }
                    Some(_) => {}
                }
            }
            "entry" if w.parse::<HexId>().is_err() => {
                let entries = self.ctx.entry_hexes.clone();
                self.context_ref(file, field, w, &entries, "an entry hex of map.yaml (or a hex, CCRR)");
            }
            _ => {}
        }
    }

    /// A result table: results defined once, bands, DRMs, results used defined.
    pub(super) fn result_table(&mut self, file: &str, name: &str, t: &ResultTable, die: Die) {
        self.unique(file, &format!("{name}.results"), t.results.iter().map(|r| r.id.as_str()));
        self.drms(file, &format!("{name}.drms"), &t.drms);
        let bands: Vec<_> = t.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(file, &format!("{name}.outcomes"), &bands, die, !t.drms.is_empty());
        let results: BTreeSet<&str> = t.results.iter().map(|r| r.id.as_str()).collect();
        for (i, o) in t.outcomes.iter().enumerate() {
            self.reference(
                file,
                &format!("{name}.outcomes[{i}].result"),
                &o.result,
                &results,
                "one of this table's results",
            );
        }
    }

    /// 10.3, 11.2: SP bands from 1 up, a number for every range.
    pub(super) fn check_to_hit(&mut self, file: &str, name: &str, t: &ToHitTable) {
        if t.ranges.is_empty() {
            self.p.add(file, format!("{name}.ranges"), "no ranges: list the ranges in hexes, e.g. [1, 2, 3]");
        }
        if t.ranges.first() == Some(&0) {
            self.p.add(
                file,
                format!("{name}.ranges"),
                "range 0: a range counts the target's hex (11.2), so 'adjacent' is 1",
            );
        }
        for w in t.ranges.windows(2) {
            if w[1] <= w[0] {
                self.p.add(file, format!("{name}.ranges"), format!("range {} after {}: ranges increase", w[1], w[0]));
            }
        }
        let bands: Vec<_> = t.rows.iter().map(|r| (r.sp.min, r.sp.max)).collect();
        let at = |i: usize| format!("{name}.rows[{i}].sp");
        self.bands(file, &format!("{name}.rows"), &at, &bands, Domain::FromOne);
        for (i, row) in t.rows.iter().enumerate() {
            let sp = show_band(row.sp.min, row.sp.max);
            let missing: Vec<String> =
                t.ranges.iter().filter(|r| !row.to_hit.contains_key(r)).map(|r| r.to_string()).collect();
            if !missing.is_empty() {
                self.p.add(
                    file,
                    format!("{name}.rows[{i}].to_hit"),
                    format!(
                        "no To Hit number for range {} at {sp} SP: every row has every range ({})",
                        missing.join(", "),
                        listing(t.ranges.iter().map(|r| r.to_string()))
                    ),
                );
            }
            for r in row.to_hit.keys().filter(|r| !t.ranges.contains(r)) {
                self.p.add(
                    file,
                    format!("{name}.rows[{i}].to_hit.{r}"),
                    format!("range {r} is not one of ranges ({})", listing(t.ranges.iter().map(|r| r.to_string()))),
                );
            }
        }
    }

    // --- the files ---------------------------------------------------------

    /// Every file: sources, stand-ins, floats; and the ids it defines.
    pub(super) fn conventions(&mut self) {
        let c = self.c;
        for (file, text) in &c.files {
            let Some(walk) = Walk::of(&text.text, text.compact.as_deref()) else { continue };
            for (path, v) in &walk.floats {
                self.p.add(
                    file,
                    path,
                    format!(
                        "{v} is a float; charts hold integers only (odds are pairs [3, 2], VPs are counted in halves)"
                    ),
                );
            }
            for (path, s) in &walk.sources {
                if !(s.starts_with("rules ") || s.starts_with("stand-in")) {
                    self.p.add(
                        file,
                        path,
                        format!(
                            "source '{s}': write 'rules <number>' for a printed value, 'stand-in', or both \
                            ('rules 16.23; stand-in (range)')"
                        ),
                    );
                }
            }
            let top = walk.sources.iter().find(|(p, _)| p == "source").map_or("", |(_, s)| s.as_str());
            if !top.starts_with("stand-in") {
                if let Some((path, _)) = walk.sources.iter().find(|(p, s)| p != "source" && s.contains("stand-in")) {
                    self.p.add(
                        file,
                        "source",
                        format!("{path} is a stand-in, so the file's top source is stand-in (charts.md)"),
                    );
                }
            }
            if let Some(name) = FILES.iter().find(|f| *f == file).map(|f| basename(f)) {
                self.ids_by_file.insert(name, walk.ids);
            }
        }
    }

    /// Table ids: kebab-case, unique across the module (`roll-table` names them).
    pub(super) fn table_ids(&mut self) {
        let mut seen: BTreeMap<&str, String> = BTreeMap::new();
        for (file, field, id) in Self::table_list(self.c) {
            if !kebab(id) {
                self.p.add(file, field, format!("'{id}' is not a kebab-case id"));
            }
            match seen.get(id) {
                Some(first) => {
                    self.p.add(file, field, format!("table id '{id}' is also {first}: each table has its own"))
                }
                None => {
                    seen.insert(id, format!("{} {field}", basename(file)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Walk;

    #[test]
    fn an_index_is_written_as_format_writes_it() {
        for i in [0, 7, 10, 99, 1234, usize::MAX] {
            let mut path = "rows".to_string();
            super::push_index(&mut path, i);
            assert_eq!(path, format!("rows[{i}]"));
        }
    }

    #[test]
    fn a_walk_finds_floats_sources_and_ids_where_they_are() {
        let text =
            "source: stand-in\nrows:\n  - {id: a, odds: 1.5, odds_source: rules 11.2}\n  - id: b\n    2.5: x\nn: 3\n";
        let form = crate::base::yaml::compact_form(text).expect("a compact form");
        let walk = Walk::of(text, Some(&form)).expect("it reads");
        assert_eq!(
            walk.floats,
            [("rows[0].odds".to_string(), "1.5".to_string()), ("rows[1].2.5".to_string(), "2.5".to_string())]
        );
        assert_eq!(
            walk.sources,
            [
                ("source".to_string(), "stand-in".to_string()),
                ("rows[0].odds_source".to_string(), "rules 11.2".to_string())
            ]
        );
        assert_eq!(walk.ids.iter().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(Walk::of(text, None), Some(walk));
        assert_eq!(Walk::of("a: [", None), None);
    }

    /// The walk through a compact form (no tree) finds what the walk over
    /// serde_norway's tree of the text finds, in every YAML file of the
    /// repository.
    #[test]
    fn every_yaml_file_of_the_repository_walks_the_same_from_its_compact_form() {
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    files(&p, out)
                } else if p.extension().is_some_and(|e| e == "yaml") {
                    out.push(p)
                }
            }
        }
        let mut paths = Vec::new();
        for d in ["tests", "games"] {
            files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(d), &mut paths);
        }
        let mut compared = 0;
        for p in paths {
            let Ok(text) = std::fs::read_to_string(&p) else { continue };
            let Some(form) = crate::base::yaml::compact_form(&text) else { continue };
            assert_eq!(Walk::of(&text, Some(&form)), Walk::of(&text, None), "{}", p.display());
            compared += 1;
        }
        assert!(compared > 900, "only {compared} files compared");
    }
}
