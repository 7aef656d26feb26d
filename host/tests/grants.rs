//! Grants: a game decides what each script may touch. A mod
//! (`tests/scripts/cube-mod`) that sends on a channel and moves the game's
//! own cube runs as before without grants; under a policy whose imports
//! leave out `events` it is refused at load in one line; under `writes = []`
//! its write to `cube` fails naming the entity while the game goes on; a
//! `[source."PATH"]` table, keyed by where it was loaded from, gives it the
//! cube back, and a mod that takes the name of the game's trusted script
//! gets nothing of that script's table. The same holds for a hot
//! swap to a version that asks for more, and for a world whose `POST
//! /worlds` narrows the server's grants. The control surface answers every
//! health probe under a flood of 1,000 slow clients (slowhttptest).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::serve::{Serve, json, request};
use common::{cache_dir, dumped_entity, dumped_position, run_host, stderr_of, workspace};
use game_host::{GameScene, GrantFile, GrantPolicy, GrantSpec, RuntimeConfig};

/// Every interface that declares functions but `events`.
const ALL_BUT_EVENTS: &str = r#"["log", "runtime", "scene", "entity", "entities", "tasks",
    "motion", "lifetime", "game-data", "players"]"#;

const MOD: &str = "host/tests/scripts/cube-mod";

/// Writes `text` as a grants file in `dir`.
fn grants_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the mod and the counter test script headless for 10 frames under
/// `grants` (if any): exit code, stderr and the dumped scene.
fn run_mod(grants: Option<&Path>, dir: &Path) -> (Option<i32>, String, serde_json::Value) {
    run_beside_counter(MOD, grants, dir)
}

/// Runs `script` and the counter test script as [`run_mod`] runs the mod.
fn run_beside_counter(
    script: &str,
    grants: Option<&Path>,
    dir: &Path,
) -> (Option<i32>, String, serde_json::Value) {
    let scene = dir.join("scene.json");
    let _ = std::fs::remove_file(&scene);
    let mut args = vec![
        "run",
        script,
        "host/tests/scripts/counter",
        "--headless",
        "--frames",
        "10",
        "--dump-scene",
        scene.to_str().unwrap(),
    ];
    if let Some(grants) = grants {
        args.extend(["--grants", grants.to_str().unwrap()]);
    }
    let output = run_host(&args, &cache_dir());
    let dumped = std::fs::read_to_string(&scene)
        .map(|text| serde_json::from_str(&text).unwrap())
        .unwrap_or(serde_json::Value::Null);
    (output.status.code(), stderr_of(&output), dumped)
}

