//! Server mode as a library: worlds on loop threads advance frame by frame,
//! come and go mid-run, take events, and a world that overruns its budget
//! is stopped while the others on its thread keep running.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use game_host::log::MemoryLog;
use game_host::runtime::RuntimeConfig;
use game_host::{Event, Key, ScriptComponent};
use game_host_server::{EndReason, StartError, WorldReport};
use game_host_server::{Server, ServerConfig, WorldId, WorldSpec};

fn server(threads: usize, log: &Arc<MemoryLog>, config: ServerConfig) -> Server {
    Server::start(ServerConfig {
        threads,
        runtime: RuntimeConfig {
            hz: 60.0,
            log: log.clone(),
            ..RuntimeConfig::default()
        },
        ..config
    })
    .expect("server starts")
}

/// Starts a world of one instance of each script, for `frames` frames.
fn start(server: &Server, scripts: &[&ScriptComponent], frames: u64) -> WorldId {
    let spec = WorldSpec {
        scripts: scripts.iter().map(|s| (*s).clone()).collect(),
        frames: Some(frames),
        seed: None,
        stream_every: None,
        stream_precision: None,
        grants: None,
        open_to_players: None,
        play: None,
    };
    server.start_world(&spec).expect("world starts")
}

/// Waits until `world` has run at least `frames` frames.
fn wait_for_frame(server: &Server, world: WorldId, frames: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let frame = server
            .worlds()
            .into_iter()
            .find(|w| w.id == world)
            .map(|w| w.frame);
        match frame {
            Some(frame) if frame >= frames => return,
            Some(_) => {}
            None => panic!("{world} is not running"),
        }
        assert!(
            Instant::now() < deadline,
            "{world} did not reach frame {frames}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The x position of `name` in a report's scene: the counter script writes
/// its update count there.
fn x_of(report: &WorldReport, name: &str) -> f32 {
    report
        .scene
        .entities
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no `{name}` in {}", report.id))
        .position[0]
}

#[test]
fn worlds_start_and_stop_mid_run_and_count_every_frame() {
    let engine = common::engine();
    let counter = common::load(&engine, "counter");
    let log = Arc::new(MemoryLog::new());
    let server = server(2, &log, ServerConfig::default());
    let spec = WorldSpec {
        scripts: vec![counter.clone(), counter],
        frames: None,
        seed: None,
        stream_every: None,
        stream_precision: None,
        grants: None,
        open_to_players: None,
        play: None,
    };
    // A world that cannot start as asked is `Invalid`, whatever the room.
    let empty = WorldSpec {
        scripts: Vec::new(),
        ..spec.clone()
    };
    let error = server.start_world(&empty).unwrap_err();
    assert!(matches!(error, StartError::Invalid(_)), "{error:?}");
    assert_eq!(error.to_string(), "a world needs at least one script");
    let first: Vec<WorldId> = (0..3).map(|_| server.start_world(&spec).unwrap()).collect();
    assert_eq!(server.world_count(), 3);
    wait_for_frame(&server, first[0], 20);

    // A world started mid-run starts at frame 1: the counters' update
    // counts equal its frame count when it stops.
    let late = server.start_world(&spec).unwrap();
    let placed: Vec<usize> = server.worlds().iter().map(|w| w.thread).collect();
    assert!(
        placed.contains(&0) && placed.contains(&1),
        "placement: {placed:?}"
    );
    wait_for_frame(&server, late, 10);
    let report = server.stop_world(late).unwrap();
    assert_eq!(report.reason, EndReason::Stopped);
    assert!(report.frames >= 10, "{report:?}");
    assert_eq!(report.scene.frame, report.frames);
    assert_eq!(x_of(&report, "counter-0"), report.frames as f32);
    assert_eq!(x_of(&report, "counter-1"), report.frames as f32);
    assert!(report.errors.is_empty(), "{:?}", report.errors);

    // Stopping one world leaves the others running.
    let stopped = server.stop_world(first[1]).unwrap();
    assert_eq!(x_of(&stopped, "counter-0"), stopped.frames as f32);
    assert!(server.stop_world(first[1]).is_err(), "stopped twice");
    let before = server.worlds();
    assert_eq!(
        before.iter().map(|w| w.id).collect::<Vec<_>>(),
        [first[0], first[2]]
    );
    wait_for_frame(&server, first[2], before[1].frame + 5);

    // Shutting down ends every world after a whole frame, and refuses new ones.
    assert!(server.shut_down(Duration::from_secs(5)));
    assert!(!server.is_accepting());
    let error = server.start_world(&spec).unwrap_err();
    assert!(matches!(error, StartError::Unavailable(_)), "{error:?}");
    assert!(
        error.to_string().contains("accepts no new worlds"),
        "{error}"
    );
    let ended = server.take_ended();
    assert_eq!(ended.len(), 4);
    for report in ended
        .iter()
        .filter(|r| r.reason == EndReason::ServerStopped)
    {
        assert_eq!(x_of(report, "counter-0"), report.frames as f32);
    }
    assert_eq!(
        ended
            .iter()
            .filter(|r| r.reason == EndReason::ServerStopped)
            .count(),
        2
    );
    assert_eq!(server.world_count(), 0);
}

/// Threads of this process named `job-worker-*`.
fn job_worker_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("job-worker-"))
        .count()
}

