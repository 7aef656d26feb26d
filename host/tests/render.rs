//! The renderer: offscreen images of real runs, the camera's promises, the
//! `--screenshot` flag, and a real window under Xvfb fed real key presses.
//!
//! Needs a Vulkan driver (Debian: mesa-vulkan-drivers, software lavapipe is
//! enough) and, for the window test, Xvfb and xdotool.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use game_host::{Scene, Transform};
use game_host_render::{BACKGROUND, Image, Offscreen};
use glam::Vec3;

const W: u32 = 320;
const H: u32 = 240;

/// The background colour as 8-bit sRGB, as it appears in captured images.
fn background() -> [u8; 3] {
    BACKGROUND.map(|c| {
        let s = if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    })
}

fn is_background(pixel: [u8; 4]) -> bool {
    let bg = background();
    (0..3).all(|i| pixel[i].abs_diff(bg[i]) <= 1)
}

fn capture(offscreen: &mut Offscreen, runtime: &game_host::Runtime) -> Image {
    let mut scene = runtime.scene().lock().unwrap();
    offscreen.capture(&mut *scene).expect("capture")
}

#[test]
fn spinning_cube_renders_centred_and_turns() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&cube).unwrap();
    let mut offscreen = Offscreen::new(W, H).expect("a GPU or lavapipe");

    let before = capture(&mut offscreen, &runtime);
    runtime.run_frames(30);
    let after = capture(&mut offscreen, &runtime);

    assert_ne!(before, after, "the cube did not turn");
    for image in [&before, &after] {
        // The centre is the cube, in its (lit) orange; corners are background.
        let [r, g, b, _] = image.pixel(W / 2, H / 2);
        assert!(r > g && g > b && r > 120, "centre is {:?}", [r, g, b]);
        for (x, y) in [(0, 0), (W - 1, 0), (0, H - 1), (W - 1, H - 1)] {
            assert!(is_background(image.pixel(x, y)), "corner ({x}, {y})");
        }
    }
    assert_eq!(game_host_render::entity_color("cube"), [0.90, 0.45, 0.10]);
}

#[test]
fn cubes_at_known_positions_light_up_their_spots() {
    let mut scene = Scene::new();
    let mut positions = Vec::new();
    for row in -1..=1 {
        for col in -1..=1 {
            let position = Vec3::new(col as f32 * 6.0, 0.0, row as f32 * 6.0);
            scene.spawn_with(
                &format!("block {row} {col}"),
                Transform {
                    position,
                    ..Transform::default()
                },
            );
            positions.push(position);
        }
    }
    let mut offscreen = Offscreen::new(W, H).expect("a GPU or lavapipe");
    let image = offscreen.capture(&mut scene).unwrap();
    let camera = offscreen.camera(&mut scene);

    let mut lit = 0;
    for p in &positions {
        let (x, y) = camera.project(*p, W, H).expect("in front of the camera");
        assert!(
            !is_background(image.pixel(x as u32, y as u32)),
            "nothing at {p}"
        );
        lit += 1;
        // Halfway to the next block along x is empty ground.
        let (gx, gy) = camera.project(*p + Vec3::new(3.0, 0.0, 0.0), W, H).unwrap();
        assert!(
            is_background(image.pixel(gx as u32, gy as u32)),
            "gap at {p} is not empty"
        );
    }
    assert_eq!(lit, 9);
    // Nothing beyond the blocks.
    let bg_pixels = image
        .pixels
        .chunks(4)
        .filter(|p| is_background([p[0], p[1], p[2], p[3]]))
        .count();
    assert!(
        bg_pixels > (W * H / 2) as usize,
        "{bg_pixels} background pixels"
    );
}

#[test]
fn screenshot_flag_writes_a_png_without_a_window() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cube.png");
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            "--headless",
            "--frames",
            "60",
            "--size",
            "200x150",
            "--screenshot",
        ])
        .arg(&file)
        .current_dir(common::workspace())
        .env("NO_COLOR", "1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap()));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!((info.width, info.height), (200, 150));
}

