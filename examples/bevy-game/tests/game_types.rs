//! The game's types as script authors get them: `bevy-game --describe`
//! writes what the game registers as a description, and Rust, Python and
//! JavaScript projects made for it (as `host new --game` makes them) set
//! and read `Spin` and `Health` typed on the game's own entities, turning
//! their moon at the typed speed. A project made for another description
//! of the game is refused at load, naming the component.
//!
//! Needs componentize-py and componentize-js on PATH and the wasm32-wasip2
//! target (`./test.sh` installs them).

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::game_building_in;

use game_host::game_types::GameTypes;
use game_host::scene::SceneDump;
use game_host_build::project::{self, ProjectLanguage, sdk};

fn out(name: &str) -> PathBuf {
    common::out("bevy-game-types", name)
}

/// Runs the game, a Rust project's build kept across runs.
fn game(args: &[&str]) -> (bool, String) {
    game_building_in(args, Some(&out("target")))
}

/// The game's description, as `--describe` writes it.
fn described(name: &str) -> GameTypes {
    let file = out(name);
    let (ok, stderr) = game(&["--describe", file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("wrote game `bevy-game`'s types to"),
        "{stderr}"
    );
    GameTypes::read(&file).unwrap()
}

#[test]
fn the_game_describes_what_it_registers() {
    let expected = GameTypes::parse(
        r#"{"game": "bevy-game",
            "components": {"Health": {"current": "f32", "max": "f32"},
                           "Spin": {"speed": "f32", "angle": "f32"}},
            "resources": {"Score": {"points": "s64"}}}"#,
    )
    .unwrap();
    // `Frozen`, a marker, has nothing to type.
    assert_eq!(described("game.json"), expected);
}

/// Makes project `name` in `language` for `game`, applies `edits` to its
/// entry file `file`, runs it in the game for 60 steps: (ok, stderr, the
/// scene).
fn run_project(
    name: &str,
    language: ProjectLanguage,
    game: &GameTypes,
    (file, edits): (&str, &[(&str, &str)]),
) -> (bool, String, Option<SceneDump>) {
    let dir = out(name);
    let _ = std::fs::remove_dir_all(&dir);
    // The SDK, written once for every test of this binary (a Rust project's).
    static SDK: OnceLock<PathBuf> = OnceLock::new();
    let sdk = match language {
        ProjectLanguage::Rust => SDK.get_or_init(|| sdk::install_at(&out("sdk")).unwrap()),
        _ => Path::new("no-sdk"),
    };
    project::create_with_sdk(&dir, language, Some(game), sdk).unwrap();
    let entry = dir.join(file);
    for (from, to) in edits {
        let text = std::fs::read_to_string(&entry).unwrap();
        assert!(text.contains(from), "no `{from}` in:\n{text}");
        std::fs::write(&entry, text.replace(from, to)).unwrap();
    }
    let scene = out(&format!("{name}.json"));
    let _ = std::fs::remove_file(&scene);
    let script = match language {
        ProjectLanguage::Rust => &dir,
        _ => &entry,
    };
    let (ok, stderr) = game_run(script, &scene);
    let dump = std::fs::read_to_string(&scene)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (ok, stderr, dump)
}

fn game_run(entry: &Path, scene: &Path) -> (bool, String) {
    game(&[
        entry.to_str().unwrap(),
        "--headless",
        "--frames",
        "60",
        "--dump-scene",
        scene.to_str().unwrap(),
    ])
}

/// The moon turned for one second at 2 rad/s on a circle of radius 3.
fn assert_turned_one_second(dump: &SceneDump) {
    let moon = dump.entities.iter().find(|e| e.name == "moon").unwrap();
    let expected = [3.0 * 2f32.cos(), 0.0, 3.0 * 2f32.sin()];
    for (got, want) in moon.position.iter().zip(expected) {
        assert!((got - want).abs() < 1e-3, "moon at {:?}", moon.position);
    }
}

