//! A game's own types in Python and JavaScript, as an author meets them
//! outside this repository: `host new --lang python|js --game game.json`
//! makes a project whose editor types hold the game's components, a
//! script sets and reads its moon's `Spin` typed and turns at its speed in
//! `host run --game`, reads a missing `Health` as a typed error, and is
//! refused by a host running another description. A misspelt field and a
//! wrong argument type are caught by pyright and `tsc`, run by hand as an
//! editor runs them, and `host check` says the same.
//!
//! Needs componentize-py, componentize-js, jco, pyright and TypeScript on
//! PATH (`./test.sh` installs them at the tested versions).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::game::{GAME, edit, refused, run_one_second};
use common::scratch::Scratch;

/// A language's project: its `--lang`, entry file and the edits that make
/// its moon turn at its typed `Spin` (set at start, read every frame) and
/// log the typed error of the `Health` it lacks.
struct Lang {
    lang: &'static str,
    file: &'static str,
    edits: &'static [(&'static str, &'static str)],
}

const PYTHON: Lang = Lang {
    lang: "python",
    file: "app.py",
    edits: &[
        (
            "import wit_world\n",
            "import wit_world\nfrom componentize_py_types import Err\n",
        ),
        (
            "    runtime.subscribe_update()",
            "    game_components.set_spin(moon.id(), game_components.Spin(speed=2.0))
    try:
        game_components.get_health(moon.id())
    except Err as error:
        log.log(log.Level.INFO, f\"health: {error.value}\")
    game_components.set_health(moon.id(), game_components.Health(current=5.0, max=10.0))
    health = game_components.get_health(moon.id())
    log.log(log.Level.INFO, f\"health now: {health.current} of {health.max}\")
    runtime.subscribe_update()",
        ),
        (
            "angle += SPEED * clock.delta_time",
            "angle += game_components.get_spin(moon.id()).speed * clock.delta_time",
        ),
    ],
};

const JAVASCRIPT: Lang = Lang {
    lang: "js",
    file: "app.js",
    edits: &[
        (
            "  subscribeUpdate();",
            "  gameComponents.setSpin(moon.id(), { speed: 2.0 });
  try {
    gameComponents.getHealth(moon.id());
  } catch (error) {
    log(\"info\", `health: ${/** @type {{ payload: string }} */ (error).payload}`);
  }
  gameComponents.setHealth(moon.id(), { current: 5.0, max: 10.0 });
  const health = gameComponents.getHealth(moon.id());
  log(\"info\", `health now: ${health.current} of ${health.max}`);
  subscribeUpdate();",
        ),
        (
            "angle += SPEED * clock.deltaTime;",
            "angle += gameComponents.getSpin(moon.id()).speed * clock.deltaTime;",
        ),
    ],
};

/// Makes `spinner` in `lang` for the game and edits it to turn its moon
/// typed; returns its entry file.
fn spinner(scratch: &Scratch, lang: &Lang) -> PathBuf {
    std::fs::write(scratch.path().join("game.json"), GAME).unwrap();
    let args = ["new", "spinner", "--lang", lang.lang, "--game", "game.json"];
    let created = scratch.run(&args);
    assert!(created.contains("wit/game.wit"), "{created}");
    assert!(created.contains(".types/ (editor types"), "{created}");
    let entry = scratch.path().join("spinner").join(lang.file);
    for (from, to) in lang.edits {
        edit(&entry, from, to);
    }
    entry
}

/// `script` (a project, or a built `.wasm`) run for one second in the
/// game: it turned its moon at its typed speed, logged the typed error of
/// the `Health` it lacks, then gave it one and read it back.
fn turns_typed(scratch: &Scratch, script: &str) {
    let log = run_one_second(scratch, script);
    assert!(
        log.contains("health: game-data: entity 1 has no component `Health`"),
        "{log}"
    );
    // Python's floats print as `5.0`, JavaScript's numbers as `5`.
    let health = match script {
        "spinner.wasm" => "health now: 5 of 10",
        _ if scratch.path().join("spinner/app.py").is_file() => "health now: 5.0 of 10.0",
        _ => "health now: 5 of 10",
    };
    assert!(log.contains(health), "{log}");
}

/// The project runs typed, and is refused by a host running another
/// description of the game.
fn runs_typed(scratch: &Scratch, lang: &Lang) {
    spinner(scratch, lang);
    turns_typed(scratch, "spinner");

    let speed_f64 = GAME.replace(r#""speed": "f32""#, r#""speed": "f64""#);
    std::fs::write(scratch.path().join("other.json"), speed_f64).unwrap();
    let args = [
        "run",
        "spinner",
        "--game",
        "other.json",
        "--headless",
        "--frames",
        "1",
    ];
    let language = match lang.lang {
        "python" => "Python",
        _ => "JavaScript",
    };
    assert_eq!(
        refused(scratch, &args),
        format!(
            "error: failed to load {language} script `spinner`: it was built for another \
             description of game `spin-demo`: component `Spin`: field `speed` is f32 in the \
             script's build and f64 in the game's description"
        )
    );
}

#[test]
fn a_python_script_reads_and_writes_the_games_components_typed() {
    runs_typed(&Scratch::new(), &PYTHON);
}

/// Also built into one component (`host build`), which runs the same.
#[test]
fn a_javascript_script_reads_and_writes_the_games_components_typed() {
    let scratch = Scratch::new();
    runs_typed(&scratch, &JAVASCRIPT);
    scratch.run(&["build", "spinner"]);
    turns_typed(&scratch, "spinner.wasm");
}

/// The project checks clean; a misspelt field of a game component and a
/// wrong argument type of a game function are both reported by
/// `host check`, which exits 1.
fn check_catches(lang: &Lang, mistakes: [(&str, &str); 2], expected: [&str; 2]) {
    let scratch = Scratch::new();
    let entry = spinner(&scratch, lang);
    let check = |expect: i32| {
        let output = scratch.host(&["check", "spinner"]).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = common::stderr_of(&output);
        assert_eq!(output.status.code(), Some(expect), "{stdout}\n{stderr}");
        stdout
    };
    check(0);
    for (from, to) in mistakes {
        edit(&entry, from, to);
    }
    let stdout = check(1);
    for error in expected {
        assert!(stdout.contains(error), "no `{error}` in:\n{stdout}");
    }
    assert_has_game_types(&entry);
    // The checker run by hand, as an editor runs it, says the same.
    let (dir, program, args): (&Path, _, &[&str]) = match lang.lang {
        "python" => (entry.parent().unwrap(), "pyright", &[]),
        _ => (scratch.path(), "tsc", &["-p", "spinner/jsconfig.json"]),
    };
    let by_hand = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} (./test.sh installs it): {e}"));
    assert_eq!(stdout, String::from_utf8_lossy(&by_hand.stdout));
}

/// The project's editor types declare the game's components.
fn assert_has_game_types(entry: &Path) {
    let types = entry.parent().unwrap().join(".types");
    let declared = [
        types.join("wit_world/imports/game_components.pyi"),
        types.join("interfaces/spin-demo-game-game-components.d.ts"),
    ];
    assert!(declared.iter().any(|file| file.is_file()), "{declared:?}");
}

#[test]
fn host_check_catches_a_python_scripts_game_mistakes() {
    check_catches(
        &PYTHON,
        [
            ("Spin(speed=2.0)", "Spin(sped=2.0)"),
            ("set_spin(moon.id(),", "set_spin(\"moon\","),
        ],
        [
            "error: No parameter named \"sped\"",
            "error: Argument of type \"Literal['moon']\" cannot be assigned to parameter \"id\" \
             of type \"int\"",
        ],
    );
}

#[test]
fn host_check_catches_a_javascript_scripts_game_mistakes() {
    check_catches(
        &JAVASCRIPT,
        [
            ("getSpin(moon.id()).speed", "getSpin(moon.id()).sped"),
            ("setSpin(moon.id(),", "setSpin(\"moon\","),
        ],
        [
            "error TS2345: Argument of type 'string' is not assignable to parameter of type \
             'number'.",
            "error TS2551: Property 'sped' does not exist on type 'Spin'. Did you mean 'speed'?",
        ],
    );
}

/// The game's description changed (`Spin.speed` is now `Spin.rate`):
/// `host check --game` brings the project's types to it, and the check
/// names what the script now gets wrong.
#[test]
fn host_check_brings_a_project_to_the_games_new_description() {
    let scratch = Scratch::new();
    let entry = spinner(&scratch, &PYTHON);
    let renamed = GAME.replace(r#""speed": "f32""#, r#""rate": "f32""#);
    std::fs::write(scratch.path().join("renamed.json"), renamed).unwrap();
    let args = ["check", "spinner", "--game", "renamed.json"];
    let output = scratch.host(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = common::stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.starts_with("updated `spinner/wit/game.wit` to game `spin-demo`'s description"),
        "{stderr}"
    );
    assert!(
        stdout.contains("error: No parameter named \"speed\""),
        "{stdout}"
    );
    let wit = std::fs::read_to_string(entry.parent().unwrap().join("wit/game.wit")).unwrap();
    assert!(wit.contains("%rate: f32"), "{wit}");
    // Already up to date: nothing is written again, and the check says the
    // same.
    let output = scratch.host(&args).output().unwrap();
    let again = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert!(!common::stderr_of(&output).contains("updated"));
    assert!(
        again.contains("error: No parameter named \"speed\""),
        "{again}"
    );
}

/// `host check --game` writes nothing into what is no project made for a
/// game, and says so in one line.
#[test]
fn host_check_updates_only_a_project_made_for_a_game() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path().join("game.json"), GAME).unwrap();
    let crate_dir = scratch.path().join("plain");
    scratch.run(&["new", "plain"]);
    let output = scratch
        .host(&["check", "plain", "--game", "game.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        common::stderr_of(&output).trim(),
        "error: `plain` was not made for a game: its `src/lib.rs` has no `mod game;` (make a \
         project with `host new NAME --game FILE` and move the script into it)"
    );
    assert!(!crate_dir.join("wit").exists());
    std::fs::create_dir(scratch.path().join("empty")).unwrap();
    let output = scratch
        .host(&["check", "empty", "--game", "game.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        common::stderr_of(&output).trim(),
        "error: `empty` is no script project (no Cargo.toml, app.py, app.js or app.ts)"
    );
    assert!(!scratch.path().join("empty/wit").exists());
}
