//! Editor types as an author meets them, in a directory outside this
//! repository: `host new --lang python|js|ts` writes the engine API's stubs
//! beside the script (componentize-py's, jco's), pyright and `tsc` check the
//! script against them, and `host check` says what they say. `host build`
//! brings stale stubs up to the host's WIT; a missing tool is one line.
//!
//! Needs componentize-py, jco, pyright and TypeScript on PATH (`./test.sh`
//! installs them at the tested versions).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::scratch::Scratch;

/// `host check ARGS` in the scratch directory: (exit code, stdout, stderr).
fn host_check(scratch: &Scratch, project: &str) -> (i32, String, String) {
    let output = scratch.host(&["check", project]).output().unwrap();
    split(output)
}

fn split(output: Output) -> (i32, String, String) {
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        common::stderr_of(&output).trim_end().to_owned(),
    )
}

/// Replaces `from` (which must be there) with `to` in `file`.
fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "`{}` has no `{from}`", file.display());
    std::fs::write(file, text.replace(from, to)).unwrap();
}

/// The checker run by hand in `dir`, as an author runs it.
fn by_hand(dir: &Path, program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} (./test.sh installs it): {e}"));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A new project checks clean; a wrong argument type and a misspelt field
/// of a record the engine passes are each reported by the checker run by
/// hand (pyright in the project, as an editor runs it; `tsc -p` from the
/// directory above), and `host check` says the same and exits 1.
fn new_project_catches_two_mistakes(
    lang: &str,
    file: &str,
    mistakes: [(&str, &str); 2],
    checker: (&str, &[&str], bool),
    expected: [&str; 2],
) {
    let scratch = Scratch::new();
    let created = scratch.run(&["new", "my-mod", "--lang", lang]);
    assert!(created.contains(".types/ (editor types"), "{created}");
    let project = scratch.path().join("my-mod");

    let (code, stdout, stderr) = host_check(&scratch, "my-mod");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.ends_with(&format!("`my-mod`: no errors ({})", checker.0)),
        "{stderr}"
    );

    for (from, to) in mistakes {
        edit(&project.join(file), from, to);
    }
    let (code, stdout, stderr) = host_check(&scratch, "my-mod");
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.ends_with(&format!("`my-mod`: {} found errors (above)", checker.0)),
        "{stderr}"
    );
    for error in expected {
        assert!(stdout.contains(error), "no `{error}` in:\n{stdout}");
    }
    let dir = if checker.2 { &project } else { scratch.path() };
    assert_eq!(stdout, by_hand(dir, checker.0, checker.1));
}

#[test]
fn pyright_and_host_check_catch_a_python_scripts_mistakes() {
    new_project_catches_two_mistakes(
        "python",
        "app.py",
        [
            ("moon.set_scale(Vec3(0.4, 0.4, 0.4))", "moon.set_scale(0.4)"),
            ("clock.delta_time", "clock.delta_tme"),
        ],
        ("pyright", &[], true),
        [
            "app.py:29:20 - error: Argument of type \"float\" cannot be assigned to parameter \
             \"scale\" of type \"Vec3\"",
            "app.py:40:32 - error: Cannot access attribute \"delta_tme\" for class \"FrameClock\"",
        ],
    );
}

#[test]
fn tsc_and_host_check_catch_a_javascript_scripts_mistakes() {
    new_project_catches_two_mistakes(
        "js",
        "app.js",
        [
            (
                "moon.setScale({ x: 0.4, y: 0.4, z: 0.4 })",
                "moon.setScale(0.4)",
            ),
            ("clock.deltaTime", "clock.deltaTme"),
        ],
        ("tsc", &["-p", "my-mod/jsconfig.json"], false),
        [
            "my-mod/app.js(25,17): error TS2345: Argument of type 'number' is not assignable \
             to parameter of type 'Vec3'.",
            "my-mod/app.js(36,26): error TS2551: Property 'deltaTme' does not exist on type \
             'FrameClock'.",
        ],
    );
}

#[test]
fn tsc_and_host_check_catch_a_typescript_scripts_mistakes() {
    new_project_catches_two_mistakes(
        "ts",
        "app.ts",
        [
            (
                "moon.setScale({ x: 0.4, y: 0.4, z: 0.4 })",
                "moon.setScale(0.4)",
            ),
            ("clock.deltaTime", "clock.deltaTme"),
        ],
        ("tsc", &["-p", "my-mod/tsconfig.json"], false),
        [
            "my-mod/app.ts(30,17): error TS2345: Argument of type 'number' is not assignable \
             to parameter of type 'Vec3'.",
            "my-mod/app.ts(40,26): error TS2551: Property 'deltaTme' does not exist on type \
             'FrameClock'.",
        ],
    );
}

/// A script written against an older patch release imports its module
/// names (`game:engine/log@0.2.0`); the declarations carry them too.
#[test]
fn a_javascript_script_may_import_an_older_patch_release() {
    let scratch = Scratch::new();
    scratch.run(&["new", "my-mod", "--lang", "js"]);
    let app = scratch.path().join("my-mod/app.js");
    let text = std::fs::read_to_string(&app).unwrap();
    let current = text
        .split("\"game:engine/log@")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let (minor, patch) = current.rsplit_once('.').unwrap();
    assert_ne!(
        patch, "0",
        "on a .0 release, test an older release's module otherwise"
    );
    edit(
        &app,
        &format!("game:engine/log@{current}"),
        &format!("game:engine/log@{minor}.0"),
    );
    let (code, stdout, stderr) = host_check(&scratch, "my-mod");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
}

