//! Parallel frames: a frame's script calls run on several threads and the
//! scene a frame leaves does not depend on how many (docs/parallel-frames.md).
//! Through the `host` binary, as a user runs it: the dumped scene is the
//! same byte for byte with 1, 2 and 4 frame threads, for scripts that turn
//! entities of their own, and for scripts that all write one shared entity,
//! spawn, despawn and message each other; a recording made on one thread
//! replays on two; the log reads the same on 1, 2 and 4 threads; scripts
//! that turn one entity both turn it (relative writes), and scripts that set
//! one field of one entity are told once that a write was lost. (Every
//! runtime test also runs its frames on two threads: `common::runtime`.)

mod common;

use std::path::Path;
use std::process::Output;

use serde_json::Value;

fn host(args: &[&str]) -> Output {
    common::run_host(args, &common::cache_dir())
}

/// Runs `script` headless with `instances` instances for `frames` frames
/// on `threads` frame threads; returns the dumped scene's text.
fn dump_after(script: &Path, instances: u32, frames: u32, threads: u32) -> String {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("scene.json");
    let stderr = run_ok(
        Some(script),
        &instances.to_string(),
        &frames.to_string(),
        &threads.to_string(),
        &["--dump-scene", dump.to_str().unwrap()],
    );
    assert!(!stderr.contains("ERROR"), "{stderr}");
    std::fs::read_to_string(&dump).unwrap()
}

fn entities<'a>(scene: &'a Value, name: &str) -> Vec<&'a Value> {
    scene["entities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == name)
        .collect()
}

#[test]
fn a_thousand_scripts_turning_their_own_entities_end_the_same_on_one_or_two_threads() {
    let script = common::build("parallel-own");
    let one = dump_after(&script, 1000, 300, 1);
    let two = dump_after(&script, 1000, 300, 2);
    assert!(one == two, "the scenes differ with 1 and 2 frame threads");
    let scene: Value = serde_json::from_str(&one).unwrap();
    let own = entities(&scene, "own");
    assert_eq!(own.len(), 1000);
    // Each turned about y at its own speed (0.5 to 2 rad/s, by its id).
    let turned: Vec<f64> = own
        .iter()
        .map(|e| e["rotation"][1].as_f64().unwrap())
        .collect();
    let mut speeds = turned.clone();
    speeds.sort_by(f64::total_cmp);
    speeds.dedup();
    assert_eq!(speeds.len(), 7, "{speeds:?}");
}

#[test]
fn scripts_that_share_an_entity_spawn_and_message_end_the_same_on_one_two_and_four_threads() {
    let script = common::build("parallel-shared");
    let one = dump_after(&script, 200, 120, 1);
    for threads in [2, 4] {
        let other = dump_after(&script, 200, 120, threads);
        assert!(
            one == other,
            "the scenes differ with 1 and {threads} frame threads"
        );
    }
    let scene: Value = serde_json::from_str(&one).unwrap();
    // One `shared`, spawned by the first instance; the others found it.
    let shared = entities(&scene, "shared");
    assert_eq!(shared.len(), 1, "{shared:?}");
    // Written by every instance in frame 120: the last call's write stands.
    assert_eq!(shared[0]["position"][1].as_f64().unwrap(), 120.0);
    // Each instance has one live entity: the even ones replaced theirs.
    let peers = entities(&scene, "peer");
    assert_eq!(peers.len(), 200);
    // Each moved by the pings it heard (sent every 10 frames by all).
    assert!(
        peers
            .iter()
            .all(|p| p["position"][0].as_f64().unwrap() > 1.0),
        "{peers:?}"
    );
}

