//! HTML reports and SVG maps are checked by rendering them: headless
//! Chromium takes a screenshot, and the PNG is measured.
//!
//! Chromium is required, not optional: a test that uses this fails, with
//! the command that installs it, when there is no Chromium.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one screenshot may take before Chromium is killed.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Chromium's flags for a headless run as root on a machine with a closed
/// network: no sandbox (root), no GPU, and none of the background
/// connections that would be refused.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
];

/// The Chromium to run: $CHROMIUM, else Debian's or Ubuntu's.
pub fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(path.is_file(), "CHROMIUM={} is not a file", path.display());
        return path;
    }
    for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(candidate).is_file() {
            return PathBuf::from(candidate);
        }
    }
    panic!(
        "Chromium is needed to check how maps and reports render, and none was found \
         (/usr/bin/chromium, /usr/bin/chromium-browser, or set CHROMIUM=path). \
         Install it with: apt-get install chromium"
    );
}

/// A screenshot of `file` (an SVG or HTML file) in a `width` × `height`
/// window, as PNG bytes.
pub fn screenshot(file: &Path, width: u32, height: u32) -> Vec<u8> {
    let browser = chromium();
    let file = file.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let work = tempfile::Builder::new().prefix("adjutant-chromium-").tempdir().unwrap();
    let out = work.path().join("screenshot.png");
    let profile = work.path().join("profile");
    let mut cmd = Command::new(&browser);
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", out.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("file://{}", file.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so that a hung run is killed with its children.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{} does not start: {e}", browser.display()));
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > TIMEOUT {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium took more than {} s to screenshot {}", TIMEOUT.as_secs(), file.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let png = std::fs::read(&out).unwrap_or_else(|e| {
        panic!(
            "Chromium ({}) wrote no screenshot of {} ({e}); it exited with {}\nstderr:\n{}",
            browser.display(),
            file.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "Chromium's screenshot is not a PNG");
    png
}

/// A PNG's pixels as RGBA, with its width and height.
pub fn decode(png: &[u8]) -> (u32, u32, Vec<[u8; 4]>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a PNG of a sane size")];
    let info = reader.next_frame(&mut buf).expect("PNG pixels");
    let bytes = &buf[..info.buffer_size()];
    let pixels = match info.color_type {
        png::ColorType::Rgba => bytes.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect(),
        png::ColorType::Rgb => bytes.chunks_exact(3).map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => bytes.chunks_exact(2).map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => bytes.iter().map(|g| [*g, *g, *g, 255]).collect(),
        png::ColorType::Indexed => unreachable!("normalize_to_color8 expands palettes"),
    };
    (info.width, info.height, pixels)
}

/// A PNG's width and height.
pub fn size(png: &[u8]) -> (u32, u32) {
    let (w, h, _) = decode(png);
    (w, h)
}

/// How far from blank a picture is: the number of distinct colours, and
/// the share of pixels that are not the background (the commonest colour).
pub fn not_blank(png: &[u8]) -> (usize, f64) {
    let (_, _, pixels) = decode(png);
    if pixels.is_empty() {
        return (0, 0.0);
    }
    let distinct: HashSet<[u8; 4]> = pixels.iter().copied().collect();
    let mut counts: HashMap<[u8; 4], usize> = HashMap::new();
    for p in &pixels {
        *counts.entry(*p).or_default() += 1;
    }
    let background = counts.values().copied().max().unwrap_or(0);
    (distinct.len(), (pixels.len() - background) as f64 / pixels.len() as f64)
}