/// Stubs written from another WIT (a stale stamp, a file gone) are written
/// again by `host build`; a project without stubs gets none from it.
#[test]
fn host_build_brings_stale_stubs_up_to_the_hosts_wit() {
    let scratch = Scratch::new();
    scratch.run(&["new", "my-mod", "--lang", "js"]);
    let types = scratch.path().join("my-mod/.types");
    let declarations = types.join("interfaces/game-engine-scene.d.ts");
    let original = std::fs::read_to_string(&declarations).unwrap();
    std::fs::write(types.join("stamp"), "written from an older WIT\n").unwrap();
    std::fs::remove_file(&declarations).unwrap();

    let built = scratch.run(&["build", "my-mod", "-o", "my-mod.wasm"]);
    assert!(
        built.contains("refreshed the editor types in `my-mod/.types`"),
        "{built}"
    );
    assert_eq!(std::fs::read_to_string(&declarations).unwrap(), original);
    assert!(scratch.path().join("my-mod.wasm").is_file());

    // Fresh stubs are left alone.
    let built = scratch.run(&["build", "my-mod", "-o", "my-mod.wasm"]);
    assert!(!built.contains("editor types"), "{built}");

    std::fs::remove_dir_all(&types).unwrap();
    scratch.run(&["build", "my-mod", "-o", "my-mod.wasm"]);
    assert!(!types.exists(), "host build wrote stubs nobody asked for");
}

/// Without the tool that writes the stubs the project is still made, and
/// `host check` says in one line what to install.
#[test]
fn a_missing_tool_is_one_line_naming_it() {
    let scratch = Scratch::new();
    let empty = tempfile::tempdir().unwrap();
    let output = scratch
        .host(&["new", "my-mod", "--lang", "js"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let (code, _, stderr) = split(output);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "(no editor types: jco is not installed: `npm install -g \
             @bytecodealliance/jco@1.34.0`; then `host check my-mod`)"
        ),
        "{stderr}"
    );
    assert!(scratch.path().join("my-mod/app.js").is_file());

    let output = scratch
        .host(&["check", "my-mod"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let (code, stdout, stderr) = split(output);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert_eq!(
        stderr.trim(),
        "cannot check `my-mod`: jco is not installed: `npm install -g @bytecodealliance/jco@1.34.0`"
    );
}

/// A Rust project is checked by cargo, for the script target.
#[test]
fn host_check_runs_cargo_check_on_a_rust_project() {
    let scratch = Scratch::new();
    scratch.run(&["new", "my-mod"]);
    let (code, stdout, stderr) = host_check(&scratch, "my-mod");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.ends_with("`my-mod`: no errors (cargo check)"),
        "{stderr}"
    );

    edit(
        &scratch.path().join("my-mod/src/lib.rs"),
        "self.angle += dt;",
        "self.angle += \"dt\";",
    );
    let (code, stdout, stderr) = host_check(&scratch, "my-mod");
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stderr.contains("error[E0277]"), "{stderr}");
    assert!(
        stderr.ends_with("`my-mod`: cargo check found errors (above)"),
        "{stderr}"
    );
}

/// `host check` brings stale stubs up to date too, and several at once
/// leave one whole set and nothing half-written.
#[test]
fn checks_at_once_refresh_stale_stubs_into_one_whole_set() {
    let scratch = Scratch::new();
    scratch.run(&["new", "my-mod", "--lang", "python"]);
    let project = scratch.path().join("my-mod");
    std::fs::write(project.join(".types/stamp"), "written from an older WIT\n").unwrap();
    std::fs::remove_file(project.join(".types/wit_world/imports/scene.pyi")).unwrap();

    let checks: Vec<_> = (0..4)
        .map(|_| {
            let mut check = scratch.host(&["check", "my-mod"]);
            check.stdout(Stdio::piped()).stderr(Stdio::piped());
            check.spawn().unwrap()
        })
        .collect();
    for check in checks {
        let (code, stdout, stderr) = split(check.wait_with_output().unwrap());
        assert_eq!(code, 0, "{stdout}\n{stderr}");
    }
    assert!(project.join(".types/wit_world/imports/scene.pyi").is_file());
    let left: Vec<_> = std::fs::read_dir(&project)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".types."))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The Python and JavaScript examples type-check as shipped (copied out of
/// the repository, where the check writes its stubs and settings).
#[test]
fn the_python_and_javascript_examples_type_check() {
    let scratch = Scratch::new();
    let examples = common::workspace().join("examples");
    for entry in std::fs::read_dir(&examples).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let app = ["app.py", "app.js"].map(|file| entry.path().join(file));
        let Some(app) = app.iter().find(|file| file.is_file()) else {
            continue;
        };
        let copy = scratch.path().join(&name);
        std::fs::create_dir(&copy).unwrap();
        std::fs::copy(app, copy.join(app.file_name().unwrap())).unwrap();
        let (code, stdout, stderr) = host_check(&scratch, &name);
        assert_eq!(code, 0, "examples/{name}:\n{stdout}\n{stderr}");
    }
}

/// `./test.sh` installs the versions the host names in its hints.
#[test]
fn test_sh_installs_the_tested_versions() {
    use game_host_build::editor_types::{JCO, PYRIGHT, TYPESCRIPT};
    let script = std::fs::read_to_string(common::workspace().join("test.sh")).unwrap();
    for (variable, tool) in [
        ("JCO_VERSION", JCO),
        ("TS_VERSION", TYPESCRIPT),
        ("PYRIGHT_VERSION", PYRIGHT),
    ] {
        let line = format!("\n{variable}={}\n", tool.version);
        assert!(script.contains(&line), "test.sh has no `{}`", line.trim());
    }
}
