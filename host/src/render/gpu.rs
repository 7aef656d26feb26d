//! The wgpu instance, adapter, device and queue.

use anyhow::{Context, Result, anyhow};

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