#[test]
fn a_mod_gets_what_the_game_grants_and_no_more() {
    let dir = tempfile::tempdir().unwrap();

    // No --grants: as before, the mod moves the cube.
    let (code, stderr, scene) = run_mod(None, dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(dumped_position(&scene, "cube"), [9.0, 9.0, 9.0]);

    // Imports without `events`: refused at load, one line naming it; the
    // other script still runs its 10 frames.
    let no_events = grants_file(
        dir.path(),
        "no-events.toml",
        &format!("[default]\nimports = {ALL_BUT_EVENTS}\n"),
    );
    let (code, stderr, scene) = run_mod(Some(&no_events), dir.path());
    assert_ne!(code, Some(0));
    let refusal = stderr
        .lines()
        .find(|l| l.contains("which its grants do not include"))
        .unwrap_or_else(|| panic!("no refusal in:\n{stderr}"));
    assert!(
        refusal.contains("script `test_cube_mod` imports `events`"),
        "{refusal}"
    );
    assert_eq!(dumped_position(&scene, "counter-0"), [10.0, 0.0, 0.0]);
    assert_eq!(dumped_position(&scene, "cube"), [0.0, 0.0, 0.0]);

    // writes = []: its own entity turns, the cube does not move, the error
    // names the cube, and the game goes on (the counter ran every frame).
    // The mod's own move went in one buffered batch with the refused one:
    // it does not land either.
    let no_writes = grants_file(dir.path(), "no-writes.toml", "[default]\nwrites = []\n");
    let (code, stderr, scene) = run_mod(Some(&no_writes), dir.path());
    assert_eq!(code, Some(1), "one script failed:\n{stderr}");
    assert!(
        stderr.contains("may not write entity `cube` (id 0)"),
        "{stderr}"
    );
    assert_eq!(dumped_position(&scene, "cube"), [0.0, 0.0, 0.0]);
    assert_eq!(dumped_position(&scene, "mod-own"), [0.0, 0.0, 0.0]);
    let own = dumped_entity(&scene, "mod-own");
    let turned = (0.25f64).sin();
    assert!(
        (own["rotation"][1].as_f64().unwrap() - turned).abs() < 1e-6,
        "{own}"
    );
    assert_eq!(dumped_position(&scene, "counter-0"), [10.0, 0.0, 0.0]);
    // What it asked for (embedded by the build) is logged beside what it got.
    assert!(
        stderr.contains("grants: `test_cube_mod` uses [entities, entity, events, runtime, scene]"),
        "{stderr}"
    );
    assert!(
        stderr.contains("declares it writes `cube`, which its grants do not allow"),
        "{stderr}"
    );

    // Its own table, by where it comes from, gives the cube back.
    let cube = grants_file(
        dir.path(),
        "cube.toml",
        &format!(
            "[default]\nwrites = []\n\n[source.{:?}]\nwrites = [\"cube\"]\n",
            workspace().join(MOD).display().to_string()
        ),
    );
    let (code, stderr, scene) = run_mod(Some(&cube), dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(dumped_position(&scene, "cube"), [9.0, 9.0, 9.0]);

    // Channels: `send` without `chat` stops the mod at its first send.
    let no_chat = grants_file(
        dir.path(),
        "no-chat.toml",
        "[default]\nsend = [\"score\"]\n",
    );
    let (code, stderr, _) = run_mod(Some(&no_chat), dir.path());
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("may not send on channel `chat`"),
        "{stderr}"
    );

    // A grants file with a typo is refused before anything runs.
    let typo = grants_file(dir.path(), "typo.toml", "[default]\nwrits = []\n");
    let (code, stderr, _) = run_mod(Some(&typo), dir.path());
    assert_eq!(code, Some(2));
    assert!(stderr.contains("line 2: unknown field `writs`"), "{stderr}");
}

/// The grants of `text`, as `--grants` reads them.
fn policy(text: &str) -> GrantPolicy {
    GrantPolicy::new(toml::from_str::<GrantFile>(text).unwrap()).unwrap()
}

#[test]
fn a_hot_swap_to_a_version_that_asks_for_more_is_refused() {
    let engine = common::engine();
    let counter = common::load(&engine, "counter");
    let cube_mod = common::load(&engine, "cube-mod");
    let (mut runtime, _log) = common::runtime_with(RuntimeConfig {
        grants: policy(&format!("[default]\nimports = {ALL_BUT_EVENTS}\n")),
        ..RuntimeConfig::default()
    });
    let id = runtime.spawn(&counter).unwrap();
    runtime.run_frames(3);
    let error = runtime.hot_swap(id, &cube_mod).unwrap_err();
    let text = format!("{error:#}");
    assert!(
        text.contains("the old version keeps running")
            && text.contains("script `test_cube_mod` imports `events`"),
        "{text}"
    );
    runtime.run_frames(3);
    assert_eq!(common::transform(&runtime, "counter-0").position.x, 6.0);
    assert!(runtime.inspect().errors().is_empty());

    // The same swap under grants that allow it goes through, and the
    // cube moves.
    let (mut runtime, _log) = common::runtime_with(RuntimeConfig::default());
    let id = runtime.spawn(&counter).unwrap();
    runtime.hot_swap(id, &cube_mod).unwrap();
    runtime.run_frames(1);
    assert_eq!(common::transform(&runtime, "cube").position.x, 9.0);

    // A component given grants by the embedding game: the same checks.
    let spec = GrantSpec {
        writes: Some(vec![]),
        ..GrantSpec::default()
    };
    let limited = cube_mod
        .with_grants(&spec.narrow(&game_host::Grants::all()))
        .unwrap();
    let (mut runtime, _log) = common::runtime_with(RuntimeConfig::default());
    runtime.spawn(&limited).unwrap();
    runtime.run_frames(2);
    assert_eq!(common::transform(&runtime, "cube").position.x, 0.0);
    // Its own turn landed; its own move was in the batch refused with the
    // cube's.
    let own = common::transform(&runtime, "mod-own");
    let turn = glam::Quat::from_rotation_y(0.5);
    assert!(own.rotation.abs_diff_eq(turn, 1e-6), "{}", own.rotation);
    assert_eq!(own.position.y, 0.0);
    let error = runtime.inspect().errors()[0].to_string();
    assert!(error.contains("may not write entity `cube`"), "{error}");
}

#[test]
fn a_world_can_narrow_the_servers_grants_and_never_widen_them() {
    let dir = tempfile::tempdir().unwrap();
    // The counter keeps each world running while the mod is out.
    let component = common::build("cube-mod");
    let component = component.to_str().unwrap();
    let counter = common::build("counter");
    let counter = counter.to_str().unwrap();
    let server = Serve::start(&[component, counter, "--worlds", "0"]);
    let worlds = server.url("/worlds");

    // Imports narrowed: the world is refused, naming `events`.
    let body = format!(r#"{{"grants": {{"default": {{"imports": {ALL_BUT_EVENTS}}}}}}}"#);
    let (status, answer) = request("POST", &worlds, Some(&body));
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("imports `events`"), "{answer}");

    // Writes narrowed: the world runs, and the mod's write to the cube is
    // refused, naming it.
    let body = r#"{"grants": {"default": {"writes": []}}}"#;
    assert_cube_kept(&server, body);

    // A bad grants body is refused, naming the key.
    let (status, answer) = request(
        "POST",
        &worlds,
        Some(r#"{"grants": {"default": {"writs": []}}}"#),
    );
    assert_eq!(status, 400);
    assert!(answer.contains("writs"), "{answer}");
    drop(server);

    // A server that grants no writes: a world cannot widen that.
    let grants = grants_file(dir.path(), "server.toml", "[default]\nwrites = []\n");
    let server = Serve::start(&[
        component,
        counter,
        "--worlds",
        "0",
        "--grants",
        grants.to_str().unwrap(),
    ]);
    let body = format!(
        r#"{{"grants": {{"default": {{"writes": ["*"]}}, "source": {{{component:?}: {{"writes": ["cube"]}}}}}}}}"#
    );
    assert_cube_kept(&server, &body);
}

/// Starts a world with `body`, lets it run, stops it: the mod's write to
/// the cube was refused, naming it, and the cube stayed where it was.
fn assert_cube_kept(server: &Serve, body: &str) {
    let (status, answer) = request("POST", &server.url("/worlds"), Some(body));
    assert_eq!(status, 201, "{answer}");
    let id = json(&answer)["id"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (status, report) = request("DELETE", &server.url(&format!("/worlds/{id}")), None);
    assert_eq!(status, 200, "{report}");
    let report = json(&report);
    let error = report["errors"][0].as_str().unwrap_or_default();
    assert!(error.contains("may not write entity `cube`"), "{report}");
    assert_eq!(dumped_position(&report["scene"], "cube"), [0.0, 0.0, 0.0]);
}

/// Probes `/healthz` every 0.5 s, `count` times, each with a 2 s limit:
/// how many got a 200.
fn probe_health(addr: &str, count: usize) -> usize {
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(2)))
        .build()
        .new_agent();
    let url = format!("http://{addr}/healthz");
    (0..count)
        .filter(|_| {
            let started = Instant::now();
            let ok = agent.get(&url).call().is_ok_and(|r| r.status() == 200);
            std::thread::sleep(Duration::from_millis(500).saturating_sub(started.elapsed()));
            ok
        })
        .count()
}

#[test]
fn health_probes_get_through_a_flood_of_slow_clients() {
    let tool = Command::new("slowhttptest").arg("-h").output();
    assert!(
        tool.is_ok(),
        "slowhttptest is not installed (./test.sh installs Debian's)"
    );
    let server = Serve::start(&["--worlds", "1"]);
    for (attack, args) in [
        ("slow headers", &["-H", "-t", "GET", "-x", "24"][..]),
        (
            "slow bodies",
            &["-B", "-t", "POST", "-s", "8192", "-x", "10"][..],
        ),
    ] {
        let path = if args[0] == "-B" {
            "/worlds"
        } else {
            "/healthz"
        };
        let flood = Command::new("slowhttptest")
            .args(["-c", "1000", "-i", "10", "-r", "200", "-p", "3", "-l", "20"])
            .args(args)
            .args(["-u", &server.url(path)])
            .current_dir(workspace())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start slowhttptest");
        // Let the attackers fill every connection first.
        std::thread::sleep(Duration::from_secs(4));
        let answered = probe_health(&server.addr, 24);
        let output = flood.wait_with_output().unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            report.contains("closed"),
            "slowhttptest did not run:\n{report}"
        );
        assert_eq!(
            answered, 24,
            "{attack}: only {answered} of 24 health probes were answered"
        );
    }
    assert!(
        server
            .stderr()
            .contains("closing the ones that waited longest"),
        "{}",
        server.stderr()
    );
}

