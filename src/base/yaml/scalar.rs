//! How a plain YAML scalar reads as null, a boolean, an integer or a float:
//! serde_norway's own rules (its `de.rs`, MIT OR Apache-2.0, as this crate),
//! copied so that the compact form of the embedded modules ([`super::compact`])
//! reads exactly as the YAML text does.
//!
//! This file is self-contained: the build script (build.rs) includes it too,
//! to check at build time that the compact form of every embedded file
//! resolves to the same YAML tree as serde_norway's parse of its text.

use std::num::ParseIntError;

/// `null`, `Null`, `NULL` or `~` (an empty plain scalar is null as well,
/// which callers check first).
pub fn parse_null(scalar: &str) -> bool {
    matches!(scalar, "null" | "Null" | "NULL" | "~")
}

pub fn parse_bool(scalar: &str) -> Option<bool> {
    match scalar {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Leading zero(s) followed by digits is a string in YAML 1.2.
pub fn digits_but_not_number(scalar: &str) -> bool {
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A non-negative integer: decimal, `0x`, `0o` or `0b`, with an optional `+`.
pub fn parse_unsigned_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> Result<T, ParseIntError>) -> Option<T> {
    let unpositive = scalar.strip_prefix('+').unwrap_or(scalar);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) {
        return None;
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(unpositive, 10).ok()
}

/// A negative integer: `-` then decimal, `0x`, `0o` or `0b`.
pub fn parse_negative_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> Result<T, ParseIntError>) -> Option<T> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = scalar.strip_prefix(prefix) {
            if let Ok(int) = from_str_radix(&format!("-{rest}"), radix) {
                return Some(int);
            }
        }
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(scalar, 10).ok()
}

/// Any integer, as a signed field reads it.
pub fn parse_signed_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> Result<T, ParseIntError>) -> Option<T> {
    let unpositive = if let Some(unpositive) = scalar.strip_prefix('+') {
        if unpositive.starts_with(['+', '-']) {
            return None;
        }
        unpositive
    } else {
        scalar
    };
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
        // (`-` then the prefix, without making the string "-0x" to look for.)
        if let Some(rest) = scalar.strip_prefix('-').and_then(|s| s.strip_prefix(prefix)) {
            if let Ok(int) = from_str_radix(&format!("-{rest}"), radix) {
                return Some(int);
            }
        }
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(unpositive, 10).ok()
}

pub fn parse_f64(scalar: &str) -> Option<f64> {
    let unpositive = if let Some(unpositive) = scalar.strip_prefix('+') {
        if unpositive.starts_with(['+', '-']) {
            return None;
        }
        unpositive
    } else {
        scalar
    };
    if let ".inf" | ".Inf" | ".INF" = unpositive {
        return Some(f64::INFINITY);
    }
    if let "-.inf" | "-.Inf" | "-.INF" = scalar {
        return Some(f64::NEG_INFINITY);
    }
    if let ".nan" | ".NaN" | ".NAN" = scalar {
        return Some(f64::NAN.copysign(1.0));
    }
    if let Ok(float) = unpositive.parse::<f64>() {
        if float.is_finite() {
            return Some(float);
        }
    }
    None
}

/// What an untagged plain scalar is when nothing asks for a type
/// (serde's `deserialize_any`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F64(f64),
    Str(&'a str),
}

pub fn resolve_plain(v: &str) -> Resolved<'_> {
    if v.is_empty() || parse_null(v) {
        return Resolved::Null;
    }
    if let Some(b) = parse_bool(v) {
        return Resolved::Bool(b);
    }
    // A scalar that starts with a letter and is neither null nor a boolean
    // is a string: an integer starts with a digit or a sign, and a finite
    // float with a digit, a sign or a dot (`inf`, `nan` and `infinity`
    // parse, but not as finite). Most scalars of a module are words, and
    // they skip the five number parsers below.
    if v.as_bytes()[0].is_ascii_alphabetic() {
        return Resolved::Str(v);
    }
    if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
        return Resolved::U64(int);
    }
    if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
        return Resolved::I64(int);
    }
    if let Some(int) = parse_unsigned_int(v, u128::from_str_radix) {
        return Resolved::U128(int);
    }
    if let Some(int) = parse_negative_int(v, i128::from_str_radix) {
        return Resolved::I128(int);
    }
    if !digits_but_not_number(v) {
        if let Some(float) = parse_f64(v) {
            return Resolved::F64(float);
        }
    }
    Resolved::Str(v)
}
