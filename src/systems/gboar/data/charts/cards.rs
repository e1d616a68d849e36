//! cards.yaml (Savannah 4.3): the Random Events deck.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// cards.yaml

/// `cards.yaml`: the Random Events deck (Savannah 4.3).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub deck: Deck,
    /// 4.3: game turn restriction marks.
    pub timings: Vec<IdText>,
    /// 4.3: who may play a card.
    pub flags: Vec<IdText>,
    pub draw: Draw,
    /// One entry per physical card.
    pub cards: Vec<Card>,
}

/// Savannah 4.3: the deck's printed counts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deck {
    pub size: u32,
    pub source: String,
    /// Timing id to number of cards.
    pub timing_counts: BTreeMap<String, u32>,
    /// Flag id to number of cards.
    pub flag_counts: BTreeMap<String, u32>,
    /// Red must-play cards.
    pub red: u32,
    /// Cards with a `draw-cards` effect `from: deck`.
    pub cards_that_draw_from_deck: u32,
    /// Cards with a `draw-cards` effect `from: opponent-hand`.
    pub cards_that_draw_from_opponent: u32,
    pub note: Option<String>,
}

/// Savannah 1.4, 1.6, 3, 4.3: the draw procedure.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    pub source: String,
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// The Random Events turns.
    pub turns: Vec<u32>,
    pub turns_source: Option<String>,
    /// Sides (or side references), in the order they draw.
    pub order: Vec<String>,
    pub per_side: u32,
    /// 1.4, 4.3: Momentum Chits spent for one more card.
    pub momentum_extra_draw_max: u32,
    pub hand_limit: HandLimit,
    pub discard: String,
    pub play: String,
    pub after_tactical_switch: String,
    pub note: Option<String>,
}

/// Savannah 4.3: how many cards a hand may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandLimit {
    Cards(u32),
    None,
}

impl<'de> Deserialize<'de> for HandLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Int(n) => u32::try_from(n)
                .map(HandLimit::Cards)
                .map_err(|_| de::Error::custom(format!("{n}: a hand limit is a number of cards or none"))),
            Scalar::Word(w) if w == "none" => Ok(HandLimit::None),
            Scalar::Word(w) => Err(de::Error::custom(format!("'{w}': a hand limit is a number of cards or none"))),
        }
    }
}