#[test]
fn worlds_share_one_set_of_job_workers() {
    let engine = common::engine();
    let terrain = common::load(&engine, "terrain");
    let log = Arc::new(MemoryLog::new());
    let server = Server::start(ServerConfig {
        threads: 2,
        runtime: RuntimeConfig {
            hz: 60.0,
            log: log.clone(),
            job_threads: 2,
            ..RuntimeConfig::default()
        },
        ..ServerConfig::default()
    })
    .unwrap();
    let worlds: Vec<WorldId> = (0..4).map(|_| start(&server, &[&terrain], 90)).collect();
    let mut most = 0;
    while !server.wait_idle(Duration::from_millis(10)) {
        most = most.max(job_worker_threads());
    }
    // Four worlds requested tiles; two workers generated them all.
    assert_eq!(most, 2);
    let ended = server.take_ended();
    for id in worlds {
        let report = ended.iter().find(|r| r.id == id).unwrap();
        assert_eq!(report.reason, EndReason::Finished);
        let tiles = report
            .scene
            .entities
            .iter()
            .filter(|e| e.name.starts_with("tile "))
            .count();
        assert!(tiles > 0, "{id} placed no tile: {:?}", report.errors);
    }
}

#[test]
fn worlds_with_frames_end_on_their_own_and_take_events() {
    let engine = common::engine();
    let window = common::load(&engine, "message-window");
    let log = Arc::new(MemoryLog::new());
    let server = server(1, &log, ServerConfig::default());
    let waiting = start(&server, &[&window], 40);
    let pressed = start(&server, &[&window], 40);
    // The window is open at frame 20; Enter closes it over 10 frames.
    wait_for_frame(&server, pressed, 22);
    server.send(pressed, Event::KeyPressed(Key::Enter)).unwrap();
    assert!(
        server.wait_idle(Duration::from_secs(30)),
        "worlds did not end"
    );
    let ended = server.take_ended();
    assert_eq!(ended.len(), 2);
    let scale_y = |id| {
        let report = ended.iter().find(|r| r.id == id).unwrap();
        assert_eq!(report.reason, EndReason::Finished);
        assert_eq!((report.frames, report.scene.frame), (40, 40));
        let window = report.scene.entities.iter().find(|e| e.name == "window");
        window.unwrap().scale[1]
    };
    assert_eq!(scale_y(waiting), 1.0, "the untouched window stays open");
    assert_eq!(scale_y(pressed), 0.0, "the window sent Enter closed");
    let messages = log.messages();
    assert_eq!(
        messages
            .iter()
            .filter(|m| *m == "enter pressed: closing")
            .count(),
        1
    );
    assert_eq!(
        messages.iter().filter(|m| *m == "window opening").count(),
        2
    );
    assert_eq!(messages.iter().filter(|m| *m == "window closed").count(), 1);
    assert!(server.send(pressed, Event::KeyPressed(Key::Enter)).is_err());
}

