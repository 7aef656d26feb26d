//! A game's own types, as an author meets them outside this repository: a
//! game description (`game.json`), a Rust project made for it (`host new
//! --game`) that reads and writes `Spin` typed, run with `host run --game`;
//! the same script refused, in one line naming the component and field,
//! by a host running another description or none; a malformed description
//! refused in one line naming its place.

mod common;

use common::game::{GAME, edit, refused, run_one_second};
use common::scratch::Scratch;

/// The new project's moon, turned at the speed its typed `Spin` holds
/// (set at start, read every frame), with the typed errors of a
/// component the moon lacks and a resource `host run` does not offer
/// logged.
fn spinner(scratch: &Scratch) {
    std::fs::write(scratch.path().join("game.json"), GAME).unwrap();
    let created = scratch.run(&["new", "spinner", "--game", "game.json"]);
    assert!(created.contains("wit/game.wit"), "{created}");
    let lib = scratch.path().join("spinner/src/lib.rs");
    edit(
        &lib,
        "        Orbiter { moon, angle }",
        "        let spin = game::components::Spin { speed: 2.0 };
        game::components::set_spin(moon.id(), spin).unwrap();
        let health = game::components::get_health(moon.id());
        script::log::info(&format!(\"health: {health:?}\"));
        let health = game::components::Health { current: 5.0, max: 10.0 };
        game::components::set_health(moon.id(), health).unwrap();
        let health = game::components::get_health(moon.id()).unwrap();
        script::log::info(&format!(\"health now: {} of {}\", health.current, health.max));
        let score = game::resources::get_score();
        script::log::info(&format!(\"score: {score:?}\"));
        Orbiter { moon, angle }",
    );
    edit(
        &lib,
        "        self.angle += dt;",
        "        let spin = game::components::get_spin(self.moon.id()).unwrap();
        self.angle += spin.speed * dt;",
    );
}

#[test]
fn a_rust_script_reads_and_writes_the_games_components_typed() {
    let scratch = Scratch::new();
    spinner(&scratch);
    let log = run_one_second(&scratch, "spinner");
    assert!(
        log.contains(r#"health: Err("game-data: entity 1 has no component `Health`")"#),
        "{log}"
    );
    assert!(log.contains("health now: 5 of 10"), "{log}");
    assert!(log.contains("score: Err("), "{log}");

    // The same build, refused by a host running another description, or none.
    let speed_f64 = GAME.replace(r#""speed": "f32""#, r#""speed": "f64""#);
    std::fs::write(scratch.path().join("other.json"), speed_f64).unwrap();
    let run = |game: &[&str]| {
        let mut args = vec!["run", "spinner", "--headless", "--frames", "1"];
        args.extend(game);
        refused(&scratch, &args)
    };
    assert_eq!(
        run(&["--game", "other.json"]),
        "error: failed to load script `spinner`: it was built for another description of game \
         `spin-demo`: component `Spin`: field `speed` is f32 in the script's build and f64 in \
         the game's description"
    );
    assert_eq!(
        run(&[]),
        "error: failed to load script `spinner`: it was made for game `spin-demo` (it imports \
         `spin-demo:game/game-components`), and this host runs no game description (give it with \
         `--game FILE`)"
    );
}

/// A build whose WIT gives a typed function another signature (the
/// package edited by hand) is refused at load: the engine reads arguments
/// by position and must not meet one it does not expect.
#[test]
fn a_function_of_another_signature_is_refused_at_load() {
    let scratch = Scratch::new();
    spinner(&scratch);
    let project = scratch.path().join("spinner");
    edit(
        &project.join("wit/game.wit"),
        "set-spin: func(id: entity-id, value: %spin) -> result<_, string>;",
        "set-spin: func(id: entity-id) -> result<_, string>;",
    );
    edit(
        &project.join("src/lib.rs"),
        "game::components::set_spin(moon.id(), spin).unwrap();",
        "let _ = spin;\n        game::components::set_spin(moon.id()).unwrap();",
    );
    let args = [
        "run",
        "spinner",
        "--game",
        "game.json",
        "--headless",
        "--frames",
        "1",
    ];
    assert_eq!(
        refused(&scratch, &args),
        "error: failed to load script `spinner`: it was built for another description of game \
         `spin-demo`: `set-spin` has another signature in the script's build"
    );
}

#[test]
fn a_malformed_description_is_one_line_naming_its_place() {
    let scratch = Scratch::new();
    let bad = GAME.replace(r#""max": "f32""#, r#""max": "float""#);
    std::fs::write(scratch.path().join("game.json"), bad).unwrap();
    let args = ["run", "--game", "game.json", "--headless", "--frames", "1"];
    let output = scratch.host(&args).output().unwrap();
    assert!(!output.status.success());
    let first = common::stderr_of(&output)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        first,
        "error: invalid value 'game.json' for '--game <FILE>': game description `game.json`: \
         components.Health.max: unknown type `float` (one of f32, f64, s32, s64, u32, bool, \
         string, vec3, quat)"
    );
    let output = scratch
        .host(&["new", "my-mod", "--game", "game.json"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(!scratch.path().join("my-mod").exists());
}
