//! A captured RGBA image and PNG output.

use std::path::Path;

use anyhow::{Context, Result};

/// An 8-bit RGBA image, rows top to bottom, colours sRGB-encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl Image {
    /// The pixel at `(x, y)` as `[r, g, b, a]`.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ]
    }

    /// Writes the image as a PNG file.
    pub fn save_png(&self, path: &Path) -> Result<()> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("failed to create `{}`", path.display()))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder
            .write_header()
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        writer
            .write_image_data(&self.pixels)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        writer
            .finish()
            .with_context(|| format!("failed to write `{}`", path.display()))
    }
}
