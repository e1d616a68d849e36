//! Verifiable dice, protocol v1 — `shared/design/DICE.md` is normative.
//!
//! Everything here is a pure function of its inputs: the key chain (§1), the
//! orders digest (§3), the step seed (§4) and the roll stream (§5). The
//! `adjutant dice` commands expose each primitive so that anyone can check a
//! roll by hand; `tests/reference/dice_ref.py` is an independent
//! implementation of the same page that the test suite compares against.

use std::fmt;
use std::str::FromStr;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// §1: the domain prefix of the referee's (and each player's) key chain.
pub const CHAIN_DOMAIN: &[u8] = b"adjutant/chain/v1";
/// §4: the domain prefix of a step seed.
pub const SEED_DOMAIN: &[u8] = b"adjutant/seed/v1";
/// §1: the default chain length N.
pub const DEFAULT_CHAIN_LENGTH: u32 = 4096;

/// A 32-byte value of the protocol: a chain key, a digest or a seed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes32(pub [u8; 32]);

impl Bytes32 {
    /// SHA-256 of `data`.
    pub fn sha256(data: &[u8]) -> Self {
        Bytes32(Sha256::digest(data).into())
    }

    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }
}

/// Debug never prints the value: a `Bytes32` may be a secret chain top, and
/// a stray `{:?}` in an error message must not leak it.
impl fmt::Debug for Bytes32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bytes32(..)")
    }
}

impl FromStr for Bytes32 {
    type Err = HexError;

    /// Exactly 64 hexadecimal digits, either case.
    fn from_str(s: &str) -> Result<Self, HexError> {
        let bytes = from_hex(s)?;
        let array: [u8; 32] = bytes.try_into().map_err(|v: Vec<u8>| HexError::Length { digits: v.len() * 2 })?;
        Ok(Bytes32(array))
    }
}

impl Serialize for Bytes32 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Bytes32 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Why a hexadecimal string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    #[error("expected 64 hexadecimal digits (32 bytes), got {digits}")]
    Length { digits: usize },
    #[error("'{found}' at position {position} is not a hexadecimal digit (0-9, a-f)")]
    Digit { found: char, position: usize },
}

pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

fn from_hex(s: &str) -> Result<Vec<u8>, HexError> {
    let mut nibbles = Vec::with_capacity(s.len());
    for (position, c) in s.chars().enumerate() {
        match c.to_digit(16) {
            Some(d) => nibbles.push(d as u8),
            None => return Err(HexError::Digit { found: c, position: position + 1 }),
        }
    }
    if nibbles.len() != 64 {
        return Err(HexError::Length { digits: nibbles.len() });
    }
    Ok(nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// Inputs the protocol cannot encode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error("side name '{0}' is longer than 255 bytes (DICE.md §3 encodes its length in one byte)")]
    SideTooLong(String),
    #[error("side name is empty")]
    SideEmpty,
    #[error("side '{0}' appears twice; a step takes one orders file per side")]
    DuplicateSide(String),
    #[error("game id is longer than 65535 bytes (DICE.md §4 encodes its length in two bytes)")]
    GameIdTooLong,
    #[error("chain length must be at least 1, got {0}")]
    ChainTooShort(u32),
    #[error("step {step} is outside the chain 1..{length}")]
    StepOutsideChain { step: u32, length: u32 },
}

// ---------------------------------------------------------------- §1 chain

/// §1: `s_{i-1} = SHA-256("adjutant/chain/v1" || s_i)`.
pub fn chain_previous(key: &Bytes32) -> Bytes32 {
    let mut h = Sha256::new();
    h.update(CHAIN_DOMAIN);
    h.update(key.0);
    Bytes32(h.finalize().into())
}

/// §1: the whole chain `s_0 ..= s_N` from its top `s_N`, indexed by k.
pub fn chain(top: &Bytes32, length: u32) -> Vec<Bytes32> {
    let mut keys = Vec::with_capacity(length as usize + 1);
    keys.push(*top);
    for _ in 0..length {
        let next = chain_previous(keys.last().expect("chain starts non-empty"));
        keys.push(next);
    }
    keys.reverse();
    keys
}

/// §1: key `s_k` of a chain of length N with top `s_N` (k in 0..=N).
pub fn chain_key(top: &Bytes32, length: u32, k: u32) -> Result<Bytes32, DiceError> {
    if k > length {
        return Err(DiceError::StepOutsideChain { step: k, length });
    }
    let mut key = *top;
    for _ in k..length {
        key = chain_previous(&key);
    }
    Ok(key)
}

/// §2: a revealed key is genuine when it hashes to the key before it.
pub fn key_follows(revealed: &Bytes32, previous: &Bytes32) -> bool {
    chain_previous(revealed) == *previous
}

// ---------------------------------------------------------------- §3 digest

/// §3: one orders file of a step, hashed over its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideHash {
    pub side: String,
    pub hash: Bytes32,
}

