#!/usr/bin/env python3
"""Independent reference implementation of the verifiable dice protocol v1.

Written from the normative spec shared/design/DICE.md alone (not from
the Rust implementation), in Python 3.11 using only the standard library.
Section numbers below ("DICE.md §3") refer to that document.

Usage
-----
    python3 dice_ref.py --self-test
        Check every test vector of DICE.md; print one line per vector and
        exit 0 only if all of them pass.

    python3 dice_ref.py --verify-folder GAME
        Recompute every roll of a game folder (referee or mutual mode)
        from its game.yaml, journal and orders files alone.

    python3 dice_ref.py
        JSON-lines server: one request object per input line, one response
        object per output line, in the same order (see `handle` below).

A player who wants to check rolls by hand only needs the functions
`chain_keys`, `orders_digest`, `step_seed`, `ChaChaStream` and `roll`.
"""

import hashlib
import json
import struct
import sys

# --------------------------------------------------------------------------
# Constants from DICE.md
# --------------------------------------------------------------------------

CHAIN_TAG = b"adjutant/chain/v1"  # §1, §2: domain tag of the key chain
SEED_TAG = b"adjutant/seed/v1"    # §4: domain tag of the step seed
KEY_LEN = 32                      # chain keys, digests and seeds are 32 bytes

MASK32 = 0xFFFFFFFF


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# --------------------------------------------------------------------------
# §1 / §2  The key chain
# --------------------------------------------------------------------------

def chain_prev(key: bytes) -> bytes:
    """s_{i-1} = SHA-256("adjutant/chain/v1" || s_i)   (DICE.md §1)."""
    return sha256(CHAIN_TAG + key)


def chain_keys(top: bytes, length: int) -> list[bytes]:
    """All keys s_0 .. s_N of a chain whose top s_N is `top` and N = length.

    The result is indexed by chain position: result[N] == top and result[0]
    is the anchor s_0 (DICE.md §1).  Step k consumes and reveals result[k]
    (DICE.md §2).
    """
    keys = [top]
    for _ in range(length):
        keys.append(chain_prev(keys[-1]))
    keys.reverse()
    return keys


def verify_revealed_key(key_k: bytes, key_prev: bytes) -> bool:
    """The check of DICE.md §2: SHA-256(tag || s_k) == s_{k-1}."""
    return chain_prev(key_k) == key_prev


# --------------------------------------------------------------------------
# Length-prefixed side entries, shared by §3 and §4
# --------------------------------------------------------------------------

def side_bytes(side: str) -> bytes:
    """A side's name as UTF-8 bytes; it is prefixed with a u8 length."""
    b = side.encode("utf-8")  # raises on lone surrogates -> bad request
    if len(b) > 255:
        raise ValueError(f"side name is {len(b)} bytes, u8 length allows at most 255")
    return b


def sorted_side_entries(pairs: list[tuple[str, bytes]]) -> bytes:
    """Concatenate `u8 len(side) || side || value` for each (side, value)
    pair, sorted by the side's name compared as UTF-8 bytes (§3, §4).

    The spec sorts by side name only; a side appearing twice would make the
    order of its two entries unspecified, so duplicates are rejected.
    """
    encoded = [(side_bytes(side), value) for side, value in pairs]
    encoded.sort(key=lambda e: e[0])  # byte-wise (not Unicode/locale) order
    for a, b in zip(encoded, encoded[1:]):
        if a[0] == b[0]:
            raise ValueError(f"side {a[0].decode('utf-8')!r} appears twice")
    out = bytearray()
    for name, value in encoded:
        out += bytes([len(name)]) + name + value
    return bytes(out)


def player_label(sides: list[str]) -> str:
    """§7.1: a player's label, his sides sorted as bytes and joined with '+'."""
    return "+".join(sorted(set(sides), key=lambda s: s.encode("utf-8")))


# --------------------------------------------------------------------------
# §3  The orders digest
# --------------------------------------------------------------------------

