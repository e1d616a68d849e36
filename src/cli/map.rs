//! `adjutant map`: the board as SVG.

use std::collections::BTreeSet;

use serde::Serialize;

use adjutant::base::fsio;
use adjutant::base::hex::HexId;
use adjutant::game::modules;
use adjutant::report::map::svg::{self, Options};
use adjutant::Error;

use super::arguments::{Format, MapArgs};
use super::output::Out;
use super::Outcome;

fn parse_hex(what: &str, s: &str) -> Result<HexId, Error> {
    s.trim().parse().map_err(|e| Error::usage(format!("{what}: '{s}': {e}")))
}

#[derive(Serialize)]
struct Written {
    file: String,
    bytes: usize,
}

pub fn run(args: &MapArgs, out: &Out) -> Outcome {
    let files = modules::files(&args.module, args.games_dir.as_deref())?;
    let system = modules::system_reading(&files)?;
    let module = system.board(&files).unwrap_or_else(|| Err(modules::lacks(&args.module, system, "map")))?;
    let region = match &args.region {
        None => None,
        Some(r) => {
            let (a, b) = r
                .split_once(':')
                .ok_or_else(|| Error::usage(format!("--region '{r}': write two corner hexes, e.g. 1001:2208")))?;
            Some((parse_hex("--region", a)?, parse_hex("--region", b)?))
        }
    };
    let highlight: BTreeSet<HexId> =
        args.highlight.iter().map(|h| parse_hex("--highlight", h)).collect::<Result<_, _>>()?;
    for h in &highlight {
        if !module.map().contains(*h) {
            return Err(Error::usage(format!("--highlight: hex {h} is not on the map of {}", module.info().id)).into());
        }
    }
    let counters = match &args.scenario {
        Some(id) => module.setup(id)?,
        None => Vec::new(),
    };
    let title = match &args.scenario {
        Some(id) => format!("{}: {}", module.info().name, module.info().scenario(id)?.name),
        None => module.info().name.clone(),
    };
    // The scenario's map: Savannah 4.4's printed siege works are the
    // Historical Scenario's only.
    let map = match &args.scenario {
        Some(id) => module.scenario_map(id)?,
        None => std::borrow::Cow::Borrowed(module.map()),
    };
    let svg = svg::render(&map, &counters, &Options { title: Some(title), region, highlight, ..Options::default() });
    match &args.output {
        Some(path) => {
            #[cfg(feature = "png")]
            let bytes = if args.png {
                adjutant::report::map::png::render_png(&svg).map_err(Error::usage)?
            } else {
                svg.into_bytes()
            };
            #[cfg(not(feature = "png"))]
            let bytes = svg.into_bytes();
            fsio::write_atomic(path, &bytes)?;
            let written = Written { file: path.display().to_string(), bytes: bytes.len() };
            out.result(&written, |_| format!("wrote {} ({} bytes)\n", written.file, written.bytes))?;
        }
        None if out.format == Format::Json => {
            out.result(&serde_json::json!({ "svg": svg }), |_| String::new())?;
        }
        None => out.write(&svg)?,
    }
    Ok(0)
}