impl SideHash {
    pub fn of_bytes(side: &str, bytes: &[u8]) -> Self {
        SideHash { side: side.to_string(), hash: Bytes32::sha256(bytes) }
    }
}

fn check_side(side: &str) -> Result<(), DiceError> {
    if side.is_empty() {
        return Err(DiceError::SideEmpty);
    }
    if side.len() > 255 {
        return Err(DiceError::SideTooLong(side.to_string()));
    }
    Ok(())
}

/// §3 and §4: feed `u8 len(side) || side || value` for each entry, sorted by
/// the side's bytes; one entry per side.
fn hash_by_side(h: &mut Sha256, mut entries: Vec<(&str, &Bytes32)>) -> Result<(), DiceError> {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (i, (side, value)) in entries.iter().enumerate() {
        check_side(side)?;
        if i > 0 && entries[i - 1].0 == *side {
            return Err(DiceError::DuplicateSide(side.to_string()));
        }
        h.update([side.len() as u8]);
        h.update(side.as_bytes());
        h.update(value.0);
    }
    Ok(())
}

/// §3: `SHA-256(for each (side, h) sorted by side bytes: u8 len || side || h)`;
/// with no orders this is `SHA-256("")`.
pub fn orders_digest(files: &[SideHash]) -> Result<Bytes32, DiceError> {
    let mut h = Sha256::new();
    hash_by_side(&mut h, files.iter().map(|f| (f.side.as_str(), &f.hash)).collect())?;
    Ok(Bytes32(h.finalize().into()))
}

// ---------------------------------------------------------------- §4 seed

/// §4 and §7: a player's key `p_j` for this step (mutual mode only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerKey {
    /// The player's label (§7.1): the sides he holds, sorted as bytes and
    /// joined with `+` (`british`, `american+french`).
    pub side: String,
    pub key: Bytes32,
}

/// §7.1: a player's label, the sides he holds sorted as bytes and joined
/// with `+`.
pub fn player_label<S: AsRef<str>>(sides: &[S]) -> String {
    let mut sorted: Vec<&str> = sides.iter().map(AsRef::as_ref).collect();
    sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    sorted.dedup();
    sorted.join("+")
}

/// §4: the step seed.
pub fn step_seed(
    game_id: &str,
    step: u32,
    key: &Bytes32,
    orders_digest: &Bytes32,
    player_keys: &[PlayerKey],
) -> Result<Bytes32, DiceError> {
    let id_len = u16::try_from(game_id.len()).map_err(|_| DiceError::GameIdTooLong)?;
    let mut h = Sha256::new();
    h.update(SEED_DOMAIN);
    h.update(id_len.to_be_bytes());
    h.update(game_id.as_bytes());
    h.update(step.to_be_bytes());
    h.update(key.0);
    h.update(orders_digest.0);
    hash_by_side(&mut h, player_keys.iter().map(|p| (p.side.as_str(), &p.key)).collect())?;
    Ok(Bytes32(h.finalize().into()))
}

// ---------------------------------------------------------------- §5 rolls

/// §5: the dice of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Die {
    D6,
    D10,
    D100,
    /// §5: one card of the n left in a deck, written `cN` (value 1..n, the
    /// n-th in the deck's order): a draw of Random Events cards (Savannah 4.3).
    Cards(u16),
}

impl From<Die> for String {
    fn from(die: Die) -> String {
        die.to_string()
    }
}

impl TryFrom<String> for Die {
    type Error = String;

    fn try_from(s: String) -> Result<Die, String> {
        s.parse()
    }
}

impl Die {
    pub const ALL: [Die; 3] = [Die::D6, Die::D10, Die::D100];

    pub fn faces(self) -> u32 {
        match self {
            Die::D6 => 6,
            Die::D10 => 10,
            Die::D100 => 100,
            Die::Cards(n) => u32::from(n.max(1)),
        }
    }

