//! How deeply a YAML text nests, counted by a cheap linear scan of the
//! text before any YAML parser sees it: a parser given 100,000 nested `[`
//! spends seconds in its scanner and a deserializer recurses once per
//! level, so hostile nesting is refused here first.
//!
//! The count is an estimate from the text's shape, never less than half
//! the real depth (a block mapping and a block sequence can share one
//! indentation level), and close to it for files as people write them:
//!
//! - each indentation level open in block context (a line indented more
//!   than the one above it opens one; a line indented less closes those
//!   deeper than it);
//! - each `- ` or `? ` at the start of a line's content (`- - - x` nests
//!   three sequences on one line);
//! - each `[` or `{` open in flow context (one that starts a token: after
//!   a space, a line's start, `[`, `{`, `,` or `:`; an `a[b` inside a plain
//!   scalar is text).
//!
//! Quoted scalars (over several lines too), comments and the content of
//! block scalars (`|`, `>`) are skipped. The scan never recurses and looks
//! at each character once.

/// Where the text first nests deeper than `max`: the 1-based line and
/// column (in characters) of the bracket, indicator or indentation that
/// goes past it; `None` if it never does.
pub fn deeper_than(text: &str, max: usize) -> Option<(usize, usize)> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // Inside a quoted scalar: its quote character.
    let mut quote: Option<char> = None;
    // Inside a block scalar: the indentation of the line that opened it.
    let mut block_scalar: Option<usize> = None;
    for (n, line) in text.split('\n').enumerate() {
        let line_no = n + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = line.bytes().take_while(|b| *b == b' ').count();
        let content = &line[indent..];
        let blank = content.trim().is_empty();
        if let Some(opened) = block_scalar {
            if blank || indent > opened {
                continue;
            }
            block_scalar = None;
        }
        // The block depth of this line, and where its content starts.
        let mut depth = 0usize;
        let mut rest = line;
        let mut column = 1usize;
        if quote.is_none() && flow == 0 {
            if blank || content.starts_with('#') {
                continue;
            }
            while indents.last().is_some_and(|&i| i > indent) {
                indents.pop();
            }
            if indents.last() != Some(&indent) {
                indents.push(indent);
            }
            depth = indents.len();
            column = indent + 1;
            if depth > max {
                return Some((line_no, column));
            }
            // Compact indicators: `- - x`, `? a`.
            rest = content;
            loop {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some('-' | '?'), None | Some(' ' | '\t')) => {
                        depth += 1;
                        if depth > max {
                            return Some((line_no, column));
                        }
                        let after = rest[1..].trim_start_matches([' ', '\t']);
                        column += rest[..rest.len() - after.len()].chars().count();
                        rest = after;
                    }
                    _ => break,
                }
            }
        }
        // The rest of the line: quotes, comments, flow brackets.
        let mut previous: Option<char> = if column == 1 { None } else { Some(' ') };
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let token_start = previous.is_none_or(|p| matches!(p, ' ' | '\t' | '[' | '{' | ',' | ':'));
            match quote {
                Some('"') if c == '\\' => {
                    chars.next();
                    column += 1;
                }
                Some('\'') if c == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') => {
                    chars.next();
                    column += 1;
                }
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '"' | '\'' if token_start => quote = Some(c),
                    '#' if token_start => break,
                    '[' | '{' if token_start => {
                        flow += 1;
                        if depth + flow > max {
                            return Some((line_no, column));
                        }
                    }
                    ']' | '}' if flow > 0 => flow -= 1,
                    '|' | '>' if token_start && flow == 0 && opens_block_scalar(&rest[i + 1..]) => {
                        block_scalar = Some(indent);
                        break;
                    }
                    _ => {}
                },
            }
            previous = Some(c);
            column += 1;
        }
    }
    None
}