def orders_digest(orders: list[tuple[str, bytes]]) -> tuple[bytes, list[bytes]]:
    """(orders_digest, [h per file in input order]) for (side, file bytes).

    h = SHA-256(file bytes), the bytes exactly as submitted;
    orders_digest = SHA-256(for each (side, h) sorted by side:
                            u8 len(side) || side || h).
    With no orders this is SHA-256("") (the loop adds nothing).
    """
    hashes = [sha256(data) for _, data in orders]
    body = sorted_side_entries([(side, h) for (side, _), h in zip(orders, hashes)])
    return sha256(body), hashes


# --------------------------------------------------------------------------
# §4  The step seed
# --------------------------------------------------------------------------

def step_seed(game_id: str, k: int, key: bytes, digest: bytes,
              player_keys: list[tuple[str, bytes]] = ()) -> bytes:
    """seed_k = SHA-256("adjutant/seed/v1"
                        || u16be len(game_id) || game_id
                        || u32be k
                        || s_k
                        || orders_digest
                        || for each player key sorted by side:
                               u8 len(side) || side || p_k(side))

    Referee mode: `player_keys` is empty.  Mutual mode (§7): one p_k per
    player side.
    """
    gid = game_id.encode("utf-8")
    if len(gid) > 0xFFFF:
        raise ValueError("game_id longer than 65535 bytes (u16 length)")
    if not 0 <= k <= MASK32:
        raise ValueError("step k does not fit in a u32")
    for name, b in (("key", key), ("digest", digest)):
        if len(b) != KEY_LEN:
            raise ValueError(f"{name} must be {KEY_LEN} bytes, got {len(b)}")
    for side, p in player_keys:
        if len(p) != KEY_LEN:
            raise ValueError(f"player key of {side!r} must be {KEY_LEN} bytes, got {len(p)}")
    data = (SEED_TAG
            + struct.pack(">H", len(gid)) + gid
            + struct.pack(">I", k)
            + key
            + digest
            + sorted_side_entries(list(player_keys)))
    return sha256(data)


# --------------------------------------------------------------------------
# §5  The roll stream: ChaCha20, original djb layout
# --------------------------------------------------------------------------
#
# State (16 little-endian u32 words):
#   0..3   "expand 32-byte k"
#   4..11  the 32-byte key (= seed_k)
#   12..13 64-bit block counter, low word first, starting at 0
#   14..15 64-bit nonce, here 0
# 20 rounds (10 double rounds), then the input state is added word-wise.
# The keystream is read as consecutive little-endian u32 words, i.e. the
# 16 output words of block 0, then of block 1, and so on.

SIGMA = struct.unpack("<4I", b"expand 32-byte k")


def chacha20_block(key_words: tuple, counter: int, nonce: int = 0) -> list[int]:
    """One 64-byte ChaCha20 block as 16 u32 words."""
    x = [*SIGMA, *key_words,
         counter & MASK32, (counter >> 32) & MASK32,
         nonce & MASK32, (nonce >> 32) & MASK32]
    init = list(x)

    def qr(a, b, c, d):
        # The ChaCha quarter round, on the state list x.
        xa, xb, xc, xd = x[a], x[b], x[c], x[d]
        xa = (xa + xb) & MASK32; xd ^= xa; xd = ((xd << 16) | (xd >> 16)) & MASK32
        xc = (xc + xd) & MASK32; xb ^= xc; xb = ((xb << 12) | (xb >> 20)) & MASK32
        xa = (xa + xb) & MASK32; xd ^= xa; xd = ((xd << 8) | (xd >> 24)) & MASK32
        xc = (xc + xd) & MASK32; xb ^= xc; xb = ((xb << 7) | (xb >> 25)) & MASK32
        x[a], x[b], x[c], x[d] = xa, xb, xc, xd

    for _ in range(10):
        # column round
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        # diagonal round
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return [(a + b) & MASK32 for a, b in zip(x, init)]