#[test]
fn a_mod_named_like_the_games_script_gets_none_of_its_grants() {
    // The game trusts its director, at game/director.wasm, with every
    // entity; mods get only what they spawn. A mod whose file is named
    // director.wasm, in mods/, is a mod still.
    let dir = tempfile::tempdir().unwrap();
    for folder in ["game", "mods"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    let built = common::build("cube-mod");
    let game = dir.path().join("game/director.wasm");
    let posing = dir.path().join("mods/director.wasm");
    std::fs::copy(&built, &game).unwrap();
    std::fs::copy(&built, &posing).unwrap();
    let grants = grants_file(
        dir.path(),
        "grants.toml",
        "[default]\nwrites = []\n\n[source.\"game/director.wasm\"]\nwrites = [\"*\"]\n",
    );
    let run = |script: &Path| {
        let (_, stderr, scene) =
            run_beside_counter(script.to_str().unwrap(), Some(&grants), dir.path());
        (stderr, scene)
    };
    let (stderr, scene) = run(&game);
    assert!(!stderr.contains("may not write"), "{stderr}");
    assert_eq!(dumped_position(&scene, "cube"), [9.0, 9.0, 9.0]);
    let (stderr, scene) = run(&posing);
    assert!(
        stderr.contains("may not write entity") && stderr.contains("cube"),
        "{stderr}"
    );
    assert_eq!(dumped_position(&scene, "cube"), [0.0, 0.0, 0.0]);

    // A grants file that still keys a table by name is refused, saying what
    // to write instead.
    let old = grants_file(
        dir.path(),
        "old.toml",
        "[script.director]\nwrites = [\"*\"]\n",
    );
    let output = run_host(
        &[
            "run",
            game.to_str().unwrap(),
            "--headless",
            "--frames",
            "1",
            "--grants",
            old.to_str().unwrap(),
        ],
        &cache_dir(),
    );
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("[script.director]: grants are no longer given by a script's name"),
        "{stderr}"
    );
}

