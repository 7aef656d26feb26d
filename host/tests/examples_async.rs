//! The async examples, built from source and run headless with scripted
//! input: message-window, wander and terrain.

mod common;

use game_host::log::MemoryLog;
use game_host::scene::GameScene;
use game_host::{Event, Key, Runtime};
use game_host_terrain::TileCoord;
use glam::Vec3;

/// `(frame, message)` of every log line.
fn timeline(log: &MemoryLog) -> Vec<(u64, String)> {
    log.records()
        .into_iter()
        .map(|r| (r.frame, r.message))
        .collect()
}

fn run_until(runtime: &mut Runtime, log: &MemoryLog, message: &str, limit: u64) -> u64 {
    for _ in 0..limit {
        if log.messages().iter().any(|m| m.starts_with(message)) {
            return runtime.frame();
        }
        runtime.step();
    }
    panic!("`{message}` not logged within {limit} frames");
}

#[test]
fn message_window_opens_waits_for_enter_and_closes_on_schedule() {
    let engine = common::engine();
    let window = common::load(&engine, "message-window");
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&window).unwrap();
    runtime.input().event_at(10, Event::KeyPressed(Key::Enter)); // too early: ignored
    runtime.input().event_at(40, Event::KeyPressed(Key::Enter));

    runtime.run_frames(10);
    let half_open = common::transform(&runtime, "window").scale.y;
    assert!((half_open - 0.5).abs() < 1e-6, "{half_open}");

    runtime.run_frames(15); // frame 25: open, waiting for Enter
    let calls = runtime.inspect().instance(id).unwrap().calls;
    runtime.run_frames(14); // frame 39
    assert_eq!(
        runtime.inspect().instance(id).unwrap().calls,
        calls,
        "woken while waiting"
    );

    runtime.run_frames(21); // frame 60
    assert_eq!(
        timeline(&log),
        [
            (0, "window opening".to_owned()),
            (20, "window open: press Enter to close".to_owned()),
            (40, "enter pressed: closing".to_owned()),
            (50, "window closed".to_owned()),
        ]
    );
    assert_eq!(common::transform(&runtime, "window").scale.y, 0.0);
    assert_eq!(runtime.inspect().wait_stats().pending, 0);
    assert!(runtime.inspect().errors().is_empty());
}

/// Pending waits as `(task, what)`.
fn waits(runtime: &Runtime, id: uuid::Uuid) -> Vec<(u32, String)> {
    runtime
        .inspect()
        .pending_waits(id)
        .into_iter()
        .map(|w| (w.task, w.what))
        .collect()
}

#[test]
fn wander_switch_while_loitering_cancels_the_loiter_timer() {
    let engine = common::engine();
    let wander = common::load(&engine, "wander");
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&wander).unwrap();

    let frame = run_until(&mut runtime, &log, "loitering", 1000);
    // Task 1 (the brain) waits for Space; task 2 (wandering) loiters.
    let before = waits(&runtime, id);
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before.contains(&(1, "event key-pressed(space)".to_owned())));
    assert!(before.contains(&(2, format!("timer due at frame {}", frame + 30))));

    let cancelled = runtime.inspect().wait_stats().cancelled;
    runtime.input().event(Event::KeyPressed(Key::Space));
    runtime.step();

    assert_eq!(runtime.inspect().wait_stats().cancelled, cancelled + 1);
    let after = waits(&runtime, id);
    assert_eq!(after, [(1, "motion of entity 1 to [0, 0, 0]".to_owned())]);
    run_until(&mut runtime, &log, "home", 1000);
    assert_eq!(common::transform(&runtime, "agent").position, Vec3::ZERO);
    assert_eq!(runtime.inspect().wait_stats().pending, 0);
    // The old task never walked on.
    assert_eq!(
        log.messages()
            .iter()
            .filter(|m| m.starts_with("walking"))
            .count(),
        1
    );
}

#[test]
fn wander_switch_while_walking_cancels_the_movement() {
    let engine = common::engine();
    let wander = common::load(&engine, "wander");
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&wander).unwrap();
    runtime.run_frames(50); // walking to its first point

    let before = waits(&runtime, id);
    let walking: Vec<_> = before.iter().filter(|(task, _)| *task == 2).collect();
    assert_eq!(walking.len(), 1, "{before:?}");
    assert!(
        walking[0].1.starts_with("motion of entity 1 to [6.07"),
        "{before:?}"
    );
    let at_switch = common::transform(&runtime, "agent").position;

    let cancelled = runtime.inspect().wait_stats().cancelled;
    runtime.input().event(Event::KeyPressed(Key::Space));
    runtime.step();

    assert_eq!(runtime.inspect().wait_stats().cancelled, cancelled + 1);
    assert_eq!(
        waits(&runtime, id),
        [(1, "motion of entity 1 to [0, 0, 0]".to_owned())]
    );
    // Motions step at the start of a frame, before events reach scripts, so
    // the old motion took its last step in the switch frame; from the next
    // frame on the agent heads home instead of on toward the old point.
    let switched = common::transform(&runtime, "agent").position;
    assert!(switched.length() > at_switch.length());
    runtime.step();
    let next = common::transform(&runtime, "agent").position;
    let step = 4.0 / 60.0; // SPEED * dt
    assert!(
        (switched.length() - next.length() - step).abs() < 1e-4,
        "{switched} -> {next}"
    );
    run_until(&mut runtime, &log, "home", 1000);
    assert_eq!(runtime.inspect().wait_stats().pending, 0);
}

fn tile_names(runtime: &Runtime) -> Vec<String> {
    let mut names = Vec::new();
    runtime.scene().lock().unwrap().for_each(&mut |_, name, _| {
        if name.starts_with("tile ") {
            names.push(name.to_owned());
        }
    });
    names
}

#[test]
fn terrain_places_tiles_as_the_camera_pans() {
    let engine = common::engine();
    let terrain = common::load(&engine, "terrain");
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&terrain).unwrap();

    runtime.run_frames(1);
    // The 3x3 tiles around the camera, requested in entrypoint, land at frame 1.
    assert_eq!(tile_names(&runtime).len(), 9);
    runtime.run_frames(153); // frame 154: the camera crosses x = 128 here
    assert_eq!(tile_names(&runtime).len(), 9);
    runtime.step(); // frame 155: the next column is delivered
    let names = tile_names(&runtime);
    assert_eq!(names.len(), 12);
    assert_eq!(&names[9..], ["tile 0/2/-1", "tile 0/2/0", "tile 0/2/1"]);

    // Each tile entity sits at its tile's centre and mean height.
    let tile = game_host_terrain::Tile::generate(TileCoord {
        level: 0,
        x: 2,
        y: 0,
    });
    let placed = common::transform(&runtime, "tile 0/2/0").position;
    assert_eq!(placed, Vec3::new(2.5 * 128.0, tile.mean, 0.5 * 128.0));
    let stats = runtime.inspect().job_stats();
    assert_eq!((stats.requests, stats.generated), (12, 12));
}

#[test]
fn terrain_instances_share_tile_generation() {
    let engine = common::engine();
    let terrain = common::load(&engine, "terrain");
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&terrain).unwrap();
    runtime.spawn(&terrain).unwrap();

    runtime.run_frames(160);

    assert_eq!(tile_names(&runtime).len(), 24);
    let stats = runtime.inspect().job_stats();
    assert_eq!(stats.requests, 24);
    assert_eq!(stats.generated, 12);
    assert_eq!(stats.shared, 12);
}