#[test]
fn a_recording_made_on_one_thread_replays_on_two() {
    let script = common::build("parallel-shared");
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("run.rec");
    let output = host(&[
        "run",
        script.to_str().unwrap(),
        "--headless",
        "--instances",
        "100",
        "--frames",
        "90",
        "--frame-threads",
        "1",
        "--record",
        recording.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", common::stderr_of(&output));
    let output = host(&[
        "replay",
        recording.to_str().unwrap(),
        "--frame-threads",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.starts_with("replay: 90 frames agree with the recording"),
        "{stdout}\n{}",
        common::stderr_of(&output)
    );
}

/// Runs `host run` headless on `script` (the built-in one when `None`)
/// with `instances` instances for `frames` frames on `threads` frame
/// threads, and `extra` options; checks it succeeded and returns its
/// stderr.
fn run_ok(
    script: Option<&Path>,
    instances: &str,
    frames: &str,
    threads: &str,
    extra: &[&str],
) -> String {
    let mut args = vec!["run"];
    args.extend(script.map(|script| script.to_str().unwrap()));
    args.extend([
        "--headless",
        "--instances",
        instances,
        "--frames",
        frames,
        "--frame-threads",
        threads,
    ]);
    args.extend(extra);
    let output = host(&args);
    let stderr = common::stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    stderr
}

#[test]
fn the_log_reads_the_same_on_one_two_and_four_threads() {
    let script = common::build("counter");
    let log = |threads: &str| -> Vec<String> {
        let stderr = run_ok(Some(&script), "100", "5", threads, &[]);
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("tick "))
            .collect();
        // Ids differ from run to run; being v7, they sort in start order,
        // so each is named by its rank.
        let mut ids: Vec<&str> = lines
            .iter()
            .filter_map(|line| line.split("id=").nth(1)?.split(' ').next())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        lines
            .iter()
            .map(|line| {
                ids.iter()
                    .enumerate()
                    .fold(line.to_string(), |line, (rank, id)| {
                        line.replace(id, &format!("#{rank}"))
                    })
            })
            .collect()
    };
    let one = log("1");
    // 100 instances, 5 frames, one line each; each line names its instance.
    assert_eq!(one.len(), 500, "{one:?}");
    assert!(
        one[0].contains("id=#0") && one[1].contains("id=#1"),
        "{one:?}"
    );
    for threads in ["2", "4"] {
        let other = log(threads);
        assert!(
            one == other,
            "the log differs with 1 and {threads} frame threads:\n{}",
            first_difference(&one, &other)
        );
    }
}

fn first_difference(a: &[String], b: &[String]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!("line {at}: {:?}\n   against {:?}", a.get(at), b.get(at))
}

/// The cube's angle about y after `frames` frames of `instances` built-in
/// spinning cubes on `threads` frame threads, and the run's stderr.
fn cube_angle(instances: &str, frames: &str, threads: &str) -> (f64, String) {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("scene.json");
    let stderr = run_ok(
        None,
        instances,
        frames,
        threads,
        &["--dump-scene", dump.to_str().unwrap()],
    );
    let scene: Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let cube = entities(&scene, "cube")[0];
    let y = cube["rotation"][1].as_f64().unwrap();
    let w = cube["rotation"][3].as_f64().unwrap();
    (2.0 * y.atan2(w), stderr)
}

#[test]
fn two_cube_scripts_that_turn_one_cube_both_turn_it() {
    // `rotate` is a relative write: every script's turn counts, in the
    // frame's order, on any number of threads.
    let (one, _) = cube_angle("1", "30", "1");
    for threads in ["1", "2"] {
        let (two, stderr) = cube_angle("2", "30", threads);
        assert!(
            (two - 2.0 * one).abs() < 1e-4,
            "two instances turned the cube {two} rad, one {one} rad ({threads} threads)"
        );
        assert!(!stderr.contains("both set"), "{stderr}");
    }
}

#[test]
fn scripts_that_set_one_field_of_one_entity_are_told_once() {
    // 200 instances of one script set the shared entity's position every
    // frame: the last stands, and the host says so once, for the script
    // and the entity, naming two of its instances.
    let script = common::build("parallel-shared");
    for threads in ["1", "2"] {
        let stderr = run_ok(Some(&script), "200", "30", threads, &[]);
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("both set the"))
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        let warning = warnings[0];
        assert!(warning.contains("WARN"), "{warning}");
        assert!(
            warning.contains("both set the position of entity `shared`"),
            "{warning}"
        );
        let ids = warning
            .split(['(', ')'])
            .filter(|part| uuid::Uuid::parse_str(part).is_ok())
            .count();
        assert_eq!(ids, 2, "{warning}");
    }
}