/// Whether what follows a `|` or `>` makes it a block scalar's header:
/// optional indentation and chomping indicators, then nothing but a
/// comment.
fn opens_block_scalar(after: &str) -> bool {
    let after = after.trim_start_matches(['+', '-', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    let after = after.trim_start_matches([' ', '\t']);
    after.is_empty() || after.starts_with('#')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real depth of a document, from the YAML crate the facade uses.
    fn real_depth(text: &str) -> usize {
        fn depth(v: &crate::base::yaml::Value) -> usize {
            match v {
                crate::base::yaml::Value::Sequence(s) => 1 + s.iter().map(depth).max().unwrap_or(0),
                crate::base::yaml::Value::Mapping(m) => {
                    1 + m.iter().map(|(k, v)| depth(k).max(depth(v))).max().unwrap_or(0)
                }
                crate::base::yaml::Value::Tagged(t) => depth(&t.value),
                _ => 0,
            }
        }
        depth(&crate::base::yaml::from_str(text).unwrap())
    }

    /// The least `max` the scan accepts the text at.
    fn estimate(text: &str) -> usize {
        (0..200).find(|&max| deeper_than(text, max).is_none()).unwrap()
    }

    #[test]
    fn real_orders_files_are_shallow() {
        let orders = "# orders\ngame: club-7\nturn: 16\nstep: allies-close-combat\nside: french\nattacks:\n  - attackers: [dillon-irish, armagnac]\n    defenders: [\"1404\"]\n    tactics: frontal-assault\n    choices: {retreat: {dillon-irish: [\"1505\", \"1506\"]}}\nmomentum:\n  reroll_if:\n    - captured-dc\n  at_most: 1\nnote: |\n  a [ block [ scalar { with\n      deeper [[[[ lines\nname: d'Estaing's [plan] a[b\nq: \"[[[[ \\\" [[[\"\ns: '[[ '' [['\n";
        let (real, e) = (real_depth(orders), estimate(orders));
        assert_eq!(real, 6);
        assert!((real..=real + 2).contains(&e), "estimate {e}");
    }

    #[test]
    fn the_estimate_is_at_least_the_real_depth() {
        let samples = [
            "a:\n  b:\n    c: [1, {d: [2]}]\n",
            "- - - - x\n",
            "moves:\n- unit: a\n  path: [\"1\", \"2\"]\n- {unit: b, to: c}\n",
            "a: [[[[[[1]]]]]]\n",
            "? [a, b]\n: {c: [d]}\n",
            "a:\n  - b:\n    - c:\n      - d: [e]\n",
            "{a: {b: {c: {d: {e: 1}}}}}",
            "a:\n- b:\n  - c:\n    - d: 1\n",
        ];
        for text in samples {
            let (real, e) = (real_depth(text), estimate(text));
            // Never less than half: a text accepted at 64 nests at most 128
            // deep, serde_norway's own limit.
            assert!(2 * e >= real, "{text:?}: real {real}, estimate {e}");
            assert!(e <= real + 2, "{text:?}: real {real}, estimate {e}");
        }
    }

    #[test]
    fn hostile_nesting_is_found_where_it_passes_the_limit() {
        assert_eq!(deeper_than(&"[".repeat(100_000), 64), Some((1, 64)));
        assert_eq!(deeper_than(&format!("a: {}", "{b: ".repeat(100)), 64), Some((1, 4 + 4 * 63)));
        let block: String = (0..1000).map(|d| format!("{}k{d}:\n", " ".repeat(d))).collect();
        assert_eq!(deeper_than(&block, 64), Some((65, 65)));
        assert_eq!(deeper_than(&"- ".repeat(500_000), 64), Some((1, 1 + 2 * 63)));
        let quoted = format!("a: \"{}\"\n", "[".repeat(10_000));
        assert_eq!(deeper_than(&quoted, 64), None);
        let commented = format!("a: 1 # {}\n", "[".repeat(10_000));
        assert_eq!(deeper_than(&commented, 64), None);
        let literal = format!("a: |\n  {}\nb: 1\n", "[".repeat(10_000));
        assert_eq!(deeper_than(&literal, 64), None);
        // After a block scalar ends, structure is counted again.
        let after = format!("a: >-\n  x\nb: {}\n", "[".repeat(100));
        assert_eq!(deeper_than(&after, 64), Some((3, 4 + 63)));
    }
}
