//! The wgpu instance, adapter, device and queue.

use anyhow::{Context, Result, anyhow};

use super::cube::DEPTH_FORMAT;

/// A GPU (or a software rasterizer such as lavapipe) ready to render.
pub struct Gpu {
    /// The wgpu instance.
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// Opens the best adapter; with a surface, one that can present to it.
    pub fn new(instance: wgpu::Instance, surface: Option<&wgpu::Surface<'_>>) -> Result<Gpu> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: surface,
            ..Default::default()
        }))
        .map_err(|e| {
            anyhow!(
                "no GPU adapter found ({e}); install a Vulkan driver \
                 (e.g. Debian's mesa-vulkan-drivers) or run with --headless"
            )
        })?;
        let info = adapter.get_info();
        tracing::debug!(adapter = %info.name, backend = ?info.backend, "using GPU adapter");
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("game-host"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .context("failed to open the GPU device")?;
        Ok(Gpu {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// An instance with no display, for offscreen rendering.
    pub fn offscreen() -> Result<Gpu> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        Gpu::new(instance, None)
    }

    /// The adapter's name and backend, for logs and reports.
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?})", info.name, info.backend)
    }
}

/// A single-sample 2-D texture of `width` x `height`.
pub(crate) fn texture(
    device: &wgpu::Device,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// A depth texture matching a colour target.
pub(crate) fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    texture(
        device,
        "depth",
        (width, height),
        DEPTH_FORMAT,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    )
    .create_view(&Default::default())
}
