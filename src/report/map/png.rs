//! PNG pictures of the map: the SVG rasterised by resvg with an embedded
//! font (DejaVu Sans, assets/fonts), so the result does not depend on the
//! fonts of the machine.

use resvg::{tiny_skia, usvg};

static SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
static SANS_BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// Rasterise an SVG document; `Err` says why it cannot be drawn.
pub fn render_png(svg: &str) -> Result<Vec<u8>, String> {
    render_png_within(svg, u32::MAX)
}

/// Rasterise an SVG document at most `width` pixels wide as a PNG of at
/// most `colours` colours (up to 256): a mail's picture. The most common
/// colours are kept exactly; every other pixel takes the nearest of them
/// (ties by colour order, so the bytes are always the same).
pub fn render_png_indexed(svg: &str, width: u32, colours: usize) -> Result<Vec<u8>, String> {
    let pixmap = rasterise(svg, width)?;
    let (w, h) = (pixmap.width(), pixmap.height());
    let rgb: Vec<[u8; 3]> = pixmap
        .pixels()
        .iter()
        .map(|p| {
            let c = p.demultiply();
            // Over white where the picture is not opaque.
            let a = c.alpha() as u32;
            let over = |v: u8| ((v as u32 * a + 255 * (255 - a)) / 255) as u8;
            [over(c.red()), over(c.green()), over(c.blue())]
        })
        .collect();
    let mut counts: std::collections::BTreeMap<[u8; 3], u32> = std::collections::BTreeMap::new();
    for c in &rgb {
        *counts.entry(*c).or_default() += 1;
    }
    let mut common: Vec<([u8; 3], u32)> = counts.iter().map(|(c, n)| (*c, *n)).collect();
    common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 3]> = common.iter().take(colours.clamp(1, 256)).map(|(c, _)| *c).collect();
    let nearest = |c: &[u8; 3]| -> u8 {
        let d = |p: &[u8; 3]| (0..3).map(|i| (p[i] as i32 - c[i] as i32).pow(2)).sum::<i32>();
        palette.iter().enumerate().min_by_key(|(i, p)| (d(p), *i)).map(|(i, _)| i as u8).unwrap_or(0)
    };
    let index: std::collections::BTreeMap<[u8; 3], u8> = counts.keys().map(|c| (*c, nearest(c))).collect();
    let data: Vec<u8> = rgb.iter().map(|c| index[c]).collect();
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(palette.concat());
        encoder.set_compression(png::Compression::High);
        let mut writer = encoder.write_header().map_err(|e| format!("PNG encoding failed: {e}"))?;
        writer.write_image_data(&data).map_err(|e| format!("PNG encoding failed: {e}"))?;
    }
    Ok(out)
}

/// Rasterise an SVG document at most `width` pixels wide (scaled down,
/// never up).
pub fn render_png_within(svg: &str, width: u32) -> Result<Vec<u8>, String> {
    rasterise(svg, width)?.encode_png().map_err(|e| format!("PNG encoding failed: {e}"))
}

fn rasterise(svg: &str, width: u32) -> Result<tiny_skia::Pixmap, String> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(SANS.to_vec());
    fonts.load_font_data(SANS_BOLD.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| format!("the SVG cannot be read: {e}"))?;
    let size = tree.size().to_int_size();
    let scale = if size.width() > width { width as f32 / size.width() as f32 } else { 1.0 };
    let (w, h) = if scale < 1.0 {
        (width, ((size.height() as f32 * scale).round() as u32).max(1))
    } else {
        (size.width(), size.height())
    };
    let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or_else(|| "the picture has no area".to_string())?;
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    Ok(pixmap)
}
