//! The command line: clap types only.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const MAIN_EXAMPLES: &str = "\
Examples:
  adjutant demo                                   watch a game's dice being rolled and verified
  adjutant roll init --dir rolls                  start a verifiable roll log; send its anchor to your opponent
  adjutant roll 3d10 --purpose \"to-hit, Fraser's at 1404\" --dir rolls
  adjutant verify --dir rolls                     recompute every roll of the log
  adjutant new savannah-1779 --scenario historical --dir mygame --player british=\"Ann <ann@example.org>\"

Exit status: 0 ok, 1 the input was refused (an invalid file, a failed verification),
2 usage, I/O or data error.";

#[derive(Debug, Parser)]
#[command(
    name = "adjutant",
    version,
    about = "A referee for board wargames played by email, with dice anyone can verify",
    long_about = "adjutant referees board wargames played by email: it checks orders files, resolves \
each phase with dice that anyone can recompute afterwards, and writes the turn reports.\n\n\
Its dice follow a published protocol (DICE.md): before any orders exist, the referee commits to a \
chain of secret keys by publishing its last link, the anchor; each step reveals the next key, and \
the step's rolls come from that key and the exact bytes of the orders.",
    after_help = MAIN_EXAMPLES
)]
pub struct Cli {
    /// Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `--wait`, on the commands that lock a folder (the others touch none).
#[derive(Debug, Args)]
pub struct Wait {
    /// Seconds to wait for another adjutant command working on the same folder.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub wait: u64,
}

impl Wait {
    pub fn duration(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.wait)
    }
}

/// `report --as`: the report's format. JSON is asked for with `--format
/// json`, as everywhere; `--as json` is kept as a hidden alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportAs {
    Text,
    Markdown,
    Html,
    #[value(hide = true)]
    Json,
}

/// `mail --transport`: how the messages leave (game.yaml's mail.transport).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// An SMTP server (mail.host).
    Smtp,
    /// The local sendmail binary.
    Sendmail,
    /// .eml files in a folder, sent by nobody.
    Folder,
}

/// `mail --security`: how the SMTP connection is protected (mail.security).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Security {
    /// Plain connection upgraded with STARTTLS (port 587).
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption: only to a server on this machine (loopback).
    None,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a game folder for a module's scenario and print its dice anchor.
    #[command(after_help = "\
Examples:
  adjutant new savannah-1779 --scenario historical --dir savannah \\
      --player british=\"Ann Smith <ann@example.org>\" \\
      --player french=\"Bob <bob@example.org>\" --player american=\"Bob <bob@example.org>\"

The folder gets game.yaml, an empty journal, orders/ and reports/, and the secret
chain top in .secret/ (mode 0600): never publish or mail that folder.")]
    New(NewArgs),

    /// Roll verifiable dice into a roll log (or start one with `roll init`).
    #[command(after_help = "\
Examples:
  adjutant roll init --dir rolls
  adjutant roll 3d10 --purpose \"to-hit, Fraser's at 1404\" --dir rolls
  adjutant roll 1d6 2d10 --purpose \"weather and initiative, turn 3\" --dir rolls

Each roll is one step: the purpose text is the step's orders (side 'purpose'), its
key is the next key of the chain, and the rolls come from the step seed (DICE.md).")]
    Roll(RollArgs),

    /// Record a player's dice anchor in a game in mutual mode, before its first step.
    #[command(after_help = "\
Examples:
  adjutant join --dir savannah british=6eaf07150f84a68bf126299a2cc0929802aa433dd1b6abe210cccbd36d771ed8:4096

In mutual mode (`new --mode mutual`, DICE.md 7) each player draws a key chain of
his own on his own machine (`adjutant dice chain --top TOP --length M` prints it)
and sends its anchor p_0; the label is the sides he holds, sorted and joined with
'+'. No step resolves until every side's player has joined. A chain too short
for the scenario's steps is refused (there is no rollover).")]
    Join(JoinArgs),

    /// Resolve every step of a game whose orders are in, and print what happened.
    #[command(after_help = "\
Examples:
  adjutant resolve --dir savannah 16-french-movement.yaml 16-american-movement.yaml
  adjutant resolve --dir savannah          steps that take no orders (rally, victory) resolve by themselves

Each step is checked whole before anything is written; the orders files are
stored byte for byte in orders/, and the journal records the revealed key,
every roll and what happened. The steps one resolve makes get one dispatch of
reports, reports/FIRST-LAST/: each side's report in text, Markdown, HTML and JSON
and the map (map.svg); `adjutant mail` sends them to the players.")]
    Resolve(ResolveArgs),

    /// Store a side's orders file in the game's inbox, or its standing orders, and print a receipt.
    #[command(after_help = "\
Examples:
  adjutant submit --dir savannah 16-french-movement.yaml
  adjutant submit --dir savannah --replace 16-french-movement.yaml
  adjutant submit --dir savannah - < orders.yaml
  adjutant submit --dir savannah --standing british-standing.yaml
  adjutant submit --dir savannah --standing --withdraw --side british

  adjutant submit --dir savannah --email --reply - < message.eml   a raw email (procmail)

The file is kept byte for byte in inbox/ until its step is resolved (`resolve`
takes it then). Orders for the step the game awaits are checked whole now, as
`validate` does; orders for a later step (sent ahead) have their game, turn, step
and side checked now and the rest when the step comes. A file for another game,
a step already resolved, a side the step does not hear from, or a second file for
the same step (without --replace) is refused and nothing changes. The receipt
gives the file's SHA-256, which the journal and the dice will bind to.

With --standing, FILE is a side's standing orders (game, side, and under
`standing:` a step's name without its turn and its orders), kept as
standing/<side>.yaml: whenever such a step awaits the side and it has sent no
orders for it, `resolve` writes its orders from them. A step that is not one of
the scenario's, a step that takes no orders from the side or a key the step does
not know is refused; the rest is checked when the step comes.