#[test]
fn a_world_over_its_budget_is_stopped_and_its_thread_keeps_time() {
    let engine = common::engine();
    let fib = common::load(&engine, "fib");
    let cube = common::load(&engine, "spinning-cube");
    let trap = common::load(&engine, "trap");
    let log = Arc::new(MemoryLog::new());
    // fib(25) takes about 0.5 ms per frame, the cube a few microseconds.
    let server = server(
        1,
        &log,
        ServerConfig {
            world_budget: Some(Duration::from_micros(200)),
            overrun_frames: 10,
            ..ServerConfig::default()
        },
    );
    let cubes: Vec<WorldId> = (0..3).map(|_| start(&server, &[&cube], 60)).collect();
    let heavy = start(&server, &[&fib], 60);
    let failing = start(&server, &[&trap], 60);
    assert!(server.wait_idle(Duration::from_secs(30)));
    let ended = server.take_ended();
    let report = |id| ended.iter().find(|r| r.id == id).unwrap();

    let heavy = report(heavy);
    match &heavy.reason {
        EndReason::Overran {
            budget_ms, frames, ..
        } => {
            assert_eq!((*budget_ms, *frames), (0.2, 10));
        }
        other => panic!("the heavy world ended with {other:?}"),
    }
    assert_eq!(heavy.frames, 10, "stopped after 10 frames over budget");

    let failing = report(failing);
    assert_eq!(failing.reason, EndReason::ScriptsFailed);
    assert_eq!(failing.frames, 3);
    assert_eq!(failing.errors.len(), 1);
    assert!(
        failing.errors[0].contains("boom at frame 3"),
        "{:?}",
        failing.errors
    );

    // The light worlds ran all their frames, to the same result.
    let mut alone = common::runtime().0;
    alone
        .spawn(&common::load(&engine, "spinning-cube"))
        .unwrap();
    alone.run_frames(60);
    for id in cubes {
        let cube = report(id);
        assert_eq!(cube.reason, EndReason::Finished);
        assert_eq!(cube.scene, alone.inspect().dump());
    }

    let totals = server.totals();
    assert_eq!(totals[0].worlds_evicted, 1);
    assert_eq!(totals[0].script_errors, 1);
    assert_eq!(totals[0].updates, 3 * 60 + 10 + 3);
    let metrics = server.metrics_text();
    assert!(
        metrics.contains("game_server_worlds_evicted_total{thread=\"0\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("game_server_script_errors_total{thread=\"0\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("game_server_world_updates_total{thread=\"0\"} 193"),
        "{metrics}"
    );
}

#[test]
fn big_worlds_on_shared_frame_threads_end_as_on_one_thread() {
    // Three worlds of 100 instances each (enough for their frames to go to
    // the frame threads), on a server with one frame thread and on one with
    // two, whose helper the three worlds share: every world ends in the
    // same scene.
    let engine = game_host::ScriptEngine::new(game_host::EngineOptions {
        cache_dir: Some(common::cache_dir()),
        max_instances: 700,
        ..game_host::EngineOptions::default()
    })
    .unwrap();
    let own = common::load(&engine, "parallel-own");
    let scenes = |frame_threads: usize| {
        let log = Arc::new(MemoryLog::new());
        let server = Server::start(ServerConfig {
            threads: 2,
            runtime: RuntimeConfig {
                hz: 60.0,
                log: log.clone(),
                frame_threads,
                ..RuntimeConfig::default()
            },
            ..ServerConfig::default()
        })
        .unwrap();
        let spec = WorldSpec {
            scripts: vec![own.clone(); 100],
            frames: Some(60),
            seed: None,
            stream_every: None,
            stream_precision: None,
            grants: None,
            open_to_players: None,
            play: None,
        };
        let worlds: Vec<WorldId> = (0..3).map(|_| server.start_world(&spec).unwrap()).collect();
        assert!(server.wait_idle(Duration::from_secs(60)));
        let ended = server.take_ended();
        let scenes: Vec<_> = worlds
            .iter()
            .map(|id| {
                let report = ended.iter().find(|r| r.id == *id).unwrap();
                assert!(report.errors.is_empty(), "{:?}", report.errors);
                report.scene.clone()
            })
            .collect();
        scenes
    };
    let one = scenes(1);
    let two = scenes(2);
    assert!(
        one == two,
        "the worlds ended differently on two frame threads"
    );
    assert_eq!(one[0].entities.len(), 101, "the cube and 100 entities");
}