const RUST_EDITS: &[(&str, &str)] = &[
    (
        "        Orbiter { moon, angle }",
        "        let spin = game::components::Spin { speed: 2.0, angle: 0.0 };
        game::components::set_spin(moon.id(), spin).unwrap();
        let health = game::components::Health { current: 5.0, max: 10.0 };
        game::components::set_health(moon.id(), health).unwrap();
        let health = game::components::get_health(moon.id()).unwrap();
        script::log::info(&format!(\"health: {} of {}\", health.current, health.max));
        Orbiter { moon, angle }",
    ),
    (
        "        self.angle += dt;",
        "        self.angle += game::components::get_spin(self.moon.id()).unwrap().speed * dt;",
    ),
];

const PYTHON_EDITS: &[(&str, &str)] = &[
    (
        "    runtime.subscribe_update()",
        "    game_components.set_spin(moon.id(), game_components.Spin(speed=2.0, angle=0.0))
    game_components.set_health(moon.id(), game_components.Health(current=5.0, max=10.0))
    health = game_components.get_health(moon.id())
    log.log(log.Level.INFO, f\"health: {health.current} of {health.max}\")
    runtime.subscribe_update()",
    ),
    (
        "angle += SPEED * clock.delta_time",
        "angle += game_components.get_spin(moon.id()).speed * clock.delta_time",
    ),
];

const JAVASCRIPT_EDITS: &[(&str, &str)] = &[
    (
        "  subscribeUpdate();",
        "  gameComponents.setSpin(moon.id(), { speed: 2.0, angle: 0.0 });
  gameComponents.setHealth(moon.id(), { current: 5.0, max: 10.0 });
  const health = gameComponents.getHealth(moon.id());
  log(\"info\", `health: ${health.current} of ${health.max}`);
  subscribeUpdate();",
    ),
    (
        "angle += SPEED * clock.deltaTime;",
        "angle += gameComponents.getSpin(moon.id()).speed * clock.deltaTime;",
    ),
];

#[test]
fn a_rust_script_made_for_the_game_reads_and_writes_its_components_typed() {
    let game = described("rust-game.json");
    let edits = ("src/lib.rs", RUST_EDITS);
    let (ok, stderr, dump) = run_project("rust-spinner", ProjectLanguage::Rust, &game, edits);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("health: 5 of 10"), "{stderr}");
    assert_turned_one_second(&dump.unwrap());
}

#[test]
fn a_python_script_made_for_the_game_reads_and_writes_its_components_typed() {
    let game = described("python-game.json");
    let edits = ("app.py", PYTHON_EDITS);
    let (ok, stderr, dump) = run_project("py-spinner", ProjectLanguage::Python, &game, edits);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("health: 5.0 of 10.0"), "{stderr}");
    assert_turned_one_second(&dump.unwrap());
}

#[test]
fn a_javascript_script_made_for_the_game_reads_and_writes_its_components_typed() {
    let game = described("js-game.json");
    let edits = ("app.js", JAVASCRIPT_EDITS);
    let (ok, stderr, dump) = run_project("js-spinner", ProjectLanguage::JavaScript, &game, edits);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("health: 5 of 10"), "{stderr}");
    assert_turned_one_second(&dump.unwrap());

    // Made for a description of the game whose `Spin` has no `angle`.
    let mut older = game.clone();
    let spin = older.components.iter_mut().find(|c| c.name == "Spin");
    spin.unwrap().fields.retain(|f| f.name != "angle");
    // The project's runtime imports `set-spin` with its own `Spin`.
    let (ok, stderr, _) = run_project(
        "js-older",
        ProjectLanguage::JavaScript,
        &older,
        ("app.js", &[]),
    );
    assert!(!ok);
    assert!(
        stderr.contains(
            "script `app` cannot run: failed to load JavaScript script `app`: it was built for \
             another description of game `bevy-game`: component `Spin`: the script's build has \
             no field `angle` (f32 in the game's description)"
        ),
        "{stderr}"
    );
}