    /// §5 table: a d10 reads its face 0..9; d6 and d100 read face + 1.
    pub fn value_of_face(self, face: u32) -> u16 {
        match self {
            Die::D10 => face as u16,
            Die::D6 | Die::D100 | Die::Cards(_) => face as u16 + 1,
        }
    }

    pub fn name(self) -> String {
        match self {
            Die::D6 => "d6".into(),
            Die::D10 => "d10".into(),
            Die::D100 => "d100".into(),
            Die::Cards(n) => format!("c{n}"),
        }
    }

    /// The lowest and highest value the die reads.
    pub fn range(self) -> (u16, u16) {
        match self {
            Die::D10 => (0, 9),
            Die::D6 => (1, 6),
            Die::D100 => (1, 100),
            Die::Cards(n) => (1, n.max(1)),
        }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Die {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "d6" => Ok(Die::D6),
            "d10" => Ok(Die::D10),
            "d100" => Ok(Die::D100),
            c => match c.strip_prefix('c').and_then(|n| n.parse::<u16>().ok()) {
                Some(n) if n >= 1 => Ok(Die::Cards(n)),
                _ => Err(format!("unknown die '{s}': the dice are d6, d10 and d100, and cN for one card of N")),
            },
        }
    }
}

/// §5: one step's keystream, read as little-endian u32 words.
pub struct RollStream {
    rng: ChaCha20Rng,
}

impl RollStream {
    /// Key = seed, block counter 0, nonce 0 (the "djb" layout).
    pub fn new(seed: &Bytes32) -> Self {
        RollStream { rng: ChaCha20Rng::from_seed(seed.0) }
    }

    pub fn next_word(&mut self) -> u32 {
        self.rng.next_u32()
    }

    pub fn roll(&mut self, die: Die) -> u16 {
        draw(die, || self.next_word())
    }
}

/// §5: one die by rejection sampling from a source of u32 words, never by a
/// library range helper: `limit = 2^32 - (2^32 mod n)`; words at or above
/// the limit are skipped; the face is `x mod n`.
pub fn draw(die: Die, mut next_word: impl FnMut() -> u32) -> u16 {
    let n = die.faces() as u64;
    let limit = (1u64 << 32) - ((1u64 << 32) % n);
    loop {
        let x = next_word() as u64;
        if x < limit {
            return die.value_of_face((x % n) as u32);
        }
    }
}

/// §5: one logged roll: its index among the step's rolls (from 0), its die,
/// its value and its purpose in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Roll {
    pub index: u32,
    pub die: Die,
    pub value: u16,
    pub purpose: String,
}

/// A step's dice: the stream and the log of every roll drawn from it, in the
/// order the step consumed them.
pub struct StepDice {
    stream: RollStream,
    log: Vec<Roll>,
}

impl StepDice {
    pub fn new(seed: &Bytes32) -> Self {
        StepDice { stream: RollStream::new(seed), log: Vec::new() }
    }

    pub fn roll(&mut self, die: Die, purpose: impl Into<String>) -> u16 {
        let value = self.stream.roll(die);
        let index = self.log.len() as u32;
        self.log.push(Roll { index, die, value, purpose: purpose.into() });
        value
    }

    pub fn log(&self) -> &[Roll] {
        &self.log
    }

    pub fn into_log(self) -> Vec<Roll> {
        self.log
    }
}

/// `count` rolls of one die from a fresh stream of `seed`.
pub fn rolls(seed: &Bytes32, die: Die, count: usize) -> Vec<u16> {
    let mut stream = RollStream::new(seed);
    (0..count).map(|_| stream.roll(die)).collect()
}

// ---------------------------------------------------------------- NdK

/// A dice expression `NdK` of the roll log: N dice of K faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiceExpr {
    pub count: u32,
    pub die: Die,
}

/// The most dice one expression may roll; a typo like `1000000d6` is refused.
pub const MAX_DICE_PER_EXPR: u32 = 1000;