class ChaChaStream:
    """Consecutive little-endian u32 words of the ChaCha20 keystream with
    key = seed, counter from 0, nonce 0 (DICE.md §5).  Blocks are computed
    lazily, one at a time, and each block is computed only once.
    """

    def __init__(self, seed: bytes):
        if len(seed) != KEY_LEN:
            raise ValueError(f"seed must be {KEY_LEN} bytes, got {len(seed)}")
        self.key_words = struct.unpack("<8I", seed)
        self.counter = 0     # next block to compute
        self.buf = []        # words of the current block
        self.pos = 0         # next unread word in buf
        self.index = 0       # index of the next word in the whole stream

    def next_u32(self) -> int:
        if self.pos == len(self.buf):
            self.buf = chacha20_block(self.key_words, self.counter)
            self.counter += 1
            self.pos = 0
        w = self.buf[self.pos]
        self.pos += 1
        self.index += 1
        return w


# Die name -> (faces n, offset added to face)   (table of DICE.md §5)
DICE = {
    "d10": (10, 0),    # 0..9, 0 is zero
    "d6": (6, 1),      # 1..6
    "d100": (100, 1),  # 1..100, 100 is read "00"
}


def draw_face(stream: ChaChaStream, n: int) -> int:
    """Rejection sampling (DICE.md §5):
        limit = 2^32 - (2^32 mod n)
        repeat x = next u32 until x < limit
        face  = x mod n
    """
    limit = 2**32 - (2**32 % n)
    while True:
        x = stream.next_u32()
        if x < limit:
            return x % n


def die_faces(die: str) -> tuple[int, int]:
    """(faces n, offset) of a die by name: the table of DICE.md §5, and
    "cN", one card of the N left in a deck, read 1..N (N from 1 to 65535)."""
    if die in DICE:
        return DICE[die]
    if die.startswith("c") and die[1:].isdigit() and die[1:] == str(int(die[1:])) and 1 <= int(die[1:]) <= 65535:
        return (int(die[1:]), 1)
    raise KeyError(die)


def roll(stream: ChaChaStream, die: str) -> int:
    """Draw one die by name ("d6", "d10", "d100", "cN") from the stream."""
    n, offset = die_faces(die)
    return draw_face(stream, n) + offset


def roll_list(seed: bytes, dice: list[str]) -> list[int]:
    """The values of `dice`, drawn in order from one fresh stream of `seed`."""
    stream = ChaChaStream(seed)
    return [roll(stream, d) for d in dice]


# --------------------------------------------------------------------------
# Self-test: the test vectors at the end of DICE.md
# --------------------------------------------------------------------------

def H(s: str) -> bytes:
    return bytes.fromhex(s)


