//! Rendering to a texture and reading it back: screenshots without a window
//! or a display, and the renderer's tests and benchmarks.

use anyhow::{Context, Result};

use super::camera::Camera;
use super::cube::CubeRenderer;
use super::gpu::{Gpu, depth_view, texture};
use super::image::Image;
use super::overlay::OverlayRenderer;
use game_host::scene::GameScene;

/// Colour format of offscreen images: 8-bit RGBA, sRGB-encoded.
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An offscreen render target of a fixed size.
pub struct Offscreen {
    gpu: Gpu,
    cubes: CubeRenderer,
    overlay: OverlayRenderer,
    /// The overlay's lines, drawn over the scene (none: no overlay).
    lines: Vec<String>,
    width: u32,
    height: u32,
    target: wgpu::Texture,
    view: wgpu::TextureView,
    depth: wgpu::TextureView,
    readback: wgpu::Buffer,
    /// Bytes per row in `readback` (rows are padded to 256 bytes).
    padded_row: u32,
}

impl Offscreen {
    /// Opens a GPU (no display needed) and a `width` x `height` target.
    pub fn new(width: u32, height: u32) -> Result<Offscreen> {
        let gpu = Gpu::offscreen()?;
        let device = &gpu.device;
        let target = texture(
            device,
            "offscreen",
            (width, height),
            FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Ok(Offscreen {
            cubes: CubeRenderer::new(device, FORMAT),
            overlay: OverlayRenderer::new(device, FORMAT),
            lines: Vec::new(),
            view: target.create_view(&Default::default()),
            depth: depth_view(device, width, height),
            target,
            readback,
            padded_row,
            width,
            height,
            gpu,
        })
    }

    /// The GPU in use.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The camera a scene is rendered with at this size.
    pub fn camera(&self, scene: &mut dyn GameScene) -> Camera {
        Camera::fit(scene, self.width as f32 / self.height as f32)
    }

    /// Draws `lines` over the scene from now on (see
    /// [`overlay_lines`](crate::overlay_lines)); none: no overlay.
    pub fn set_overlay(&mut self, lines: Vec<String>) {
        self.lines = lines;
    }

    /// Renders the scene and waits for the GPU to finish.
    pub fn render(&mut self, scene: &mut dyn GameScene) -> Result<()> {
        let encoder = self.encode(scene);
        self.gpu.queue.submit([encoder.finish()]);
        self.wait()
    }

    /// Renders the scene and reads the image back.
    pub fn capture(&mut self, scene: &mut dyn GameScene) -> Result<Image> {
        let mut encoder = self.encode(scene);
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.target,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        self.gpu.queue.submit([encoder.finish()]);
        let (done, mapped) = std::sync::mpsc::channel();
        self.readback
            .map_async(wgpu::MapMode::Read, .., move |result| {
                let _ = done.send(result);
            });
        self.wait()?;
        mapped
            .recv()
            .context("the GPU dropped the readback")?
            .context("failed to read the image back from the GPU")?;
        let row = (self.width * 4) as usize;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        {
            let data = self
                .readback
                .get_mapped_range(..)
                .context("failed to read the image back from the GPU")?;
            for chunk in data.chunks(self.padded_row as usize) {
                pixels.extend_from_slice(&chunk[..row]);
            }
        }
        self.readback.unmap();
        Ok(Image {
            width: self.width,
            height: self.height,
            pixels,
        })
    }

    fn encode(&mut self, scene: &mut dyn GameScene) -> wgpu::CommandEncoder {
        let camera = self.camera(scene);
        self.cubes
            .prepare(&self.gpu.device, &self.gpu.queue, scene, &camera);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.cubes.draw(&mut encoder, &self.view, &self.depth);
        self.overlay
            .prepare(&self.gpu.queue, &self.lines, (self.width, self.height));
        self.overlay.draw(&mut encoder, &self.view);
        encoder
    }

    fn wait(&self) -> Result<()> {
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .context("the GPU did not finish rendering")?;
        Ok(())
    }
}