impl FromStr for DiceExpr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let lower = s.trim().to_ascii_lowercase();
        let Some((count, faces)) = lower.split_once('d') else {
            return Err(format!("'{s}' is not a dice expression; write NdK, e.g. 3d10 (K is 6, 10 or 100)"));
        };
        let count: u32 = if count.is_empty() {
            1
        } else {
            count.parse().map_err(|_| format!("'{s}': '{count}' is not a number of dice; write NdK, e.g. 3d10"))?
        };
        if count == 0 || count > MAX_DICE_PER_EXPR {
            return Err(format!("'{s}': the number of dice must be 1 to {MAX_DICE_PER_EXPR}"));
        }
        let die = match faces {
            "6" => Die::D6,
            "10" => Die::D10,
            "100" => Die::D100,
            _ => return Err(format!("'{s}': unknown die d{faces}; the dice are d6, d10 and d100")),
        };
        Ok(DiceExpr { count, die })
    }
}

impl fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.count, self.die)
    }
}

#[cfg(test)]
mod tests {
    //! The test vectors of DICE.md, verbatim.
    use super::*;

    fn b(s: &str) -> Bytes32 {
        s.parse().unwrap()
    }

    #[test]
    fn chain_vectors() {
        let top = Bytes32::sha256(b"example chain top");
        let keys = chain(&top, 3);
        assert_eq!(keys[3].to_hex(), "73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a");
        assert_eq!(keys[2].to_hex(), "9da41ee2ad49ef149e279ec5aca135a11769923ad03a0af54c9380eb74bae581");
        assert_eq!(keys[1].to_hex(), "4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602");
        assert_eq!(keys[0].to_hex(), "bfdd2de3d68eb816db58d9865111a22cc67aa52f2397229ad94fd52ef64ecb29");
        for k in 0..=3 {
            assert_eq!(chain_key(&top, 3, k).unwrap(), keys[k as usize]);
        }
        assert!(key_follows(&keys[1], &keys[0]));
        assert!(!key_follows(&keys[2], &keys[0]));
        assert!(chain_key(&top, 3, 4).is_err());
    }

    fn vector_digest() -> Bytes32 {
        let british = SideHash::of_bytes("british", b"side: british\nmoves: []\n");
        let french = SideHash::of_bytes(
            "french",
            b"side: french\nmoves:\n  - unit: dillon-irish\n    path: [\"2810\", \"2709\"]\n",
        );
        assert_eq!(british.hash.to_hex(), "d62efc46692ed156dd6b6ab16e2d6a56ff319412791d1282439c9809c9b79485");
        assert_eq!(french.hash.to_hex(), "44b579c9ff8fa673eebd76abb482ce107fb65b14a92417b527dfb5268cb538cf");
        // Input order must not matter: §3 sorts by side.
        let d1 = orders_digest(&[british.clone(), french.clone()]).unwrap();
        let d2 = orders_digest(&[french, british]).unwrap();
        assert_eq!(d1, d2);
        d1
    }

    #[test]
    fn digest_vectors() {
        assert_eq!(vector_digest().to_hex(), "acd7c2cbeafbfc20015f1c18111a68b4bb3aed7d9abeec62a880dd368852276b");
        assert_eq!(orders_digest(&[]).unwrap(), Bytes32::sha256(b""));
    }

    #[test]
    fn duplicate_and_long_sides_are_refused() {
        let a = SideHash::of_bytes("british", b"x");
        assert_eq!(orders_digest(&[a.clone(), a]), Err(DiceError::DuplicateSide("british".into())));
        let long = SideHash::of_bytes(&"x".repeat(256), b"x");
        assert!(matches!(orders_digest(&[long]), Err(DiceError::SideTooLong(_))));
        assert_eq!(orders_digest(&[SideHash::of_bytes("", b"")]), Err(DiceError::SideEmpty));
    }

    #[test]
    fn seed_and_roll_vectors() {
        let s1 = b("4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602");
        let seed = step_seed("savannah-demo", 1, &s1, &vector_digest(), &[]).unwrap();
        assert_eq!(seed.to_hex(), "22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780");
        assert_eq!(rolls(&seed, Die::D10, 20), [7, 7, 6, 0, 4, 9, 8, 5, 6, 3, 2, 9, 0, 0, 6, 4, 8, 2, 9, 8]);
        assert_eq!(rolls(&seed, Die::D6, 10), [6, 6, 3, 5, 1, 2, 3, 4, 5, 6]);
        assert_eq!(rolls(&seed, Die::D100, 10), [98, 98, 47, 91, 55, 70, 9, 66, 57, 4]);
    }