def self_test() -> int:
    failures = 0

    def check(name, got, want):
        nonlocal failures
        if got == want:
            print(f"ok {name}")
        else:
            failures += 1
            show = lambda v: v.hex() if isinstance(v, bytes) else v
            print(f"FAIL {name}: got {show(got)}, want {show(want)}")

    # Chain, s_3 = SHA-256("example chain top")
    want_chain = {
        3: "73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a",
        2: "9da41ee2ad49ef149e279ec5aca135a11769923ad03a0af54c9380eb74bae581",
        1: "4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602",
        0: "bfdd2de3d68eb816db58d9865111a22cc67aa52f2397229ad94fd52ef64ecb29",
    }
    chain = chain_keys(sha256(b"example chain top"), 3)
    for i in (3, 2, 1, 0):
        check(f"chain s_{i}", chain[i], H(want_chain[i]))
    s_1 = chain[1]

    # Orders (DICE.md §3)
    british = b"side: british\nmoves: []\n"
    french = (b'side: french\nmoves:\n  - unit: dillon-irish\n'
              b'    path: ["2810", "2709"]\n')
    check("orders british is 24 bytes", len(british), 24)
    digest, (h_b, h_f) = orders_digest([("british", british), ("french", french)])
    check("h(british)", h_b, H("d62efc46692ed156dd6b6ab16e2d6a56ff319412791d1282439c9809c9b79485"))
    check("h(french)", h_f, H("44b579c9ff8fa673eebd76abb482ce107fb65b14a92417b527dfb5268cb538cf"))
    check("orders_digest", digest, H("acd7c2cbeafbfc20015f1c18111a68b4bb3aed7d9abeec62a880dd368852276b"))
    # input order must not matter
    digest_rev, _ = orders_digest([("french", french), ("british", british)])
    check("orders_digest (input reversed)", digest_rev, digest)
    check("orders_digest (no orders)", orders_digest([])[0], sha256(b""))

    # Step seed, referee mode (DICE.md §4)
    seed_1 = step_seed("savannah-demo", 1, s_1, digest)
    check("seed_1 referee mode", seed_1,
          H("22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780"))

    # Rolls, each list from a fresh stream of seed_1 (DICE.md §5)
    check("20 x d10", roll_list(seed_1, ["d10"] * 20),
          [7, 7, 6, 0, 4, 9, 8, 5, 6, 3, 2, 9, 0, 0, 6, 4, 8, 2, 9, 8])
    check("10 x d6", roll_list(seed_1, ["d6"] * 10), [6, 6, 3, 5, 1, 2, 3, 4, 5, 6])
    check("10 x d100", roll_list(seed_1, ["d100"] * 10), [98, 98, 47, 91, 55, 70, 9, 66, 57, 4])

    # Mutual mode (DICE.md §7)
    p_1 = H("12751f0074fa84de26e998c49a2ade7f03cd2eb5fef2f11d0303200f9a18867b")
    anchor = H("f53707eb9eb1806890991be9a3e4bfff6a23da8aa0a2564434d4783b41e386bb")
    seed_m = step_seed("savannah-demo", 1, s_1, digest, [("french", p_1)])
    check("seed_1 mutual mode", seed_m,
          H("c783e4b3464aebc8fb78943e1ef2548d8c1807d52794441ca546256bacab3bbd"))
    check("mutual 10 x d10", roll_list(seed_m, ["d10"] * 10), [8, 1, 0, 2, 8, 7, 1, 8, 1, 5])

    # v1.1 vectors: one stream of seed_1, 3 x d10, 3 x d6, 3 x d100
    check("v1.1 mixed stream", roll_list(seed_1, ["d10"] * 3 + ["d6"] * 3 + ["d100"] * 3),
          [7, 7, 6, 5, 1, 2, 9, 66, 57])

    # v1.1 vectors: rejection at the word level
    class Words:
        def __init__(self, words):
            self.words = iter(words)

        def next_u32(self):
            return next(self.words)

    check("v1.1 d6 rejection", roll(Words([0xFFFFFFFD, 0x0000000B]), "d6"), 6)
    check("v1.1 d100 rejection", roll(Words([0xFFFFFFA0, 0xFFFFFF9F]), "d100"), 100)
    check("v1.1 d10 rejection", roll(Words([0xFFFFFFFA, 0x00000007]), "d10"), 7)

    # v1.1 vectors: mutual mode, two players, k = 5, j = 2
    referee = chain_keys(sha256(b"example chain of eight"), 8)
    british_chain = chain_keys(sha256(b"british player chain top"), 4)
    allied_chain = chain_keys(sha256(b"allied player chain top"), 4)
    check("v1.1 referee anchor", referee[0],
          H("ca0937cdb695f575988e11b53377d2fd832ab48f63559d62e1f6876ef59b4e24"))
    check("v1.1 s_5", referee[5], H("152fa2a001ef80cccbe9810ea41d31953e003cd03faa3bd67100d1650d8530c4"))
    check("v1.1 british p_0", british_chain[0],
          H("6eaf07150f84a68bf126299a2cc0929802aa433dd1b6abe210cccbd36d771ed8"))
    check("v1.1 british p_2", british_chain[2],
          H("922acbd74e9d7ea356c2c2c67519167dd5418fb2c6c2a978f36678d3f66fc027"))
    check("v1.1 allied p_0", allied_chain[0],
          H("c707c039eb8c9b3c63002d44094c70b932941b99ed672abbc0fd4f8b7d99b969"))
    check("v1.1 allied p_2", allied_chain[2],
          H("36fb2437befe0cad65a65c2d0788e250f5f94e68f5f0091c1017c919f4892f23"))
    check("v1.1 label", player_label(["french", "american"]), "american+french")
    seed_5 = step_seed("savannah-demo", 5, referee[5], digest,
                       [("british", british_chain[2]),
                        (player_label(["french", "american"]), allied_chain[2])])
    check("v1.1 seed_5 mutual two players", seed_5,
          H("e3e468fe0f618591f7be5e12fe8b17fb3c26d9dbf0f98ef0c1cb0d27ab01e9d1"))
    check("v1.1 mutual 10 x d10", roll_list(seed_5, ["d10"] * 10), [6, 1, 5, 8, 4, 4, 4, 3, 5, 3])

    # Raw stream check (DICE.md test vectors, last paragraph)
    stream = ChaChaStream(bytes(range(32)))
    check("raw stream words", [stream.next_u32() for _ in range(5)],
          [0x7D2BFD39, 0x6A19C5D9, 0x7703BD8D, 0x494ADCB8, 0x6FD8358A])

    # Not a DICE.md vector: the rejection branch of §5 is never hit by the
    # vectors above (odds ~1e-9 per draw), so feed it fixed words.  For a d10
    # limit = 2^32 - 6: 0xFFFFFFFF and 0xFFFFFFFA are rejected, and
    # 0xFFFFFFF9 = 4294967289 is accepted, giving face 9.
    class FixedWords:
        def __init__(self, words):
            self.words = iter(words)

        def next_u32(self):
            return next(self.words)

    check("rejection sampling (own check, not in DICE.md)",
          roll(FixedWords([0xFFFFFFFF, 0xFFFFFFFA, 0xFFFFFFF9]), "d10"), 9)

    # Informational: where do p_1 and the anchor sit in the French chain?
    report_french_chain(p_1, anchor)

    print("all ok" if failures == 0 else f"{failures} FAILED")
    return 0 if failures == 0 else 1