/// Pixels of the overlay's text colour (yellow) in the top left corner of
/// a screenshot of the `hot` test script taken with `args`.
fn overlay_pixels(args: &[&str]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shot.png");
    let component = common::build("hot");
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .arg("run")
        .arg(&component)
        .args(["--headless", "--frames", "30", "--size", "480x240"])
        .args(args)
        .arg("--screenshot")
        .arg(&file)
        .arg("--cache-dir")
        .arg(common::cache_dir())
        .current_dir(common::workspace())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let stride = info.line_size;
    let channels = stride / info.width as usize;
    // The text is (1.0, 0.95, 0.3) linear: (255, 250, 149) in sRGB.
    (0..60)
        .flat_map(|y| (0..320).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = &pixels[y * stride + x * channels..];
            p[0] > 230 && p[1] > 220 && (110..190).contains(&p[2])
        })
        .count()
}

#[test]
fn the_overlay_shows_the_frame_and_the_slowest_scripts_in_a_screenshot() {
    let with = overlay_pixels(&["--overlay"]);
    let without = overlay_pixels(&[]);
    // Four lines of 5x7 text at twice the size: a few thousand pixels.
    assert!(with > 1_000, "{with} overlay pixels");
    assert_eq!(without, 0);
}

#[test]
fn the_overlay_lists_scripts_by_their_time() {
    let engine = common::engine();
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&common::load(&engine, "hot")).unwrap();
    runtime
        .spawn(&common::load(&engine, "spinning-cube"))
        .unwrap();
    runtime.run_frames(20);
    let lines = game_host_render::overlay_lines(&runtime, 1.5);
    assert!(lines[0].starts_with("frame 20  1.50 ms"), "{lines:?}");
    assert!(lines[2].starts_with("test_hot"), "{lines:?}");
    assert!(lines[3].starts_with("spinning_cube"), "{lines:?}");
}

#[test]
fn without_a_display_the_window_mode_says_to_use_headless() {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["run", "--frames", "5"])
        .current_dir(common::workspace())
        .env("NO_COLOR", "1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("error:"))
        .expect("an error line");
    assert!(line.contains("cannot open a window"), "{line}");
    assert!(line.contains("run with --headless"), "{line}");
}

/// An Xvfb server on a free display, stopped on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        let number = (90..200)
            .find(|n| {
                !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                    && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            })
            .expect("a free X display number");
        let display = format!(":{number}");
        let child = Command::new("Xvfb")
            .args([&display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is needed for the window test (Debian: apt-get install xvfb)");
        let socket = format!("/tmp/.X11-unix/X{number}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !Path::new(&socket).exists() {
            assert!(Instant::now() < deadline, "Xvfb did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Xvfb { child, display }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn window_runs_frames_takes_real_keys_and_exits_cleanly() {
    let xvfb = Xvfb::start();
    let runtime_dir = tempfile::tempdir().unwrap();
    let recording = runtime_dir.path().join("window.rec");
    let mut host = Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            "examples/message-window",
            "--frames",
            "600",
            "--record",
        ])
        .arg(&recording)
        .current_dir(common::workspace())
        .env("DISPLAY", &xvfb.display)
        .env("XDG_RUNTIME_DIR", runtime_dir.path())
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let stderr = host.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let mut wait_for = |needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(line.clone());
            if line.contains(needle) {
                return line;
            }
        }
        panic!("`{needle}` never logged:\n{}", seen.join("\n"));
    };
    wait_for("window open adapter=");
    wait_for("press Enter to close");

    // A real key press, through X11 and winit, to the script.
    let status = Command::new("xdotool")
        .args([
            "search",
            "--sync",
            "--name",
            "game-host",
            "windowfocus",
            "--sync",
            "key",
            "Return",
        ])
        .env("DISPLAY", &xvfb.display)
        .status()
        .expect("xdotool is needed for the window test (Debian: apt-get install xdotool)");
    assert!(status.success());
    wait_for("enter pressed: closing");
    wait_for("window closed");
    let stopped = wait_for("stopped frames=");
    assert!(stopped.contains("frames=600"), "{stopped}");
    let status = host.wait().unwrap();
    assert!(status.success(), "host exited with {status}");

    // The run, key press and all, replays headless to the same scenes.
    let text = std::fs::read_to_string(&recording).unwrap();
    assert!(text.contains(r#""input":{"press":"enter"}"#), "{text:.300}");
    let replay = Command::new(env!("CARGO_BIN_EXE_host"))
        .arg("replay")
        .arg(&recording)
        .current_dir(common::workspace())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success() && out.contains("600 frames agree"),
        "{out}{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}