    #[test]
    fn mutual_mode_vector() {
        let s1 = b("4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602");
        let p1 = b("12751f0074fa84de26e998c49a2ade7f03cd2eb5fef2f11d0303200f9a18867b");
        let seed =
            step_seed("savannah-demo", 1, &s1, &vector_digest(), &[PlayerKey { side: "french".into(), key: p1 }])
                .unwrap();
        assert_eq!(seed.to_hex(), "c783e4b3464aebc8fb78943e1ef2548d8c1807d52794441ca546256bacab3bbd");
        assert_eq!(rolls(&seed, Die::D10, 10), [8, 1, 0, 2, 8, 7, 1, 8, 1, 5]);
        // p_1 is the french player's key one step above its anchor.
        let anchor = b("f53707eb9eb1806890991be9a3e4bfff6a23da8aa0a2564434d4783b41e386bb");
        assert!(key_follows(&p1, &anchor));
    }

    /// DICE.md "v1.1 vectors": one stream of the referee-mode seed_1, drawn
    /// 3 × d10, 3 × d6, 3 × d100 in that order.
    #[test]
    fn v1_1_mixed_stream_vector() {
        let seed = b("22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780");
        let mut stream = RollStream::new(&seed);
        let dice = [Die::D10, Die::D10, Die::D10, Die::D6, Die::D6, Die::D6, Die::D100, Die::D100, Die::D100];
        let values: Vec<u16> = dice.iter().map(|&d| stream.roll(d)).collect();
        assert_eq!(values, [7, 7, 6, 5, 1, 2, 9, 66, 57]);
    }

    /// DICE.md "v1.1 vectors": rejection at the word level.
    #[test]
    fn v1_1_rejection_vectors() {
        assert_eq!(draw_from(Die::D6, &[0xFFFF_FFFD, 0x0000_000B]), (6, 2));
        assert_eq!(draw_from(Die::D100, &[0xFFFF_FFA0, 0xFFFF_FF9F]), (100, 2));
        assert_eq!(draw_from(Die::D10, &[0xFFFF_FFFA, 0x0000_0007]), (7, 2));
        // The limits the vectors name: the first word is the limit itself.
        for (die, limit) in [(Die::D6, 0xFFFF_FFFCu64), (Die::D100, 0xFFFF_FFA0), (Die::D10, 0xFFFF_FFFA)] {
            let n = die.faces() as u64;
            assert_eq!((1u64 << 32) - ((1u64 << 32) % n), limit, "{die}");
        }
    }

    /// DICE.md "v1.1 vectors": mutual mode with two players, the second
    /// rolling step (j = 2) at journal step k = 5.
    #[test]
    fn v1_1_two_player_mutual_vector() {
        let referee = chain(&Bytes32::sha256(b"example chain of eight"), 8);
        assert_eq!(referee[0].to_hex(), "ca0937cdb695f575988e11b53377d2fd832ab48f63559d62e1f6876ef59b4e24");
        assert_eq!(referee[5].to_hex(), "152fa2a001ef80cccbe9810ea41d31953e003cd03faa3bd67100d1650d8530c4");
        let british = chain(&Bytes32::sha256(b"british player chain top"), 4);
        assert_eq!(british[0].to_hex(), "6eaf07150f84a68bf126299a2cc0929802aa433dd1b6abe210cccbd36d771ed8");
        assert_eq!(british[2].to_hex(), "922acbd74e9d7ea356c2c2c67519167dd5418fb2c6c2a978f36678d3f66fc027");
        let allied = chain(&Bytes32::sha256(b"allied player chain top"), 4);
        assert_eq!(allied[0].to_hex(), "c707c039eb8c9b3c63002d44094c70b932941b99ed672abbc0fd4f8b7d99b969");
        assert_eq!(allied[2].to_hex(), "36fb2437befe0cad65a65c2d0788e250f5f94e68f5f0091c1017c919f4892f23");
        assert_eq!(player_label(&["french", "american"]), "american+french");
        let keys = [
            PlayerKey { side: "british".into(), key: british[2] },
            PlayerKey { side: player_label(&["french", "american"]), key: allied[2] },
        ];
        let seed = step_seed("savannah-demo", 5, &referee[5], &vector_digest(), &keys).unwrap();
        assert_eq!(seed.to_hex(), "e3e468fe0f618591f7be5e12fe8b17fb3c26d9dbf0f98ef0c1cb0d27ab01e9d1");
        assert_eq!(rolls(&seed, Die::D10, 10), [6, 1, 5, 8, 4, 4, 4, 3, 5, 3]);
        // The labels are sorted whatever order the keys come in.
        let reversed = [keys[1].clone(), keys[0].clone()];
        assert_eq!(step_seed("savannah-demo", 5, &referee[5], &vector_digest(), &reversed).unwrap(), seed);
    }

