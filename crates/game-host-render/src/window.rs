//! A winit window that shows the scene and steps the runtime: the windowed
//! counterpart of [`HeadlessRunner`](super::HeadlessRunner).
//!
//! Rendering follows the display (vsync); the simulation keeps its fixed
//! timestep: each redraw runs the frames the shared [`Pacing`] says are due,
//! then draws. Key presses and releases go to scripts as input events.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::cube::CubeRenderer;
use crate::gpu::depth_view;
use crate::keys::key_for_code;
use crate::overlay::{OverlayRenderer, overlay_lines};
use crate::{Camera, Gpu};
use game_host::Event;
use game_host::Runtime;
use game_host::runner::Pacing;
use game_host::sync::LockExt;

/// Runs a [`Runtime`] in a window until it is closed (or for a number of
/// frames).
#[derive(Debug, Clone)]
pub struct WindowRunner {
    /// Close the window after this many simulation frames.
    pub frames: Option<u64>,
    /// Window title.
    pub title: String,
    /// Initial inner size in physical pixels.
    pub size: (u32, u32),
    /// Show the overlay (the frame's time, the slowest scripts) from the
    /// start; F3 toggles it.
    pub overlay: bool,
}

impl WindowRunner {
    /// Opens the window and runs until it closes; returns the frames run.
    /// `between` is called at every frame boundary, as in
    /// [`HeadlessRunner::run_with`](game_host::HeadlessRunner::run_with).
    pub fn run(&self, runtime: &mut Runtime, between: &mut dyn FnMut(&mut Runtime)) -> Result<u64> {
        let event_loop = EventLoop::new().map_err(|e| no_window(&e))?;
        event_loop.set_control_flow(ControlFlow::Poll);
        let pacing = Pacing::new(Duration::from_secs_f64(runtime.dt()), Instant::now());
        let mut app = App {
            runner: self,
            runtime,
            between,
            view: None,
            error: None,
            frames: 0,
            pacing,
            overlay: self.overlay,
            frame_ms: 0.0,
        };
        event_loop
            .run_app(&mut app)
            .map_err(|e| anyhow!("the window's event loop failed: {e}"))?;
        match app.error {
            Some(error) => Err(error),
            None => Ok(app.frames),
        }
    }
}

/// What exists once the window is open.
struct View {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    gpu: Gpu,
    config: wgpu::SurfaceConfiguration,
    cubes: CubeRenderer,
    overlay: OverlayRenderer,
    depth: wgpu::TextureView,
}

struct App<'a> {
    runner: &'a WindowRunner,
    runtime: &'a mut Runtime,
    between: &'a mut dyn FnMut(&mut Runtime),
    view: Option<View>,
    error: Option<anyhow::Error>,
    frames: u64,
    pacing: Pacing,
    /// Whether the overlay is shown (F3), and the last frame's time.
    overlay: bool,
    frame_ms: f64,
}

impl App<'_> {
    fn open(&self, event_loop: &ActiveEventLoop) -> Result<View> {
        let (width, height) = self.runner.size;
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title(self.runner.title.clone())
                        .with_inner_size(PhysicalSize::new(width, height)),
                )
                .map_err(|e| no_window(&e))?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let surface = instance
            .create_surface(window.clone())
            .context("cannot draw into the window")?;
        let gpu = Gpu::new(instance, Some(&surface))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .context("the GPU cannot present to this window")?;
        config.present_mode = wgpu::PresentMode::AutoVsync;
        surface.configure(&gpu.device, &config);
        tracing::info!(adapter = %gpu.describe(), "window open");
        Ok(View {
            cubes: CubeRenderer::new(&gpu.device, config.format),
            overlay: OverlayRenderer::new(&gpu.device, config.format),
            depth: depth_view(&gpu.device, config.width, config.height),
            window,
            surface,
            gpu,
            config,
        })
    }

    /// Runs the simulation frames real time has made due.
    fn simulate(&mut self, event_loop: &ActiveEventLoop) {
        for _ in 0..self.pacing.tick(Instant::now()) {
            (self.between)(self.runtime);
            let started = Instant::now();
            self.runtime.step();
            self.frame_ms = started.elapsed().as_secs_f64() * 1e3;
            self.frames += 1;
            if self.runner.frames.is_some_and(|limit| self.frames >= limit) {
                event_loop.exit();
                return;
            }
        }
    }

    fn draw(&mut self) -> Result<()> {
        let Some(view) = self.view.as_mut() else {
            return Ok(());
        };
        let frame = match view.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame)
            | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => frame,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                view.surface.configure(&view.gpu.device, &view.config);
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(());
            }
            other => return Err(anyhow!("cannot draw into the window: {other:?}")),
        };
        {
            let mut scene = self.runtime.scene().lock_unpoisoned();
            let aspect = view.config.width as f32 / view.config.height as f32;
            let camera = Camera::fit(&mut *scene, aspect);
            view.cubes
                .prepare(&view.gpu.device, &view.gpu.queue, &mut *scene, &camera);
        }
        let lines = match self.overlay {
            true => overlay_lines(self.runtime, self.frame_ms),
            false => Vec::new(),
        };
        let size = (view.config.width, view.config.height);
        view.overlay.prepare(&view.gpu.queue, &lines, size);
        let target = frame.texture.create_view(&Default::default());
        let mut encoder = view.gpu.device.create_command_encoder(&Default::default());
        view.cubes.draw(&mut encoder, &target, &view.depth);
        view.overlay.draw(&mut encoder, &target);
        view.gpu.queue.submit([encoder.finish()]);
        view.window.pre_present_notify();
        view.gpu.queue.present(frame);
        Ok(())
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        let Some(view) = self.view.as_mut() else {
            return;
        };
        if size.width == 0 || size.height == 0 {
            return;
        }
        view.config.width = size.width;
        view.config.height = size.height;
        view.surface.configure(&view.gpu.device, &view.config);
        view.depth = depth_view(&view.gpu.device, size.width, size.height);
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: anyhow::Error) {
        self.error = Some(error);
        event_loop.exit();
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.view.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(view) => self.view = Some(view),
            Err(error) => self.fail(event_loop, error),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size),
            // Not the presses winit makes up when the window gains focus.
            WindowEvent::KeyboardInput {
                event,
                is_synthetic: false,
                ..
            } if event.state == ElementState::Pressed
                && !event.repeat
                && event.physical_key == PhysicalKey::Code(KeyCode::F3) =>
            {
                self.overlay = !self.overlay;
                tracing::info!(
                    "overlay {} (F3)",
                    if self.overlay { "shown" } else { "hidden" }
                );
            }
            WindowEvent::KeyboardInput { event, .. } if !event.repeat => {
                if let PhysicalKey::Code(code) = event.physical_key
                    && let Some(key) = key_for_code(code)
                {
                    self.runtime.input().event(match event.state {
                        ElementState::Pressed => Event::KeyPressed(key),
                        ElementState::Released => Event::KeyReleased(key),
                    });
                }
            }
            WindowEvent::RedrawRequested => {
                self.simulate(event_loop);
                if let Err(error) = self.draw() {
                    self.fail(event_loop, error);
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(view) = &self.view {
            view.window.request_redraw();
        }
    }
}

/// The one-line error for a window that cannot be opened. winit's OS errors
/// start with the source location that raised them; users need the reason.
fn no_window(error: &dyn std::fmt::Display) -> anyhow::Error {
    let text = error.to_string();
    let reason = match text.strip_prefix("os error at ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, reason)| reason),
        None => &text,
    };
    let reason = reason.trim_end_matches('.');
    anyhow!("cannot open a window: {reason}; run with --headless")
}