With --email the input is a whole email message (RFC 5322), as procmail or
fetchmail pipe it: the orders are its YAML attachments (*.yaml, *.yml) or *.txt
attachments holding a line `game:`, one file per side (a player who holds several
sides sends them in one message), or else its plain-text body: from the line
`game:` (a greeting before it is left out) to the last field (a signature after
it, with or without a '-- ' line, is left out), quoted '>' lines left out; or a
forwarded message's. The bytes used are the bytes stored and hashed, and the
mailed receipt quotes them. The sender's address must be the one game.yaml gives
the side the orders are for. With --reply the receipt or the refusal is mailed
back (game.yaml's mail settings), but only to a player's address: a stranger gets
no answer. A message whose orders file has a `standing:` section is taken as the
side's standing orders. The message has one From with one address; the domain is
compared in any case, the part before the @ exactly.

By mail, players manage their own orders: a newer message for a step not yet
resolved replaces the side's earlier file, newer meaning later to arrive here
(no Date header or clock is read); the same bytes again change nothing. A message
`game: G`, `side: S`, `withdraw: STEP` (or `withdraw: standing`) withdraws orders
sent ahead, orders for the awaited step, or standing orders. Files replaced or
withdrawn, and refused messages, are kept in kept/superseded/, kept/withdrawn/
and kept/refused/, numbered in order of arrival, each with a .reason file beside
it; kept/refused/ keeps at most 1000 messages and 64 MiB (past that a refusal is
answered but the message not kept, until the referee empties it). In mutual mode a file once in is never replaced or withdrawn (DICE.md A5).

Limits (every path alike): an orders file is at most 1 MiB of UTF-8 text, nested
at most 64 deep; a message at most 10 MiB. Nothing past a limit is read; a UTF-8
byte order mark is skipped when parsing and kept in the bytes hashed. The first
50 problems are listed, the rest counted. Refused input exits 1.")]
    Submit(SubmitArgs),

    /// Mail each side's reports of the resolved steps to its player.
    #[command(after_help = "\
Examples:
  adjutant mail --dir savannah                   every dispatch not yet mailed
  adjutant mail --dir savannah --dry-run         show what would be sent, send nothing
  adjutant mail --dir savannah --dispatch 000003-000007 --side british   send one again
  adjutant mail --dir savannah --transport folder --from \"Referee <ref@example.org>\"

Each `resolve` writes a dispatch of reports (reports/000003-000007/). A side's
message has its text report as the body and the report in HTML as its
alternative, showing the map after the last step once: a 900-pixel PNG of 64
colours sent beside it. It attaches what game.yaml's `mail: attachments:` lists:
template (the default: the next orders the player owes, ready to edit and send
back), json (the report's data), svg and png (the full map; each takes a mail of
the Historical Scenario past 300 KB). Messages sent are recorded in mailed.yaml,
so each dispatch goes once to each side (twice only when mail is killed between
sending a message and recording it). With `digest: true` a side's reports wait
until it owes orders (or the game ends), then go in one mail: every step since
its last mail, as `adjutant report --steps A-B` renders them.

The settings are game.yaml's `mail:` section (flags override its fields):

  mail:
    from: Referee <referee@example.org>
    transport: smtp            # smtp, sendmail or folder (.eml files)
    host: smtp.example.org
    security: starttls         # starttls (587), tls (465), none (loopback only)
    username: referee@example.org
    password_env: ADJUTANT_SMTP_PASSWORD     # or password_command: [pass, smtp]
    attachments: [template, json]            # also svg, png
    digest: true               # a mail per side when it owes orders (default: false)

A password is never written in game.yaml: only where to read it from.")]
    Mail(MailArgs),

    /// Apply the game's deadlines (from cron): remind, write default orders for a missed deadline, resolve, mail.
    #[command(after_help = "\
Examples:
  adjutant tick --dir savannah
  adjutant tick --dir savannah --now 2026-12-05T10:00:00Z      a fake clock (tests, a dry look ahead)
  ADJUTANT_NOW=2026-12-05T10:00:00Z adjutant tick --dir savannah

  */10 * * * *  cd /home/referee/games && adjutant tick --dir savannah >> savannah/tick.log 2>&1

game.yaml's `deadlines:` section says when orders are due (the times are UTC):

  deadlines:
    default: {after: 48h, grace: 6h, remind: 12h}
    steps:                    # a step's name without its turn
      initiative: {after: 24h}

A step's clock starts when tick first sees it awaited. `remind` before the
deadline, each side still owing orders is mailed a reminder once. At the
deadline, each side still owing orders (no file in, no standing orders for the
step) gets the least orders of `adjutant template` written into inbox/ for it,
marked on their first line as written for the side, not by it, with the
deadline and the time read; the side is mailed them. The side's own file, if it
arrives before the step is resolved, replaces them; until then `status` shows
the side as defaulted, not as in. At the deadline plus `grace`, tick resolves
the step with them (a plain `resolve` never does); the journal's record of the
file says `default: true` and the reports mark it as written for the side, not
by it. Then tick mails the reports (when game.yaml has a `mail:` section) and
starts the next step's clock. What tick saw and did is kept in ticks.yaml; the default orders
file itself, which the journal hashes, records the decision, so `verify` needs
no clock.

Mutual mode (DICE.md 7.4, docs/DICE.md A8 and A11) adds a reveal deadline:

  deadlines:
    default: {after: 48h, grace: 6h}
    reveal: 2d                # every key p_j is due 2 days after its step is sealed

tick starts a rolling step's key clock when it first sees the step sealed. At
the reveal deadline, if a key is still owed, tick journals a forfeit by the
withholding player's sides (no step resolved, no die rolled): the game is over,
its result is the game's rule for a forfeit (in Savannah the forfeiting
player's alliance loses), and the entry's reports tell every player. At an
orders deadline a side that has not committed gets the least orders, written
and committed by tick; they stand. A side that committed and has not sent its
file forfeits `grace` after the deadline (or after tick first saw every
commitment in, if later).

The time is --now, else the environment variable ADJUTANT_NOW, else the system
clock, each written 2026-12-03T10:00:00Z.")]
    Tick(TickArgs),

    /// Mail each player, before any orders, what he plays and how to play by mail.
    #[command(after_help = "\
Examples:
  adjutant welcome --dir savannah
  adjutant welcome --dir savannah --dry-run       show the messages, send nothing

Each player with an address in game.yaml gets one message: the game, its
anchor (the dice's commitment: keep it, `verify` checks every roll against it),
the sides and their players, the side he plays, where and how to send orders,
the deadlines, how to correct and withdraw orders by mail, and the template of
the first step he owes, attached ready to edit and send back. The mail settings
are game.yaml's `mail:` section (see `adjutant mail --help`).")]
    Welcome(WelcomeArgs),

    /// A side's report of resolved steps: events, rolls, keys, orders hashes, the map.
    #[command(after_help = "\
Examples:
  adjutant report --dir savannah --side british                 the last step, as text
  adjutant report --dir savannah --side french --steps 1-4 --as html > turn16.html
  adjutant report --dir savannah --referee --format json

A side's report leaves out what it may not see (another side's cards in hand, events
marked for other sides). Formats: --as text, markdown or html (a whole page with the
map inline); --format json gives the JSON report (docs/report-schema.md), as it gives
every command's results in JSON (`--as json`, its older spelling, still works). A game
folder's own templates/ folder overrides the built-in templates of the same name
(templates/README.md).")]
    Report(ReportArgs),

    /// Where a game stands: turn, step, who is awaited, morale, VPs, momentum, weather.
    #[command(after_help = "\
Examples:
  adjutant status --dir savannah
  adjutant status --dir savannah --format json

The sides awaited are marked: in (its own file arrived), standing orders (they cover the
step), default orders (written for the side at a missed deadline by `tick`: not counted
as its own); `owed` in JSON lists only the sides whose orders are still owed. When the
next step cannot be resolved (a file that passed at submit fails at its step, standing
orders that fail, orders the rules refuse together), status shows the game as blocked:
each problem with its file, line and field, and the sides that must send new orders
(`blocked` in JSON); `tick` mails them the refusal, once.

In the Savannah Campaign Game it also lists the French siege works (under construction
or completed, with the hexsides they face), breached fieldworks and destroyed city hexes
(`board` in JSON). In the AWI Southern Campaign a battle step awaits both commanders'
agreeing entries, or the referee's one entry in their place (`stand_in` in JSON).")]
    Status(StatusArgs),

    /// Print a side's orders for the next step: the least the rules require, then a guide.
    #[command(after_help = "\
Examples:
  adjutant template --dir savannah --side french > 16-french.yaml
  adjutant validate --dir savannah 16-french.yaml
  adjutant template --dir savannah --side french --format json

The file names the game, turn, step and side, and holds what the rules require of the
side and nothing voluntary: disrupted units next to the enemy moving away (13.3), the
attacks that must be made (12.12, 12.13), no fire. A guide follows, in comments: the
side's units on the map with their hexes and what the rules allow each (the hexes a unit
can reach, why it may not move, that it must attack), and the choices open at the step,
written out for the position (a move; each attack with its odds and tactics chits; the
defence of each hex; each gun's or mortar's targets with range and To Hit number; the
momentum chits held and how to spend them), found by the checks validate makes.
Uncomment a choice or copy it under its key to edit the file into real orders
(docs/orders.md); as printed it validates. --format json gives the units and choices
as data.")]
    Template(TemplateArgs),

    /// The exact odds of a close combat (an AWI trivial combat): every outcome's probability.
    #[command(after_help = "\