    #[test]
    fn raw_stream_vector() {
        let mut seed = [0u8; 32];
        for (i, x) in seed.iter_mut().enumerate() {
            *x = i as u8;
        }
        let mut stream = RollStream::new(&Bytes32(seed));
        let words: Vec<u32> = (0..5).map(|_| stream.next_word()).collect();
        assert_eq!(words, [0x7d2bfd39, 0x6a19c5d9, 0x7703bd8d, 0x494adcb8, 0x6fd8358a]);
    }

    #[test]
    fn hex_parsing_says_what_is_wrong() {
        assert_eq!("ab".parse::<Bytes32>(), Err(HexError::Length { digits: 2 }));
        let bad = format!("{}g", "0".repeat(63));
        assert_eq!(bad.parse::<Bytes32>(), Err(HexError::Digit { found: 'g', position: 64 }));
        let upper = "4463B3396EE50E86DD2404A78B3DE7ACC715D886FAEB6BA6B64099D1F928A602";
        assert_eq!(upper.parse::<Bytes32>().unwrap().to_hex(), upper.to_ascii_lowercase());
        assert_eq!(format!("{:?}", Bytes32([7; 32])), "Bytes32(..)");
    }

    #[test]
    fn dice_expressions() {
        assert_eq!("3d10".parse::<DiceExpr>(), Ok(DiceExpr { count: 3, die: Die::D10 }));
        assert_eq!("d6".parse::<DiceExpr>(), Ok(DiceExpr { count: 1, die: Die::D6 }));
        assert_eq!("2D100".parse::<DiceExpr>(), Ok(DiceExpr { count: 2, die: Die::D100 }));
        for bad in ["0d10", "3d8", "3x10", "d", "-1d6", "1001d6", "", "3d10d6"] {
            assert!(bad.parse::<DiceExpr>().is_err(), "{bad} should be refused");
        }
    }

    fn draw_from(die: Die, words: &[u32]) -> (u16, usize) {
        let mut used = 0;
        let value = draw(die, || {
            used += 1;
            words[used - 1]
        });
        (value, used)
    }

    #[test]
    fn rejection_sampling_skips_the_biased_top_of_the_range() {
        // d6: 2^32 mod 6 = 4, so the four largest words are rejected.
        assert_eq!(draw_from(Die::D6, &[u32::MAX, u32::MAX - 3, 12]), (1, 3));
        assert_eq!(draw_from(Die::D6, &[u32::MAX - 4]), (((u32::MAX - 4) % 6) as u16 + 1, 1));
        // d10: 2^32 mod 10 = 6; d100: 2^32 mod 100 = 96.
        assert_eq!(draw_from(Die::D10, &[u32::MAX - 5, 9]), (9, 2));
        assert_eq!(draw_from(Die::D10, &[u32::MAX - 6]), (((u32::MAX - 6) % 10) as u16, 1));
        assert_eq!(draw_from(Die::D100, &[u32::MAX - 95, 99]), (100, 2));
        assert_eq!(draw_from(Die::D100, &[u32::MAX - 96]), (((u32::MAX - 96) % 100) as u16 + 1, 1));
    }

    /// §5: `cN`, one card of N: written and read back as `c55`, drawn by
    /// the same rejection sampling, read `face + 1` (1..N).
    #[test]
    fn a_card_die() {
        let die: Die = "c55".parse().unwrap();
        assert_eq!(die, Die::Cards(55));
        assert_eq!(die.to_string(), "c55");
        assert_eq!(die.range(), (1, 55));
        let limit = (1u64 << 32) - ((1u64 << 32) % 55);
        assert_eq!(draw_from(die, &[(limit as u32), 54]), (55, 2));
        assert_eq!(draw_from(die, &[110]), (1, 1));
        let json = serde_json::to_string(&die).unwrap();
        assert_eq!(json, "\"c55\"");
        assert_eq!(serde_json::from_str::<Die>(&json).unwrap(), die);
        assert_eq!(serde_json::from_str::<Die>("\"d10\"").unwrap(), Die::D10);
        assert!("c0".parse::<Die>().is_err() && "d8".parse::<Die>().is_err());
    }
}
