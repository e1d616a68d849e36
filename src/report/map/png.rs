//! PNG pictures of the map: the SVG rasterised by resvg with an embedded
//! font (DejaVu Sans, assets/fonts), so the result does not depend on the
//! fonts of the machine.

use resvg::{tiny_skia, usvg};

static SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
static SANS_BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// Rasterise an SVG document; `Err` says why it cannot be drawn.
pub fn render_png(svg: &str) -> Result<Vec<u8>, String> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(SANS.to_vec());
    fonts.load_font_data(SANS_BOLD.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| format!("the SVG cannot be read: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        tiny_skia::Pixmap::new(size.width(), size.height()).ok_or_else(|| "the picture has no area".to_string())?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG encoding failed: {e}"))
}