#[test]
fn reading_entities_and_game_data_is_granted_too() {
    let engine = common::engine();
    let start = |grants: &str, script: &str| {
        let (mut runtime, _log) = common::runtime_with(RuntimeConfig {
            grants: policy(grants),
            ..RuntimeConfig::default()
        });
        // The peers script, in this mode, reads the cube's rotation by id
        // and sets it turned.
        runtime.scene().lock().unwrap().spawn("peers:kept");
        let started = runtime.spawn(&common::load(&engine, script));
        let started = started.map_err(|error| format!("{error:#}"));
        if started.is_ok() {
            runtime.run_frames(2);
        }
        let errors = common::error_lines(&runtime);
        (started, errors)
    };
    let (started, errors) = start("[default]\nreads = []\n", "peers");
    assert!(started.is_ok(), "{started:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("may not read entity `cube` (id 0)")
            && errors[0].contains("its grants' reads allow []"),
        "{errors:?}"
    );
    let (_, errors) = start("[default]\nreads = [\"cu*\"]\n", "peers");
    assert!(errors.is_empty(), "{errors:?}");

    // Game data, by component: the crates' `Health` is the script's own
    // entities' data, so only the component grants stand in its way.
    let (started, _) = start("[default]\ndata_reads = [\"Mana\"]\n", "game-data");
    let error = started.unwrap_err();
    assert!(
        error.contains("may not read game data `Health`: its grants' data_reads allow [\"Mana\"]"),
        "{error}"
    );
    let (started, _) = start("[default]\ndata_writes = []\n", "game-data");
    let error = started.unwrap_err();
    assert!(
        error.contains("may not write game data `Health`"),
        "{error}"
    );
    let (started, errors) = start("[default]\nreads = []\nwrites = []\n", "game-data");
    assert!(started.is_ok(), "its own crates are its own: {started:?}");
    assert!(errors.is_empty(), "{errors:?}");
}