def report_french_chain(p_1: bytes, anchor: bytes, max_steps: int = 10000) -> None:
    """Walk down from top = SHA-256("french player chain top") and report
    after how many hash steps p_1 and the anchor appear (not a pass/fail)."""
    key = sha256(b"french player chain top")
    found = {}
    for steps in range(max_steps + 1):
        for name, target in (("p_1", p_1), ("anchor", anchor)):
            if key == target and name not in found:
                found[name] = steps
        if len(found) == 2:
            break
        key = chain_prev(key)
    parts = []
    for name in ("p_1", "anchor"):
        if name in found:
            parts.append(f"{name} is {found[name]} hash step(s) below the top")
        else:
            parts.append(f"{name} NOT on the chain within {max_steps} steps")
    line = "info french chain: " + "; ".join(parts)
    if len(found) == 2:
        n = found["anchor"]
        line += (f" => chain length N = {n}, p_1 is s_{n - found['p_1']}"
                 + (" (consistent)" if found["anchor"] - found["p_1"] == 1
                    else " (p_1 is NOT s_1 of that chain)"))
    print(line)


# --------------------------------------------------------------------------
# JSON-lines server
# --------------------------------------------------------------------------

class BadRequest(Exception):
    pass


MAX_COUNT = 1_000_000  # guard against absurd requests


def get(req: dict, field: str, kind):
    if field not in req:
        raise BadRequest(f"missing field {field!r}")
    v = req[field]
    # bool is a subclass of int in Python; never accept true/false as a number
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise BadRequest(f"field {field!r} must be an integer")
    if kind is not int and not isinstance(v, kind):
        raise BadRequest(f"field {field!r} must be a {kind.__name__}")
    return v


def get_hex(obj: dict, field: str, length: int | None = None) -> bytes:
    s = get(obj, field, str)
    try:
        b = bytes.fromhex(s)  # accepts upper and lower case
    except ValueError:
        raise BadRequest(f"field {field!r} is not valid hex")
    if len(s) != 2 * len(b):  # fromhex tolerates inner whitespace; we do not
        raise BadRequest(f"field {field!r} is not valid hex")
    if length is not None and len(b) != length:
        raise BadRequest(f"field {field!r} must be {length} bytes, got {len(b)}")
    return b


def get_count(req: dict, field: str = "count") -> int:
    n = get(req, field, int)
    if not 0 <= n <= MAX_COUNT:
        raise BadRequest(f"field {field!r} must be between 0 and {MAX_COUNT}")
    return n


def get_die(name) -> str:
    try:
        if isinstance(name, str):
            die_faces(name)
            return name
    except KeyError:
        pass
    raise BadRequest(f"unknown die {name!r} (expected d6, d10, d100 or cN)")


