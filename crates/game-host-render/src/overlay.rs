//! [`OverlayRenderer`]: lines of text drawn over the scene (the window's
//! F3 overlay: the frame's time and the scripts that take the most), in a
//! 5x7 bitmap font (`font`), as one instanced draw of glyph cells over a
//! dark panel. Nothing is drawn while it has no lines.

use bytemuck::{Pod, Zeroable};
use game_host::Runtime;
use wgpu::util::DeviceExt;

use super::font::{self, FILLED, HEIGHT, WIDTH};

/// Pixels per font pixel.
const SCALE: f32 = 2.0;
/// Margin around the text, and between lines, in pixels.
const MARGIN: f32 = 8.0;
const LINE_GAP: f32 = 4.0;
/// The text's colour and the panel's (linear RGBA).
const TEXT: [f32; 4] = [1.0, 0.95, 0.3, 1.0];
const PANEL: [f32; 4] = [0.0, 0.0, 0.0, 0.7];
/// Most lines and characters per line drawn.
const MAX_LINES: usize = 12;
const MAX_CHARS: usize = 64;
/// Scripts listed.
const TOP: usize = 8;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Cell {
    origin: [f32; 2],
    size: [f32; 2],
    bits: [u32; 2],
    color: [f32; 4],
}

/// The overlay's lines for `runtime`: its last frame's time, then the
/// scripts that take the most time per frame (median and 99th percentile).
pub fn overlay_lines(runtime: &Runtime, frame_ms: f64) -> Vec<String> {
    let times = runtime.inspect().script_times();
    let mut scripts_ms = 0.0;
    runtime
        .inspect()
        .last_frame_times(|_, seconds| scripts_ms += seconds * 1e3);
    let mut lines = vec![
        format!(
            "frame {}  {frame_ms:.2} ms  scripts {scripts_ms:.2} ms",
            runtime.frame()
        ),
        format!("{:<20} {:>8} {:>8}", "script", "p50 ms", "p99 ms"),
    ];
    for time in times.iter().take(TOP) {
        let name: String = time.script.chars().take(20).collect();
        lines.push(format!(
            "{name:<20} {:>8.3} {:>8.3}",
            time.p50.as_secs_f64() * 1e3,
            time.p99.as_secs_f64() * 1e3
        ));
    }
    lines
}

/// Draws text lines over whatever is in the target.
pub struct OverlayRenderer {
    pipeline: wgpu::RenderPipeline,
    cells: wgpu::Buffer,
    count: u32,
}

impl OverlayRenderer {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("overlay shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("overlay.wgsl").into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overlay"),
            bind_group_layouts: &[],
            immediate_size: 0,
        });
        let cells = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Cell>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![
                0 => Float32x2, 1 => Float32x2, 2 => Uint32x2, 3 => Float32x4
            ],
        })];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("overlay"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &cells,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let capacity = 1 + MAX_LINES * MAX_CHARS;
        let cells = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("overlay cells"),
            contents: bytemuck::cast_slice(&vec![Cell::zeroed(); capacity]),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        });
        OverlayRenderer {
            pipeline,
            cells,
            count: 0,
        }
    }

    /// Lays out `lines` (the first [`MAX_LINES`], each cut at
    /// [`MAX_CHARS`]) in the top left corner of a `width` x `height`
    /// target, for the next draw. No lines: nothing is drawn.
    pub fn prepare(&mut self, queue: &wgpu::Queue, lines: &[String], (width, height): (u32, u32)) {
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        // Pixels to clip space, from the top left corner.
        let at = |x: f32, y: f32| [x / w * 2.0 - 1.0, 1.0 - y / h * 2.0];
        let size = |dx: f32, dy: f32| [dx / w * 2.0, -dy / h * 2.0];
        let (glyph_w, glyph_h) = (WIDTH as f32 * SCALE, HEIGHT as f32 * SCALE);
        let advance = glyph_w + SCALE;
        let lines: Vec<&str> = lines.iter().take(MAX_LINES).map(String::as_str).collect();
        let columns = lines
            .iter()
            .map(|l| l.chars().take(MAX_CHARS).count())
            .max()
            .unwrap_or(0);
        let mut cells = Vec::new();
        if columns > 0 {
            let panel_w = columns as f32 * advance + 2.0 * MARGIN;
            let panel_h = lines.len() as f32 * (glyph_h + LINE_GAP) - LINE_GAP + 2.0 * MARGIN;
            cells.push(Cell {
                origin: at(0.0, 0.0),
                size: size(panel_w, panel_h),
                bits: FILLED,
                color: PANEL,
            });
        }
        for (row, line) in lines.iter().enumerate() {
            let y = MARGIN + row as f32 * (glyph_h + LINE_GAP);
            for (col, c) in line.chars().take(MAX_CHARS).enumerate() {
                if c == ' ' {
                    continue;
                }
                cells.push(Cell {
                    origin: at(MARGIN + col as f32 * advance, y),
                    size: size(glyph_w, glyph_h),
                    bits: font::glyph(c),
                    color: TEXT,
                });
            }
        }
        queue.write_buffer(&self.cells, 0, bytemuck::cast_slice(&cells));
        self.count = cells.len() as u32;
    }

    /// Draws the prepared lines over `target` (kept, not cleared).
    pub fn draw(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        if self.count == 0 {
            return;
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("overlay"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.cells.slice(..));
        pass.draw(0..4, 0..self.count);
    }
}