Examples:
  adjutant odds --dir savannah --attackers dillon-irish,armagnac --defenders 2-bn-fraser \\
      --attacker-tactics frontal-assault --defender-tactics stand-fast
  adjutant odds --module savannah-1779 --scenario historical --column 3-2 --drm 1 \\
      --attacker-chits 1 --attacker-reroll-if captured-dc,captured-ac,two-step-loss
  adjutant odds --module awi-southern --scenario southern-1780 \\
      --attackers 23rd-foot,33rd-foot --defenders 1st-maryland-brigade

The AWI Southern Campaign (docs/awi-southern.md): a trivial combat played to its end
on 1776's table (every end's markers, who broke, who holds the field; 1776's halvings
named: militia against regulars, a force without a supply unit or magazine), each force's
commanding general's base chance to break off a table battle (before the points he
spends; the attempt itself is a break_off: entry, each commander's written down and rolled when both are in), and each named British unit's
attrition test if it ends the British turn where it is; --column C --drm 0 gives one
round of a column.

Every die path is enumerated (the table, then the momentum re-rolls of 12.23 step 6
under each side's policy): the probabilities are exact fractions and sum to 1.
A second table multiplies in the morale checks each outcome calls for (13.5).
At most 20 re-rolls in all (the chits each side may spend, up to --attacker-at-most
and --defender-at-most)
and 12 morale checks per outcome: more is refused (exit 2), the exact fractions
being counted in 128-bit integers.")]
    Odds(OddsArgs),

    /// Check orders files against a game's current step; list every problem.
    #[command(after_help = "\
Examples:
  adjutant validate --dir savannah 16-french-movement.yaml
  adjutant validate --dir savannah --format json orders/*.yaml

Every orders file names its game, turn, step and side, then gives the step's orders:
  game: savannah-demo
  turn: 16
  step: allies-movement
  side: french
  moves:
    - {unit: dillon-irish, path: [\"1911\", \"1912\"]}
    - {stack: [armagnac, dillon], to: \"2013\"}
The whole format, phase by phase, is docs/orders.md in the source.
Files of every side the awaited step awaits are also checked together, as `resolve`
checks them (the Allies' American and French moves ending stacked, Savannah 4.1).
Exits 0 when every file is valid, 1 listing every problem with its line and column.
A problem the rules find ends in its stable code and rule, e.g. [over-stacked, 7.1]
(JSON: `codes`, one {code, rule} or null per problem); docs/refusals.md lists them.

Limits: an orders file is at most 1 MiB of UTF-8 text (a byte order mark is
skipped), nested at most 64 deep; a file past them is refused before it is parsed.
The first 50 problems of a file are listed, then how many more there are. A
player's text quoted in a message is cut at 60 characters and escaped.")]
    Validate(ValidateArgs),

    /// Give a side a new player (name and address), recorded so that verify can tell.
    #[command(after_help = "\
Examples:
  adjutant player --dir savannah british=\"Ann Smith <ann@new.example.org>\"

game.yaml is rewritten with the new player (in its canonical form: comments in it
are not kept) and the change is recorded in its player_changes: every journal
entry binds the players in effect when its step was resolved, so verify names a
name or address changed by hand, and reports keep the players they were written
with. Orders by email are taken from the new address from now on.")]
    Player(PlayerArgs),

    /// Choose how a game proves who sent a message before taking its orders.
    #[command(after_help = "\
Examples:
  adjutant senders --dir club-7 authentication-results --authserv-id mx.club.example
  adjutant senders --dir club-7 subject-secret
  adjutant senders --dir club-7 subject-secret --renew british
  adjutant senders --dir club-7 openpgp --key french=charles.asc --key british=ann.asc
  adjutant senders --dir club-7 from

The From: header alone (method from, the default) is what anyone may write.
authentication-results trusts your own mail server: it checks DKIM and SPF as
mail arrives and says what it found in an Authentication-Results header (RFC
8601) that begins with its authserv-id; a message is taken only when that
header records dkim=pass for the From: address's domain (or a subdomain of it,
or it of the signing domain), spf=pass for the envelope sender's, or dmarc=pass.
Your server must remove such headers that arrive claiming its id (most do).
subject-secret makes each side's player a secret, .secret/sender-SIDE (never
printed: give each player his own, from that file); the player writes it as a
word of every message's Subject: (Subject: orders SECRET). It travels in the
clear with each message: weaker than a server's DKIM check.
openpgp takes a message only when it is signed (PGP/MIME, RFC 3156) by the
key of a side its From: address plays: --key SIDE=FILE gives a player's
armored public key (gpg --armor --export ADDRESS), checked and kept as
openpgp/SIDE.asc (a side without one cannot send orders by mail); the
orders are read from the signed part alone. Compare each fingerprint printed
with the player's own before the game begins.
A message that fails is refused with the reason, kept in kept/refused/, and the
refusal goes to the player's address in game.yaml only (docs/orders.md, \"Who
sent it\").")]
    Senders(SendersArgs),

    /// Go back to before a step resolved from the wrong orders, on the record.
    #[command(after_help = "\
Examples:
  adjutant correct --dir club-7 --from 5 --why \"I stored Ann's orders for turn 17, not 16\"

For a step resolved from the wrong orders (the referee stored the wrong file).
A new journal entry records the correction and why: the game goes back to the
state after step FROM-1; the entries from FROM on stay in the journal, no longer
standing, with their orders and reports. The entry reveals the next key of the
dice chain, so the steps resolved again take keys never revealed before: a
correction cannot choose rolls. Every side's report of the correction says what
was undone and why. Submit the right orders and resolve again. verify replays
the whole history, the corrected steps included. In mutual mode the
correction takes no player key and the players' rolling steps keep counting,
so the steps resolved again take keys never revealed before; the awaited
step's commitments and orders files are removed (sent again when it comes).
Refused in mutual mode after a forfeit, and while a sealed step's keys are
coming in (docs/DICE.md A10).

In mutual mode, when every orders file of the awaited step is in and the rules
refuse them together (status says so), --from the awaited step itself (the
journal step status names) sets its commitments and files aside and undoes no
step: every side the step awaits commits and sends its orders again
(docs/DICE.md A6). A correction from an earlier step would roll that step again.")]
    Correct(CorrectArgs),

    /// Check a folder: key chain, orders, seeds, every roll, the replay and the reports.
    #[command(after_help = "\
Examples:
  adjutant verify --dir rolls
  adjutant verify --dir savannah --format json
  adjutant verify --dir savannah --head 9f3c...e1   the journal head a report gave you
  adjutant verify savannah-published.tar.gz         a copy made by `adjutant publish`

Needs no secret: run it on the folder as published, or on the .tar.gz
`adjutant publish` made (unpacked into a temporary folder, removed after; only
plain files and folders under one top folder are taken). A published copy
holds no addresses, so the players each entry binds are not checked there, and
the verdict says so. For a game it also replays
every step with the rules engine from the scenario's set-up (events and state
hashes), and renders every report in reports/ again from the journal. It names
every file the folder should not hold (an orders file no journal entry records,
a stray file in inbox/), and game.yaml's players when a name or address differs
from what the journal binds (`adjutant player` records a change). Every report
carries the journal's head (the SHA-256 of its last step's entry); --head checks
that the journal still holds that entry, so the last steps cannot have been cut
back unseen. Exits 0 when every check holds, 1 naming the first file that fails
(a journal entry, an orders file, a report with the line and column that differ).")]
    Verify(VerifyArgs),

    /// Write what a third party needs to verify a game, and nothing else.
    #[command(after_help = "\
Examples:
  adjutant publish --dir savannah savannah-published.tar.gz
  adjutant publish --dir savannah ./savannah-published      a folder instead
  adjutant verify savannah-published.tar.gz                  anyone can then check it

The copy holds game.yaml without the players' addresses, the mail settings or
the module folder's path (a module folder's files go in its module/), and the
journal, orders, reports and state.yaml; never .secret/, inbox/, standing/,
mutual/, the mail folder or mailed.yaml. Every file of it is searched for each
address game.yaml names and each secret in .secret/ before anything is written:
one found (in an orders file, say, published byte for byte since the journal
commits to it) stops the publication, named. A .tar.gz holds one folder (named
after the file), its entries in byte order with every time and owner zero: the
same game gives the same bytes. No command writes a published copy.")]
    Publish(PublishArgs),

    /// The dice protocol's primitives, to check any roll by hand.
    #[command(
        subcommand,
        after_help = "\
Examples:
  adjutant dice chain --top 73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a --length 3
  adjutant dice digest british=orders/16-british.yaml french=orders/16-french.yaml
  adjutant dice rolls --seed 22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780 d10 20

Together they recompute a step's rolls from its revealed key and orders files
(DICE.md): chain checks the key against the anchor, digest hashes the orders,
seed makes the step's seed, rolls draws from it."
    )]
    Dice(DiceCommand),

    /// Check a game module whole and list every problem with its file and line.
    #[command(
        name = "check-game",
        after_help = "\
Examples:
  adjutant check-game savannah-1779
  adjutant check-game ./my-modules/brandywine
  adjutant check-game savannah-1779 --games-dir ./games --format json

Exits 0 when the module is consistent, 1 listing every problem."
    )]
    CheckGame(CheckGameArgs),

    /// Run conformance cases (rule behaviour as data) and print pass or fail.
    #[command(
        subcommand,
        after_help = "\
Examples:
  adjutant case run tests/cases
  adjutant case run tests/cases/rally --format json

A case is a YAML file: a position, the orders, the dice, and the events or
refusal the rules must give (docs/conformance-cases.md)."
    )]
    Case(CaseCommand),

    /// Game modules: write an embedded one out as a folder to edit.
    #[command(
        subcommand,
        after_help = "\
Examples:
  adjutant module export savannah-1779 my-charts
  adjutant modules                  the embedded modules, their scenarios and sides"
    )]
    Module(ModuleCommand),

    /// The embedded game modules: their scenarios, sides, and the sides one player may hold together.
    #[command(after_help = "\
Examples:
  adjutant modules
  adjutant modules --format json

A module's sides send orders; sides of one player (an alliance, e.g. the French and the
Americans of Savannah 1779) may be given to one person with `new --player`, and share
what the rules make them share (momentum, cards). Sides of different players are
opponents: a person should not hold two of them.")]
    Modules,

    /// Draw the board as SVG: terrain, hexsides, roads, places, and a scenario's set-up.
    #[command(after_help = "\
Examples:
  adjutant map savannah-1779 --output savannah.svg
  adjutant map savannah-1779 --scenario historical --output setup.svg
  adjutant map savannah-1779 --region 1001:2208 --highlight 1404,1303 --output west.svg")]
    Map(MapArgs),

    /// Play whole games with random legal orders, checking the rules' invariants after every step.
    #[command(after_help = "\
Examples:
  adjutant selfplay --scenario historical --games 300 --seed 1
  adjutant selfplay --scenario historical --seed 1 --game 17           play game 17 of that run again
  adjutant selfplay --scenario historical --games 3 --seed 1 --keep g  also as game folders g/game-1...

Each game starts from the scenario's set-up. Every step's orders are the least the rules
require (what `template` prints) and a random subset of the choices its guide offers, kept
where `validate` accepts them; the dice are a real game's verifiable stream (game id
selfplay-SEED-GAME, a public chain top), so game K of seed S is the same game every time.
After every step: each unit in one place on the map's hexes or off it, stacking limits,
army morale on its track and VPs changed only by the events that name their source,
momentum within the pool, the movement, pin and shattered-unit rules, the sequence
advancing, and the same state, events and rolls when the step is resolved again. Every
game must end within the steps its turns hold, without a panic.
Prints games per second (never stored). Exits 1 if any game fails, naming the game, the
step and what broke, with the command that plays it again.")]
    Selfplay(SelfplayArgs),

    /// Play an embedded demo game by email (Savannah 1779 by default) in a temporary folder and verify it.
    #[command(after_help = "\
Examples:
  adjutant demo
  adjutant demo --keep demo-folder     keep the folder to look at or verify again
  adjutant demo --scenario campaign    a whole Campaign Game, turn 1 to its victory, turn by turn
  adjutant demo --module awi-southern  three months of the AWI Southern Campaign, one battle mailed by both commanders, one entered by the referee")]
    Demo(DemoArgs),

    /// Write the man pages and shell completions (for maintainers).
    #[command(
        hide = true,
        after_help = "\
Examples:
  adjutant generate                 rewrite man/ and man/completions/
  adjutant generate --check         exit 1 naming each file that is stale"
    )]
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The game module: an embedded one (e.g. savannah-1779), or a module folder's path (./my-charts): game.yaml then records the SHA-256 of each of its files.
    pub module: String,
    /// The scenario of the module, e.g. historical or campaign.
    #[arg(long)]
    pub scenario: String,
    /// The folder to create; it must not exist, or be empty.
    #[arg(long)]
    pub dir: PathBuf,
    /// The game id bound into every roll; by default the folder's name.
    #[arg(long)]
    pub game_id: Option<String>,
    /// A player: SIDE=NAME <ADDRESS>. Repeat for each side.
    #[arg(long = "player", value_name = "SIDE=NAME <ADDRESS>")]
    pub players: Vec<String>,
    /// Length N of the dice key chain: the game may resolve N-1 steps.
    #[arg(long, default_value_t = adjutant::base::dice::DEFAULT_CHAIN_LENGTH)]
    pub chain_length: u32,
    /// Dice mode: referee (the referee's chain alone) or mutual (every player's chain too, DICE.md 7).
    #[arg(long, value_enum, default_value_t = DiceModeArg::Referee)]
    pub mode: DiceModeArg,
    /// Mutual mode: a player's anchor, LABEL=ANCHOR or LABEL=ANCHOR:M (label: his sides joined with +, e.g. american+french; M: his chain's length, 4096 by default). Repeat for each player; players may also `join` later, before step 1.
    #[arg(long = "anchor", value_name = "LABEL=ANCHOR[:M]")]
    pub anchors: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiceModeArg {
    Referee,
    Mutual,
}

#[derive(Debug, Args)]
pub struct JoinArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The player's anchor: LABEL=ANCHOR or LABEL=ANCHOR:M.
    #[arg(value_name = "LABEL=ANCHOR[:M]")]
    pub anchor: String,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct RollArgs {
    #[command(flatten)]
    pub wait: Wait,
    #[command(subcommand)]
    pub command: Option<RollCommand>,
    /// Dice to roll: NdK, where K is 6, 10 or 100 (3d10, d6, 2d100).
    #[arg(value_name = "DICE", required = true)]
    pub dice: Vec<String>,
    /// What the roll is for, in words; it is the step's orders.
    #[arg(long, required = true)]
    pub purpose: Option<String>,
    /// The roll log folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum RollCommand {
    /// Start a new roll log with a fresh key chain and print its anchor.
    #[command(after_help = "\
Examples:
  adjutant roll init --dir rolls
  adjutant roll init --dir rolls --game-id club-7-weather --chain-length 1000

The folder gets the log's config with the anchor, and the secret chain top in
.secret/ (mode 0600): publish the anchor, never that folder.")]
    Init(RollInitArgs),

    /// Give a roll log in mutual mode another roller's key for the sealed roll.
    #[command(after_help = "\
Examples:
  adjutant roll init --dir rolls --mode mutual --anchor bob=c707c039eb8c9b3c63002d44094c70b932941b99ed672abbc0fd4f8b7d99b969
  adjutant roll 3d10 --purpose \"to-hit, Fraser's at 1404\" --dir rolls     seals the roll, prints its purpose's SHA-256
  adjutant roll key --dir rolls bob=KEY                                  Bob's next key, once he has seen the seal
  adjutant roll 3d10 --purpose \"to-hit, Fraser's at 1404\" --dir rolls     rolls it (DICE.md 7.7)

A key sent before a roll is sealed, or out of order, is refused and not stored.")]
    Key(RollKeyArgs),
}

#[derive(Debug, Args)]
pub struct RollInitArgs {
    /// The folder to create; it must not exist, or be empty.
    #[arg(long)]
    pub dir: PathBuf,
    /// The id bound into every roll; by default the folder's name.
    #[arg(long)]
    pub game_id: Option<String>,
    /// Length N of the key chain: the log may hold N-1 rolls.
    #[arg(long, default_value_t = adjutant::base::dice::DEFAULT_CHAIN_LENGTH)]
    pub chain_length: u32,
    /// Dice mode: referee (this log's chain alone) or mutual (the other rollers' chains too, DICE.md 7.7).
    #[arg(long, value_enum, default_value_t = DiceModeArg::Referee)]
    pub mode: DiceModeArg,
    /// Mutual mode: another roller's anchor, LABEL=ANCHOR or LABEL=ANCHOR:M (M: his chain's length, 4096 by default). Repeatable.
    #[arg(long = "anchor", value_name = "LABEL=ANCHOR[:M]")]
    pub anchors: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RollKeyArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The roller's key for the sealed roll: LABEL=KEY.
    #[arg(value_name = "LABEL=KEY")]
    pub key: String,
    /// The roll log folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct ResolveArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// Orders files for the steps to resolve.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The orders file (standing orders file, with --standing), or - for standard input.
    #[arg(value_name = "FILE", required_unless_present = "withdraw")]
    pub file: Option<PathBuf>,
    /// Replace the orders this side submitted before for the same step (its standing orders, with --standing).
    #[arg(long)]
    pub replace: bool,
    /// The input is a whole email message (RFC 5322) holding the orders.
    #[arg(long, conflicts_with = "standing")]
    pub email: bool,
    /// Mail the receipt or the refusal back to the sender (a player's address only).
    #[arg(long, requires = "email")]
    pub reply: bool,
    /// FILE is the side's standing orders: a body for each kind of step, used whenever such a step comes and the side has sent no orders for it.
    #[arg(long)]
    pub standing: bool,
    /// Withdraw the standing orders of the side given by --side.
    #[arg(long, requires_all = ["standing", "side"], conflicts_with_all = ["file", "replace"])]
    pub withdraw: bool,
    /// The side whose standing orders --withdraw withdraws.
    #[arg(long, requires = "withdraw")]
    pub side: Option<String>,
    /// Mutual mode: the sender's key p_j, sent with the last orders file of a step, which seals it (DICE.md 7.3).
    #[arg(long, value_name = "HEX", conflicts_with_all = ["standing", "email"])]
    pub key: Option<String>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct MailArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// Build the messages and show them; send nothing, record nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Send this dispatch (e.g. 000003-000007), even if it was sent before.
    #[arg(long, value_name = "FIRST-LAST")]
    pub dispatch: Option<String>,
    /// Only to this side (repeatable).
    #[arg(long, value_name = "SIDE")]
    pub side: Vec<String>,
    /// How the messages leave (overrides game.yaml's mail.transport).
    #[arg(long, value_enum)]
    pub transport: Option<Transport>,
    /// The sender, "Name <address>" (overrides mail.from).
    #[arg(long, value_name = "MAILBOX")]
    pub from: Option<String>,
    /// SMTP server (overrides mail.host).
    #[arg(long)]
    pub host: Option<String>,
    /// SMTP port (overrides mail.port).
    #[arg(long)]
    pub port: Option<u16>,
    /// How the SMTP connection is protected (overrides mail.security).
    #[arg(long, value_enum)]
    pub security: Option<Security>,
    /// SMTP user name (overrides mail.username).
    #[arg(long)]
    pub username: Option<String>,
    /// The environment variable holding the SMTP password (overrides mail.password_env).
    #[arg(long, value_name = "VAR")]
    pub password_env: Option<String>,
    /// The folder of .eml files for the folder transport, relative to where adjutant runs (overrides mail.folder, which is relative to the game folder).
    #[arg(long, value_name = "DIR")]
    pub folder: Option<PathBuf>,
    /// The sendmail binary (overrides mail.sendmail).
    #[arg(long, value_name = "PATH")]
    pub sendmail: Option<PathBuf>,
    /// An extra trusted root certificate, PEM (overrides mail.ca_file).
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct TickArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The time to act at, 2026-12-03T10:00:00Z (default: ADJUTANT_NOW, else the system clock).
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Decide and write as tick does, but mail nothing (reminders, defaults and reports wait for `mail`).
    #[arg(long)]
    pub no_mail: bool,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct WelcomeArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// Build the messages and show them; send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only to this side's player (repeatable).
    #[arg(long, value_name = "SIDE")]
    pub side: Vec<String>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The side whose report it is.
    #[arg(long, required_unless_present = "referee", conflicts_with = "referee")]
    pub side: Option<String>,
    /// The referee's report: everything.
    #[arg(long)]
    pub referee: bool,
    /// Journal steps, e.g. 3 or 1-4 (default: the last step).
    #[arg(long, value_name = "N or A-B")]
    pub steps: Option<String>,
    /// The report as text, Markdown or a whole HTML page; for the JSON report give --format json.
    #[arg(long = "as", value_enum, value_name = "FORMAT")]
    pub report_format: Option<ReportAs>,
    /// Write the report here instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The orders files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct TemplateArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The side whose orders are wanted.
    #[arg(long)]
    pub side: String,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The folder to verify.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// A folder or a .tar.gz made by `adjutant publish`, instead of --dir.
    #[arg(value_name = "FOLDER|TARBALL", conflicts_with = "dir")]
    pub path: Option<PathBuf>,
    /// A journal head you kept (64 hex digits, from a report's `journal head`
    /// line): the journal must still hold that entry.
    #[arg(long, value_name = "SHA256")]
    pub head: Option<String>,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Where to write the copy: a new folder, or a file whose name ends in
    /// .tar.gz (or .tgz).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct PlayerArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The side's new player: SIDE=NAME <ADDRESS>, as `new --player` takes it.
    #[arg(value_name = "SIDE=NAME <ADDRESS>")]
    pub player: String,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct CorrectArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// The first journal step that no longer stands (`adjutant status` and
    /// the reports number them); in mutual mode, the awaited step's own, to
    /// set aside orders the rules refuse together.
    #[arg(long, value_name = "STEP")]
    pub from: u32,
    /// Why, in one line: every side's report says it.
    #[arg(long, value_name = "TEXT")]
    pub why: String,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct SendersArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// How a sender is proven.
    #[arg(value_enum)]
    pub method: SendersMethod,
    /// For authentication-results: your mail server's authserv-id, the first
    /// word of the Authentication-Results headers it writes.
    #[arg(long, value_name = "ID")]
    pub authserv_id: Option<String>,
    /// For subject-secret: make this side's player a new secret, replacing
    /// the one he has (repeat for several sides).
    #[arg(long, value_name = "SIDE")]
    pub renew: Vec<String>,
    /// For openpgp: this side's player's armored public key (gpg --armor
    /// --export ADDRESS), kept in the game folder as openpgp/SIDE.asc,
    /// replacing the side's key if it has one (repeat for several sides).
    #[arg(long, value_name = "SIDE=FILE")]
    pub key: Vec<String>,
    /// The game folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

/// `adjutant senders`' methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SendersMethod {
    /// The From: header alone.
    From,
    /// Your mail server's Authentication-Results header (DKIM, SPF, DMARC).
    AuthenticationResults,
    /// A per-player secret in the Subject: header.
    SubjectSecret,
    /// A PGP/MIME signature by the player's OpenPGP key.
    Openpgp,
}

impl SendersMethod {
    pub fn name(self) -> &'static str {
        match self {
            SendersMethod::From => "from",
            SendersMethod::AuthenticationResults => "authentication-results",
            SendersMethod::SubjectSecret => "subject-secret",
            SendersMethod::Openpgp => "openpgp",
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum DiceCommand {
    /// Print the key chain: `k key` for k = 0 (the anchor) to N (the top).
    #[command(
        after_help = "Example:\n  adjutant dice chain --top 73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a --length 3"
    )]
    Chain {
        /// The chain's top key s_N (64 hex digits).
        #[arg(long, value_name = "HEX")]
        top: String,
        /// N.
        #[arg(long, value_name = "N")]
        length: u32,
    },
    /// Print the orders digest of a step's orders files.
    #[command(
        after_help = "Example:\n  adjutant dice digest british=orders/16-british.yaml french=orders/16-french.yaml\n\nFILE may be - for standard input."
    )]
    Digest {
        /// The step's orders files, one per side.
        #[arg(value_name = "SIDE=FILE")]
        orders: Vec<String>,
    },
    /// Print a step's seed.
    #[command(
        after_help = "Example:\n  adjutant dice seed --game-id savannah-demo --step 1 \\\n      --key 4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602 \\\n      --digest acd7c2cbeafbfc20015f1c18111a68b4bb3aed7d9abeec62a880dd368852276b"
    )]
    Seed {
        /// The game id bound into every roll (game.yaml's game_id).
        #[arg(long, value_name = "ID")]
        game_id: String,
        /// The step number k.
        #[arg(long, value_name = "K")]
        step: u32,
        /// The step's revealed key s_k.
        #[arg(long, value_name = "HEX")]
        key: String,
        /// The step's orders digest.
        #[arg(long, value_name = "HEX")]
        digest: String,
        /// A player's key p_k (mutual mode); repeat for each side.
        #[arg(long = "player-key", value_name = "SIDE=HEX")]
        player_keys: Vec<String>,
    },
    /// Print COUNT rolls of DIE from a fresh stream of a seed, on one line.
    #[command(
        after_help = "Example:\n  adjutant dice rolls --seed 22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780 d10 20"
    )]
    Rolls {
        /// The step seed (64 hex digits), as `dice seed` prints it.
        #[arg(long, value_name = "HEX")]
        seed: String,
        /// d6, d10 or d100.
        #[arg(value_name = "DIE")]
        die: String,
        /// How many rolls, from 1 to 1,000,000.
        #[arg(value_name = "COUNT")]
        count: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum CaseCommand {
    /// Run conformance case files (or every *.yaml under a folder).
    #[command(after_help = "\
Examples:
  adjutant case run tests/cases
  adjutant case run tests/cases/rally/15-2-disrupted-unit-passes.yaml

Exits 0 when every case passes, 1 when any fails. The format is in
docs/conformance-cases.md.")]
    Run {
        /// Case files or folders.
        #[arg(required = true, value_name = "FILE")]
        paths: Vec<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ModuleCommand {
    /// Write an embedded module's files out as a module folder, to edit (your own charts).
    #[command(after_help = "\
Examples:
  adjutant module export savannah-1779 my-charts
  adjutant check-game ./my-charts
  adjutant new ./my-charts --scenario historical --dir my-game

DIR must not exist, or be empty. A game begun with a module folder reads
it at every command, and refuses to go on (exit 1) when a file of it
changed after the game began.")]
    Export {
        /// The embedded module, e.g. savannah-1779.
        module: String,
        /// The folder to write.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct CheckGameArgs {
    /// An embedded module's id, or the path of a module folder.
    #[arg(default_value = "savannah-1779")]
    pub module: String,
    /// Read modules from this folder instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub games_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MapArgs {
    /// The game module (an embedded one, or a module folder's path).
    #[arg(default_value = "savannah-1779")]
    pub module: String,
    /// Read modules from this folder instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub games_dir: Option<PathBuf>,
    /// Draw this scenario's set-up on the map, on the board as the scenario uses it (Savannah: the printed siege works only in the Historical Scenario).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Draw only the columns and rows between two corner hexes, e.g. 1001:2208.
    #[arg(long, value_name = "HEX:HEX")]
    pub region: Option<String>,
    /// Outline these hexes, e.g. 1404,1303.
    #[arg(long, value_name = "HEX,...", value_delimiter = ',')]
    pub highlight: Vec<String>,
    /// Write the SVG here instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write a PNG picture instead of SVG (needs --output).
    #[cfg(feature = "png")]
    #[arg(long, requires = "output")]
    pub png: bool,
}

#[derive(Debug, Args)]
pub struct OddsArgs {
    #[command(flatten)]
    pub wait: Wait,
    /// A game folder: the combat is weighed in its current state.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["module", "scenario"])]
    pub dir: Option<PathBuf>,
    /// Or a module and scenario: the combat is weighed in the scenario's set-up.
    #[arg(long, requires = "scenario")]
    pub module: Option<String>,
    /// The scenario whose set-up the combat is weighed in (module savannah-1779 unless --module).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Read modules from this folder instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub games_dir: Option<PathBuf>,
    /// The attacking units.
    #[arg(long, value_name = "ID,...", value_delimiter = ',', required_unless_present = "column")]
    pub attackers: Vec<String>,
    /// The defending units (every unit of a defending hex, 12.15).
    #[arg(long, value_name = "ID,...", value_delimiter = ',', required_unless_present = "column")]
    pub defenders: Vec<String>,
    /// The Attacker's lead unit (12.23 step 2; default: the best modified morale among the legal ones).
    #[arg(long, value_name = "ID")]
    pub attacker_lead: Option<String>,
    /// The Defender's lead unit (12.23 step 2; default as for the Attacker).
    #[arg(long, value_name = "ID")]
    pub defender_lead: Option<String>,
    /// The Attacker's tactics chit (charts/tactics.yaml id; default: the chart's first).
    #[arg(long, value_name = "CHIT")]
    pub attacker_tactics: Option<String>,
    /// The Defender's tactics chit (default: the chart's first).
    #[arg(long, value_name = "CHIT")]
    pub defender_tactics: Option<String>,
    /// Columns shifted left for a diversion (12.14).
    #[arg(long, default_value_t = 0)]
    pub diversion: u32,
    /// Skip the units: this column of the Close Combat Table...
    #[arg(long, requires = "drm")]
    pub column: Option<String>,
    /// ...with this total DRM.
    #[arg(long, allow_hyphen_values = true)]
    pub drm: Option<i32>,
    /// Momentum chits the Attacker holds (default: the state's).
    #[arg(long)]
    pub attacker_chits: Option<u32>,
    /// Momentum chits the Defender holds (default: the state's).
    #[arg(long)]
    pub defender_chits: Option<u32>,
    /// 12.23 step 6: the Attacker re-rolls when its own results include one of these.
    #[arg(long, value_name = "RESULT,...", value_delimiter = ',')]
    pub attacker_reroll_if: Vec<String>,
    /// 12.23 step 6: the Defender re-rolls when its own results include one of these.
    #[arg(long, value_name = "RESULT,...", value_delimiter = ',')]
    pub defender_reroll_if: Vec<String>,
    /// At most this many re-rolls by the Attacker (both sides together at most 20).
    #[arg(long, default_value_t = 1)]
    pub attacker_at_most: u32,
    /// At most this many re-rolls by the Defender.
    #[arg(long, default_value_t = 1)]
    pub defender_at_most: u32,
}

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// The game module: an embedded one, or a module folder's path.
    #[arg(long, default_value = "savannah-1779")]
    pub module: String,
    /// Read modules from this folder instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub games_dir: Option<PathBuf>,
    /// The scenario to play, e.g. historical.
    #[arg(long)]
    pub scenario: String,
    /// How many games: games 1 to N.
    #[arg(long, default_value_t = 100, conflicts_with = "game")]
    pub games: u32,
    /// The run's seed: game K of a seed is the same game every time.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play only game K of the seed's run (to replay a failure).
    #[arg(long, value_name = "K")]
    pub game: Option<u32>,
    /// Also play each game through a game folder DIR/game-K (new, submit, resolve) and verify it; a game that fails is written up to the step it failed at.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo's folders here instead of a temporary folder.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The module whose demo is played: savannah-1779 (the default) or awi-southern (its Southern Campaign from June 1780, each step's report as the player whose orders it took receives it).
    #[arg(long, value_enum, default_value_t = DemoModule::Savannah1779)]
    pub module: DemoModule,
    /// Which of the module's demos: for savannah-1779 the Historical Scenario (the default: 29 steps, every report as the British player receives it) or the Campaign Game (turn 1 to the tactical track, told turn by turn); for awi-southern southern-1780 (its only one).
    #[arg(long, value_enum)]
    pub scenario: Option<DemoScenario>,
    /// Only create the demo game (for scripts/demo-orders), play nothing.
    #[arg(long, hide = true, requires = "keep")]
    pub only_new: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DemoScenario {
    Historical,
    Campaign,
    #[value(name = "southern-1780")]
    Southern1780,
}

/// The modules with a demo game (src/cli/demo.rs's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DemoModule {
    #[value(name = "savannah-1779")]
    Savannah1779,
    #[value(name = "awi-southern")]
    AwiSouthern,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Where the man pages go; completions go to its completions/ folder.
    #[arg(long, default_value = "man")]
    pub out: PathBuf,
    /// Write nothing; exit 1 if the files there differ from what would be written.
    #[arg(long)]
    pub check: bool,
}