def get_side_list(req: dict, field: str, value_field: str, length: int | None) -> list:
    items = get(req, field, list)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise BadRequest(f"{field}[{i}] must be an object")
        out.append((get(item, "side", str), get_hex(item, value_field, length)))
    return out


def handle(req) -> dict:
    if not isinstance(req, dict):
        raise BadRequest("request must be a JSON object")
    op = get(req, "op", str)

    if op == "chain":
        top = get_hex(req, "top", KEY_LEN)
        keys = chain_keys(top, get_count(req, "length"))
        return {"keys": [k.hex() for k in keys]}

    if op == "digest":
        orders = get_side_list(req, "orders", "bytes_hex", None)
        digest, hashes = orders_digest(orders)
        return {"digest": digest.hex(), "hashes": [h.hex() for h in hashes]}

    if op == "seed":
        seed = step_seed(get(req, "game_id", str),
                         get(req, "step", int),
                         get_hex(req, "key", KEY_LEN),
                         get_hex(req, "digest", KEY_LEN),
                         get_side_list(req, "player_keys", "key", KEY_LEN)
                         if "player_keys" in req else [])
        return {"seed": seed.hex()}

    if op == "rolls":
        seed = get_hex(req, "seed", KEY_LEN)
        die = get_die(get(req, "die", str))
        return {"values": roll_list(seed, [die] * get_count(req))}

    if op == "mixed":
        seed = get_hex(req, "seed", KEY_LEN)
        dice = [get_die(d) for d in get(req, "dice", list)]
        if len(dice) > MAX_COUNT:
            raise BadRequest("too many dice")
        return {"values": roll_list(seed, dice)}

    if op == "words":
        stream = ChaChaStream(get_hex(req, "seed", KEY_LEN))
        return {"words": [stream.next_u32() for _ in range(get_count(req))]}

    raise BadRequest(f"unknown op {op!r}")


def serve() -> int:
    # Read bytes and decode ourselves so invalid UTF-8 on one line is an
    # error for that line only, not a crash.
    out = sys.stdout
    for raw in sys.stdin.buffer:
        try:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise BadRequest("line is not valid UTF-8")
            try:
                req = json.loads(line)
            except json.JSONDecodeError as e:
                raise BadRequest(f"invalid JSON: {e}")
            resp = handle(req)
        except BadRequest as e:
            resp = {"error": str(e)}
        except (ValueError, UnicodeError) as e:  # e.g. side > 255 bytes, lone surrogate
            resp = {"error": str(e)}
        except Exception as e:  # never die on one bad line
            resp = {"error": f"internal error: {type(e).__name__}: {e}"}
        try:
            out.write(json.dumps(resp, separators=(",", ":")) + "\n")
            out.flush()
        except BrokenPipeError:  # the reader went away; stop quietly
            sys.stderr.close()
            return 0
    return 0


# --------------------------------------------------------------------------
# A game folder, from its files alone (DICE.md §6.1-§6.3 and §7.5)
# --------------------------------------------------------------------------

def read_yaml_subset(text: str) -> dict:
    """Read the part of a journal entry (adjutant's canonical YAML) that
    the dice need: top-level `key: scalar` lines, and top-level lists of
    mappings (`- k: v` then `  k: v`), of which only the scalar fields at
    the item's own level are kept (anything deeper, as in events, is
    skipped).  Scalars are kept as the text written, quotes removed."""
    def scalar(v: str) -> str:
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        return v

    out: dict = {}
    items = None
    for line in text.split("\n"):
        if not line.strip():
            continue
        if line.startswith("- "):
            if items is not None:
                items.append({})
                k, _, v = line[2:].partition(":")
                if v.strip():
                    items[-1][k.strip()] = scalar(v)
            continue
        if line.startswith(" "):
            inner = line[2:]
            if items and line.startswith("  ") and not inner.startswith((" ", "- ")):
                k, _, v = inner.partition(":")
                if v.strip():
                    items[-1][k.strip()] = scalar(v)
            continue
        k, _, v = line.partition(":")
        if v.strip() == "[]":
            out[k.strip()] = []
            items = None
        elif v.strip():
            out[k.strip()] = scalar(v)
            items = None
        else:
            items = []
            out[k.strip()] = items
    return out


