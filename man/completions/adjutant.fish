# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_adjutant_global_optspecs
    string join \n format= color= h/help V/version
end

function __fish_adjutant_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_adjutant_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_adjutant_using_subcommand
    set -l cmd (__fish_adjutant_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c adjutant -n "__fish_adjutant_needs_command" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_needs_command" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c adjutant -n "__fish_adjutant_needs_command" -s V -l version -d 'Print version'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "new" -d 'Create a game folder for a module\'s scenario and print its dice anchor'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "roll" -d 'Roll verifiable dice into a roll log (or start one with `roll init`)'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "join" -d 'Record a player\'s dice anchor in a game in mutual mode, before its first step'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "resolve" -d 'Resolve every step of a game whose orders are in, and print what happened'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "submit" -d 'Store a side\'s orders file in the game\'s inbox, or its standing orders, and print a receipt'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "mail" -d 'Mail each side\'s reports of the resolved steps to its player'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "tick" -d 'Apply the game\'s deadlines (from cron): remind, write default orders for a missed deadline, resolve, mail'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "welcome" -d 'Mail each player, before any orders, what he plays and how to play by mail'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "report" -d 'A side\'s report of resolved steps: events, rolls, keys, orders hashes, the map'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "status" -d 'Where a game stands: turn, step, who is awaited, morale, VPs, momentum, weather'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "template" -d 'Print a side\'s orders for the next step: the least the rules require, then a guide'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "odds" -d 'The exact odds of a close combat (an AWI trivial combat): every outcome\'s probability'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "validate" -d 'Check orders files against a game\'s current step; list every problem'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "player" -d 'Give a side a new player (name and address), recorded so that verify can tell'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "senders" -d 'Choose how a game proves who sent a message before taking its orders'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "correct" -d 'Go back to before a step resolved from the wrong orders, on the record'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "verify" -d 'Check a folder: key chain, orders, seeds, every roll, the replay and the reports'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "publish" -d 'Write what a third party needs to verify a game, and nothing else'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "dice" -d 'The dice protocol\'s primitives, to check any roll by hand'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "check-game" -d 'Check a game module whole and list every problem with its file and line'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "case" -d 'Run conformance cases (rule behaviour as data) and print pass or fail'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "module" -d 'Game modules: write an embedded one out as a folder to edit'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "modules" -d 'The embedded game modules: their scenarios, sides, and the sides one player may hold together'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "map" -d 'Draw the board as SVG: terrain, hexsides, roads, places, and a scenario\'s set-up'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "selfplay" -d 'Play whole games with random legal orders, checking the rules\' invariants after every step'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "demo" -d 'Play an embedded demo game by email (Savannah 1779 by default) in a temporary folder and verify it'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "generate" -d 'Write the man pages and shell completions (for maintainers)'
complete -c adjutant -n "__fish_adjutant_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l scenario -d 'The scenario of the module, e.g. historical or campaign' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l dir -d 'The folder to create; it must not exist, or be empty' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l game-id -d 'The game id bound into every roll; by default the folder\'s name' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l player -d 'A player: SIDE=NAME <ADDRESS>. Repeat for each side' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l chain-length -d 'Length N of the dice key chain: the game may resolve N-1 steps' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l mode -d 'Dice mode: referee (the referee\'s chain alone) or mutual (every player\'s chain too, DICE.md 7)' -r -f -a "referee\t''
mutual\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l anchor -d 'Mutual mode: a player\'s anchor, LABEL=ANCHOR or LABEL=ANCHOR:M (label: his sides joined with +, e.g. american+french; M: his chain\'s length, 4096 by default). Repeat for each player; players may also `join` later, before step 1' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand new" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -l purpose -d 'What the roll is for, in words; it is the step\'s orders' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -l dir -d 'The roll log folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -a "init" -d 'Start a new roll log with a fresh key chain and print its anchor'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -a "key" -d 'Give a roll log in mutual mode another roller\'s key for the sealed roll'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and not __fish_seen_subcommand_from init key help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l dir -d 'The folder to create; it must not exist, or be empty' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l game-id -d 'The id bound into every roll; by default the folder\'s name' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l chain-length -d 'Length N of the key chain: the log may hold N-1 rolls' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l mode -d 'Dice mode: referee (this log\'s chain alone) or mutual (the other rollers\' chains too, DICE.md 7.7)' -r -f -a "referee\t''
mutual\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l anchor -d 'Mutual mode: another roller\'s anchor, LABEL=ANCHOR or LABEL=ANCHOR:M (M: his chain\'s length, 4096 by default). Repeatable' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from key" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from key" -l dir -d 'The roll log folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from key" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from key" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from key" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from help" -f -a "init" -d 'Start a new roll log with a fresh key chain and print its anchor'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from help" -f -a "key" -d 'Give a roll log in mutual mode another roller\'s key for the sealed roll'
complete -c adjutant -n "__fish_adjutant_using_subcommand roll; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand join" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand join" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand join" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand join" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand join" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand resolve" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand resolve" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand resolve" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand resolve" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand resolve" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l side -d 'The side whose standing orders --withdraw withdraws' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l key -d 'Mutual mode: the sender\'s key p_j, sent with the last orders file of a step, which seals it (DICE.md 7.3)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l replace -d 'Replace the orders this side submitted before for the same step (its standing orders, with --standing)'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l email -d 'The input is a whole email message (RFC 5322) holding the orders'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l reply -d 'Mail the receipt or the refusal back to the sender (a player\'s address only)'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l standing -d 'FILE is the side\'s standing orders: a body for each kind of step, used whenever such a step comes and the side has sent no orders for it'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -l withdraw -d 'Withdraw the standing orders of the side given by --side'
complete -c adjutant -n "__fish_adjutant_using_subcommand submit" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l dispatch -d 'Send this dispatch (e.g. 000003-000007), even if it was sent before' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l side -d 'Only to this side (repeatable)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l transport -d 'How the messages leave (overrides game.yaml\'s mail.transport)' -r -f -a "smtp\t'An SMTP server (mail.host)'
sendmail\t'The local sendmail binary'
folder\t'.eml files in a folder, sent by nobody'"
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l from -d 'The sender, "Name <address>" (overrides mail.from)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l host -d 'SMTP server (overrides mail.host)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l port -d 'SMTP port (overrides mail.port)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l security -d 'How the SMTP connection is protected (overrides mail.security)' -r -f -a "starttls\t'Plain connection upgraded with STARTTLS (port 587)'
tls\t'TLS from the first byte (port 465)'
none\t'No encryption: only to a server on this machine (loopback)'"
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l username -d 'SMTP user name (overrides mail.username)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l password-env -d 'The environment variable holding the SMTP password (overrides mail.password_env)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l folder -d 'The folder of .eml files for the folder transport, relative to where adjutant runs (overrides mail.folder, which is relative to the game folder)' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l sendmail -d 'The sendmail binary (overrides mail.sendmail)' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l ca-file -d 'An extra trusted root certificate, PEM (overrides mail.ca_file)' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -l dry-run -d 'Build the messages and show them; send nothing, record nothing'
complete -c adjutant -n "__fish_adjutant_using_subcommand mail" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l now -d 'The time to act at, 2026-12-03T10:00:00Z (default: ADJUTANT_NOW, else the system clock)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -l no-mail -d 'Decide and write as tick does, but mail nothing (reminders, defaults and reports wait for `mail`)'
complete -c adjutant -n "__fish_adjutant_using_subcommand tick" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l side -d 'Only to this side\'s player (repeatable)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -l dry-run -d 'Build the messages and show them; send nothing'
complete -c adjutant -n "__fish_adjutant_using_subcommand welcome" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l side -d 'The side whose report it is' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l steps -d 'Journal steps, e.g. 3 or 1-4 (default: the last step)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l as -d 'The report as text, Markdown or a whole HTML page; for the JSON report give --format json' -r -f -a "text\t''
markdown\t''
html\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -s o -l output -d 'Write the report here instead of standard output' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -l referee -d 'The referee\'s report: everything'
complete -c adjutant -n "__fish_adjutant_using_subcommand report" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand status" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand status" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand status" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand status" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand status" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -l side -d 'The side whose orders are wanted' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand template" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l dir -d 'A game folder: the combat is weighed in its current state' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l module -d 'Or a module and scenario: the combat is weighed in the scenario\'s set-up' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l scenario -d 'The scenario whose set-up the combat is weighed in (module savannah-1779 unless --module)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l games-dir -d 'Read modules from this folder instead of the embedded ones' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attackers -d 'The attacking units' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defenders -d 'The defending units (every unit of a defending hex, 12.15)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attacker-lead -d 'The Attacker\'s lead unit (12.23 step 2; default: the best modified morale among the legal ones)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defender-lead -d 'The Defender\'s lead unit (12.23 step 2; default as for the Attacker)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attacker-tactics -d 'The Attacker\'s tactics chit (charts/tactics.yaml id; default: the chart\'s first)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defender-tactics -d 'The Defender\'s tactics chit (default: the chart\'s first)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l diversion -d 'Columns shifted left for a diversion (12.14)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l column -d 'Skip the units: this column of the Close Combat Table...' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l drm -d '...with this total DRM' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attacker-chits -d 'Momentum chits the Attacker holds (default: the state\'s)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defender-chits -d 'Momentum chits the Defender holds (default: the state\'s)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attacker-reroll-if -d '12.23 step 6: the Attacker re-rolls when its own results include one of these' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defender-reroll-if -d '12.23 step 6: the Defender re-rolls when its own results include one of these' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l attacker-at-most -d 'At most this many re-rolls by the Attacker (both sides together at most 20)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l defender-at-most -d 'At most this many re-rolls by the Defender' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand odds" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand validate" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand validate" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand validate" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand validate" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand validate" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand player" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand player" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand player" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand player" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand player" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l authserv-id -d 'For authentication-results: your mail server\'s authserv-id, the first word of the Authentication-Results headers it writes' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l renew -d 'For subject-secret: make this side\'s player a new secret, replacing the one he has (repeat for several sides)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l key -d 'For openpgp: this side\'s player\'s armored public key (gpg --armor --export ADDRESS), kept in the game folder as openpgp/SIDE.asc, replacing the side\'s key if it has one (repeat for several sides)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand senders" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l from -d 'The first journal step that no longer stands (`adjutant status` and the reports number them); in mutual mode, the awaited step\'s own, to set aside orders the rules refuse together' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l why -d 'Why, in one line: every side\'s report says it' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand correct" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -l dir -d 'The folder to verify' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -l head -d 'A journal head you kept (64 hex digits, from a report\'s `journal head` line): the journal must still hold that entry' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand verify" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand publish" -l wait -d 'Seconds to wait for another adjutant command working on the same folder' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand publish" -l dir -d 'The game folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand publish" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand publish" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand publish" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -f -a "chain" -d 'Print the key chain: `k key` for k = 0 (the anchor) to N (the top)'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -f -a "digest" -d 'Print the orders digest of a step\'s orders files'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -f -a "seed" -d 'Print a step\'s seed'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -f -a "rolls" -d 'Print COUNT rolls of DIE from a fresh stream of a seed, on one line'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and not __fish_seen_subcommand_from chain digest seed rolls help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from chain" -l top -d 'The chain\'s top key s_N (64 hex digits)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from chain" -l length -d 'N' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from chain" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from chain" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from chain" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from digest" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from digest" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from digest" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l game-id -d 'The game id bound into every roll (game.yaml\'s game_id)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l step -d 'The step number k' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l key -d 'The step\'s revealed key s_k' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l digest -d 'The step\'s orders digest' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l player-key -d 'A player\'s key p_k (mutual mode); repeat for each side' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from seed" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from rolls" -l seed -d 'The step seed (64 hex digits), as `dice seed` prints it' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from rolls" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from rolls" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from rolls" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from help" -f -a "chain" -d 'Print the key chain: `k key` for k = 0 (the anchor) to N (the top)'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from help" -f -a "digest" -d 'Print the orders digest of a step\'s orders files'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from help" -f -a "seed" -d 'Print a step\'s seed'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from help" -f -a "rolls" -d 'Print COUNT rolls of DIE from a fresh stream of a seed, on one line'
complete -c adjutant -n "__fish_adjutant_using_subcommand dice; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand check-game" -l games-dir -d 'Read modules from this folder instead of the embedded ones' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand check-game" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand check-game" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand check-game" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and not __fish_seen_subcommand_from run help" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and not __fish_seen_subcommand_from run help" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and not __fish_seen_subcommand_from run help" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and not __fish_seen_subcommand_from run help" -f -a "run" -d 'Run conformance case files (or every *.yaml under a folder)'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and not __fish_seen_subcommand_from run help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and __fish_seen_subcommand_from run" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and __fish_seen_subcommand_from run" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run conformance case files (or every *.yaml under a folder)'
complete -c adjutant -n "__fish_adjutant_using_subcommand case; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and not __fish_seen_subcommand_from export help" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and not __fish_seen_subcommand_from export help" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and not __fish_seen_subcommand_from export help" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and not __fish_seen_subcommand_from export help" -f -a "export" -d 'Write an embedded module\'s files out as a module folder, to edit (your own charts)'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and not __fish_seen_subcommand_from export help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and __fish_seen_subcommand_from export" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and __fish_seen_subcommand_from export" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write an embedded module\'s files out as a module folder, to edit (your own charts)'
complete -c adjutant -n "__fish_adjutant_using_subcommand module; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand modules" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand modules" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand modules" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l games-dir -d 'Read modules from this folder instead of the embedded ones' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l scenario -d 'Draw this scenario\'s set-up on the map, on the board as the scenario uses it (Savannah: the printed siege works only in the Historical Scenario)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l region -d 'Draw only the columns and rows between two corner hexes, e.g. 1001:2208' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l highlight -d 'Outline these hexes, e.g. 1404,1303' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -s o -l output -d 'Write the SVG here instead of standard output' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -l png -d 'Write a PNG picture instead of SVG (needs --output)'
complete -c adjutant -n "__fish_adjutant_using_subcommand map" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l module -d 'The game module: an embedded one, or a module folder\'s path' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l games-dir -d 'Read modules from this folder instead of the embedded ones' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l scenario -d 'The scenario to play, e.g. historical' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l games -d 'How many games: games 1 to N' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l seed -d 'The run\'s seed: game K of a seed is the same game every time' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l game -d 'Play only game K of the seed\'s run (to replay a failure)' -r
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l keep -d 'Also play each game through a game folder DIR/game-K (new, submit, resolve) and verify it; a game that fails is written up to the step it failed at' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand selfplay" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l keep -d 'Keep the demo\'s folders here instead of a temporary folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l module -d 'The module whose demo is played: savannah-1779 (the default) or awi-southern (its Southern Campaign from June 1780, each step\'s report as the player whose orders it took receives it)' -r -f -a "savannah-1779\t''
awi-southern\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l scenario -d 'Which of the module\'s demos: for savannah-1779 the Historical Scenario (the default: 29 steps, every report as the British player receives it) or the Campaign Game (turn 1 to the tactical track, told turn by turn); for awi-southern southern-1780 (its only one)' -r -f -a "historical\t''
campaign\t''
southern-1780\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -l only-new -d 'Only create the demo game (for scripts/demo-orders), play nothing'
complete -c adjutant -n "__fish_adjutant_using_subcommand demo" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand generate" -l out -d 'Where the man pages go; completions go to its completions/ folder' -r -F
complete -c adjutant -n "__fish_adjutant_using_subcommand generate" -l format -d 'Print results as text for people or JSON for scripts; with json an error is a JSON object on standard error' -r -f -a "text\t''
json\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand generate" -l color -d 'Colour the text output and the help: auto colours only on a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c adjutant -n "__fish_adjutant_using_subcommand generate" -l check -d 'Write nothing; exit 1 if the files there differ from what would be written'
complete -c adjutant -n "__fish_adjutant_using_subcommand generate" -s h -l help -d 'Print help'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "new" -d 'Create a game folder for a module\'s scenario and print its dice anchor'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "roll" -d 'Roll verifiable dice into a roll log (or start one with `roll init`)'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "join" -d 'Record a player\'s dice anchor in a game in mutual mode, before its first step'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "resolve" -d 'Resolve every step of a game whose orders are in, and print what happened'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "submit" -d 'Store a side\'s orders file in the game\'s inbox, or its standing orders, and print a receipt'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "mail" -d 'Mail each side\'s reports of the resolved steps to its player'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "tick" -d 'Apply the game\'s deadlines (from cron): remind, write default orders for a missed deadline, resolve, mail'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "welcome" -d 'Mail each player, before any orders, what he plays and how to play by mail'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "report" -d 'A side\'s report of resolved steps: events, rolls, keys, orders hashes, the map'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "status" -d 'Where a game stands: turn, step, who is awaited, morale, VPs, momentum, weather'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "template" -d 'Print a side\'s orders for the next step: the least the rules require, then a guide'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "odds" -d 'The exact odds of a close combat (an AWI trivial combat): every outcome\'s probability'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "validate" -d 'Check orders files against a game\'s current step; list every problem'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "player" -d 'Give a side a new player (name and address), recorded so that verify can tell'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "senders" -d 'Choose how a game proves who sent a message before taking its orders'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "correct" -d 'Go back to before a step resolved from the wrong orders, on the record'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "verify" -d 'Check a folder: key chain, orders, seeds, every roll, the replay and the reports'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "publish" -d 'Write what a third party needs to verify a game, and nothing else'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "dice" -d 'The dice protocol\'s primitives, to check any roll by hand'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "check-game" -d 'Check a game module whole and list every problem with its file and line'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "case" -d 'Run conformance cases (rule behaviour as data) and print pass or fail'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "module" -d 'Game modules: write an embedded one out as a folder to edit'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "modules" -d 'The embedded game modules: their scenarios, sides, and the sides one player may hold together'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "map" -d 'Draw the board as SVG: terrain, hexsides, roads, places, and a scenario\'s set-up'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "selfplay" -d 'Play whole games with random legal orders, checking the rules\' invariants after every step'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "demo" -d 'Play an embedded demo game by email (Savannah 1779 by default) in a temporary folder and verify it'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "generate" -d 'Write the man pages and shell completions (for maintainers)'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and not __fish_seen_subcommand_from new roll join resolve submit mail tick welcome report status template odds validate player senders correct verify publish dice check-game case module modules map selfplay demo generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from roll" -f -a "init" -d 'Start a new roll log with a fresh key chain and print its anchor'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from roll" -f -a "key" -d 'Give a roll log in mutual mode another roller\'s key for the sealed roll'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from dice" -f -a "chain" -d 'Print the key chain: `k key` for k = 0 (the anchor) to N (the top)'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from dice" -f -a "digest" -d 'Print the orders digest of a step\'s orders files'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from dice" -f -a "seed" -d 'Print a step\'s seed'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from dice" -f -a "rolls" -d 'Print COUNT rolls of DIE from a fresh stream of a seed, on one line'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from case" -f -a "run" -d 'Run conformance case files (or every *.yaml under a folder)'
complete -c adjutant -n "__fish_adjutant_using_subcommand help; and __fish_seen_subcommand_from module" -f -a "export" -d 'Write an embedded module\'s files out as a module folder, to edit (your own charts)'