/// Savannah 4.3: one Random Events card.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    pub number: u32,
    pub id: String,
    pub title: String,
    /// A timing id.
    pub timing: String,
    /// 4.3: printed in red, must be played when drawn.
    #[serde(default)]
    pub red: bool,
    /// A flag id.
    pub flags: String,
    /// The game turns in which it may be played.
    pub turns: Option<Band>,
    pub effects: Vec<Effect>,
    pub text: Option<String>,
    pub source: String,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    /// Savannah 4.3: the deck matches its printed counts.
    pub(super) fn cards(&mut self) {
        let k = &self.c.cards;
        let f = CARDS;
        let deck = &k.deck;
        self.unique(f, "timings", k.timings.iter().map(|t| t.id.as_str()));
        self.unique(f, "flags", k.flags.iter().map(|t| t.id.as_str()));
        self.unique(f, "cards", k.cards.iter().map(|c| c.id.as_str()));
        let timings: BTreeSet<&str> = k.timings.iter().map(|t| t.id.as_str()).collect();
        let flags: BTreeSet<&str> = k.flags.iter().map(|t| t.id.as_str()).collect();
        let n = k.cards.len();
        if n != deck.size as usize {
            self.p.add(
                f,
                "deck.size",
                format!("deck.size is {} but cards lists {n} (Savannah 4.3: one entry per physical card)", deck.size),
            );
        }
        let mut numbers: BTreeMap<u32, usize> = BTreeMap::new();
        for (i, card) in k.cards.iter().enumerate() {
            let at = format!("cards[{i}]");
            if card.number == 0 || card.number > deck.size {
                self.p.add(
                    f,
                    format!("{at}.number"),
                    format!("card number {}: cards are numbered 1 to {}", card.number, deck.size),
                );
            }
            if let Some(j) = numbers.insert(card.number, i) {
                self.p.add(f, format!("{at}.number"), format!("card number {} is also cards[{j}]'s", card.number));
            }
            self.reference(f, &format!("{at}.timing"), &card.timing, &timings, "a timing of timings");
            self.reference(f, &format!("{at}.flags"), &card.flags, &flags, "a flag of flags");
            if timings.contains(ON_DRAW) && card.red != (card.timing == ON_DRAW) {
                self.p.add(
                    f,
                    &at,
                    format!(
                        "card '{}': red cards, and only they, have timing {ON_DRAW} (Savannah 4.3: played the \
                        moment they are drawn)",
                        card.id
                    ),
                );
            }
            if let Some(t) = card.turns {
                if t.min.is_none() && t.max.is_none() {
                    self.p.add(f, format!("{at}.turns"), "turns gives min, max or both");
                }
                if let (Some(a), Some(b)) = (t.min, t.max) {
                    if a > b {
                        self.p.add(f, format!("{at}.turns"), format!("turns min {a} is above max {b}"));
                    }
                }
            }
            self.effect_list(f, &format!("{at}.effects"), &card.effects);
        }
        // The printed counts (4.3).
        let count_of = |pick: &dyn Fn(&Card) -> bool| k.cards.iter().filter(|c| pick(c)).count();
        let mut out = Vec::new();
        for (what, counts, defined, of) in [
            ("timing", &deck.timing_counts, &timings, &(|c: &Card| c.timing.clone()) as &dyn Fn(&Card) -> String),
            ("flag", &deck.flag_counts, &flags, &|c: &Card| c.flags.clone()),
        ] {
            let field = format!("deck.{what}_counts");
            let sum: u32 = counts.values().sum();
            if sum != deck.size {
                out.push((field.clone(), format!("the {what} counts add up to {sum}, deck.size is {}", deck.size)));
            }
            for id in defined.iter() {
                if !counts.contains_key(*id) {
                    out.push((
                        field.clone(),
                        format!("no count for {what} '{id}': give every {what} a count, 0 if none"),
                    ));
                }
            }
            for (id, want) in counts {
                if !defined.contains(id.as_str()) {
                    out.push((
                        format!("{field}.{id}"),
                        format!("'{id}' is not a {what} of {what}s; they are: {}", listing(defined.iter())),
                    ));
                    continue;
                }
                let have = count_of(&|c: &Card| of(c) == *id);
                if have != *want as usize {
                    out.push((
                        format!("{field}.{id}"),
                        format!("{what} '{id}': {want} declared, the deck has {have} (Savannah 4.3)"),
                    ));
                }
            }
        }
        let draws = |c: &Card, from: &str| {
            c.effects
                .iter()
                .any(|e| e.effect == DRAW_CARDS && e.params.get("from").and_then(Param::as_word) == Some(from))
        };
        for (field, want, have, what) in [
            ("deck.red", deck.red, count_of(&|c: &Card| c.red), "red must-play cards"),
            (
                "deck.cards_that_draw_from_deck",
                deck.cards_that_draw_from_deck,
                count_of(&|c: &Card| draws(c, FROM_DECK)),
                "cards that draw from the deck",
            ),
            (
                "deck.cards_that_draw_from_opponent",
                deck.cards_that_draw_from_opponent,
                count_of(&|c: &Card| draws(c, FROM_OPPONENT)),
                "cards that draw from the opponent's hand",
            ),
        ] {
            if have != want as usize {
                out.push((field.to_string(), format!("{want} {what} declared, the deck has {have} (Savannah 4.3)")));
            }
        }
        for (field, message) in out {
            self.p.add(f, field, message);
        }
        let d = &k.draw;
        self.scenarios(f, "draw.scenarios", &d.scenarios);
        self.turn_list(f, "draw.turns", &d.turns);
        let mut who: BTreeSet<String> = self.side_refs.iter().map(|s| s.to_string()).collect();
        who.extend(self.ctx.sides.iter().flatten().cloned());
        for (i, s) in d.order.iter().enumerate() {
            self.context_ref(f, &format!("draw.order[{i}]"), s, &Some(who.clone()), "a side or a side reference");
        }
    }
}