def verify_folder(root: str) -> int:
    """Recompute every roll of a game folder from its files alone: each
    revealed key against the chain (§6.1; each player's key p_j against his
    chain, §7.5), each orders file's hash and the digest (§6.2), each seed
    over every player's key under his label (§4) and every roll (§6.3).
    Prints one line and returns 0 when all agree."""
    import os
    game_text = open(os.path.join(root, "game.yaml"), encoding="utf-8").read()
    game_id = None
    anchor = None
    players: dict = {}
    section = None
    label = None
    for line in game_text.split("\n"):
        if line.startswith("game_id:"):
            game_id = line.split(":", 1)[1].strip().strip("'\"")
        if not line.startswith(" ") and line.strip():
            section = line.split(":", 1)[0]
        if section == "dice":
            if line.startswith("  anchor:"):
                anchor = bytes.fromhex(line.split(":", 1)[1].strip())
            if line.startswith("  - label:"):
                label = line.split(":", 1)[1].strip().strip("'\"")
            if line.startswith("    anchor:") and label is not None:
                players[label] = bytes.fromhex(line.split(":", 1)[1].strip())
    if game_id is None or anchor is None:
        print("FAIL game.yaml: no game_id or dice anchor")
        return 1
    journal = os.path.join(root, "journal")
    names = sorted(n for n in os.listdir(journal) if n.endswith(".yaml"))
    previous_key = anchor
    last_player_key = dict(players)
    rolling = 0
    total_rolls = 0
    for name in names:
        entry = read_yaml_subset(open(os.path.join(journal, name), encoding="utf-8").read())
        where = f"journal/{name}"
        k = int(entry["step"])
        key = bytes.fromhex(entry["key"])
        if chain_prev(key) != previous_key:
            print(f"FAIL {where}: the key does not hash to the key before it")
            return 1
        previous_key = key
        orders = []
        for record in entry.get("orders", []):
            data = open(os.path.join(root, record["file"]), "rb").read()
            if sha256(data).hex() != record["sha256"]:
                print(f"FAIL {where}: {record['file']} does not hash to its record")
                return 1
            orders.append((record["side"], data))
        digest, _ = orders_digest(orders)
        if digest.hex() != entry["orders_digest"]:
            print(f"FAIL {where}: the orders digest differs")
            return 1
        keys = [(p["label"], bytes.fromhex(p["key"])) for p in entry.get("player_keys", [])]
        if keys:
            j = int(entry["rolling_step"])
            if j != rolling + 1 or sorted(l for l, _ in keys) != sorted(players):
                print(f"FAIL {where}: rolling step {j} or its players' keys are not in order")
                return 1
            for lbl, pkey in keys:
                if chain_prev(pkey) != last_player_key[lbl]:
                    print(f"FAIL {where}: {lbl}'s key p_{j} does not hash to his key before it")
                    return 1
                last_player_key[lbl] = pkey
            rolling = j
        elif players and entry.get("rolls"):
            print(f"FAIL {where}: a step that rolled without every player's key")
            return 1
        seed = step_seed(game_id, k, key, digest, keys)
        if seed.hex() != entry["seed"]:
            print(f"FAIL {where}: the seed recomputes to {seed.hex()}")
            return 1
        stream = ChaChaStream(seed)
        for n, r in enumerate(entry.get("rolls", [])):
            value = roll(stream, r["die"])
            if int(r["index"]) != n or value != int(r["value"]):
                print(f"FAIL {where}: roll {n} is logged as {r['value']}, the seed gives {value}")
                return 1
            total_rolls += 1
    print(f"ok {len(names)} steps, {total_rolls} rolls, {rolling} rolling steps with {len(players)} players' keys")
    return 0


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) == 2 and argv[0] == "--verify-folder":
        return verify_folder(argv[1])
    if argv:
        print("usage: dice_ref.py [--self-test | --verify-folder GAME]", file=sys.stderr)
        return 2
    return serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
