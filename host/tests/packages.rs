//! `host` as a modder who never writes Rust gets it: the wheel (built by
//! maturin from `packaging/python`) installed into a fresh virtual
//! environment, and the npm packages (packed by `packaging/npm/pack.sh`)
//! installed into a fresh project. Each is then used from a directory
//! outside this repository with a `PATH` holding only what was installed
//! and the system's `/usr/bin` and `/bin` (no cargo, rustc or rustup):
//! `host new`, a headless run checked frame for frame, `host check` clean
//! and then naming a type error's line, and for npm (a TypeScript project)
//! an edit under `--watch` swapped in with its state. The wheel's host is
//! the lean build of a user's `cargo install`: what it lacks (a language's
//! tool, the fleet, Agones) is named in one line.
//!
//! Both tests print how long each step took: what a new user waits for.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::scratch::{SYSTEM_PATH, Scratch, assert_no_rust};
use common::watching::Watching;

/// Runs `step`, printing how long it took.
fn timed<T>(what: &str, step: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = step();
    eprintln!("{what}: {:.1} s", start.elapsed().as_secs_f64());
    out
}

/// `host new`, a 60-frame headless run and `host check`: clean, then with
/// `error` added to the end of `file`, which must be named at its line
/// (`place` gives how a line is written from the line's number), with
/// `host` started as `launch` makes it.
fn new_run_check(
    scratch: &Scratch,
    launch: &dyn Fn(&[&str]) -> Command,
    lang: &str,
    (file, error, place): (&str, &str, fn(usize) -> String),
) {
    let run = |args: &[&str]| {
        let output = launch(args).output().unwrap();
        let text = common::stderr_of(&output);
        assert!(output.status.success(), "host {args:?} failed:\n{text}");
        text
    };
    let created = timed(&format!("host new --lang {lang}"), || {
        run(&["new", "my-mod", "--lang", lang])
    });
    // The package brought every tool: nothing is said to be missing.
    assert!(!created.contains("not installed"), "{created}");
    assert!(created.contains("editor types"), "{created}");
    timed("first run, 60 frames headless", || {
        scratch.run_the_template_one_second(|args| {
            run(args);
        })
    });
    timed("host check (clean)", || run(&["check", "my-mod"]));

    let source = scratch.path().join("my-mod").join(file);
    let text = std::fs::read_to_string(&source).unwrap();
    let kept = text.trim_end();
    std::fs::write(&source, format!("{kept}\n\n{error}\n")).unwrap();
    let line = kept.lines().count() + 2;
    let output = launch(&["check", "my-mod"]).output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        common::stderr_of(&output)
    );
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&place(line)),
        "no `{}` in:\n{said}",
        place(line)
    );
    std::fs::write(&source, text).unwrap();
}

#[test]
fn the_wheel_gives_a_python_modder_host_without_rust() {
    assert_no_rust(SYSTEM_PATH);
    let scratch = Scratch::new();
    let wheels = scratch.path().join("wheels");
    // The build shares the tests' intermediate artifacts (cargo's build
    // directory, free while tests run), so only what differs is compiled;
    // its binary goes to a target directory of its own, never over the
    // `host` the tests run.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let maturin = timed("maturin build --release (the wheel)", || {
        Command::new("maturin")
            .current_dir(common::workspace().join("packaging/python"))
            .args(["build", "--release", "--out"])
            .arg(&wheels)
            .env("CARGO_TARGET_DIR", target.join("wheel"))
            .env("CARGO_BUILD_BUILD_DIR", target.parent().unwrap())
            .output()
    });
    let maturin = match maturin {
        Ok(output) => output,
        Err(error) => panic!("maturin is not installed ({error}): ./test.sh installs it"),
    };
    assert!(
        maturin.status.success(),
        "maturin build failed:\n{}",
        common::stderr_of(&maturin)
    );
    let wheel = only_file(&wheels, ".whl");

    let venv = scratch.path().join("venv");
    let bin = venv.join("bin");
    timed("python3 -m venv", || {
        scratch.run_installed(
            "python3",
            &["-m", "venv", venv.to_str().unwrap()],
            SYSTEM_PATH,
        )
    });
    let requirement = format!("{}[check]", wheel.display());
    timed("pip install game-host[check] (the wheel)", || {
        scratch.run_installed(
            bin.join("pip"),
            &["install", "--quiet", &requirement],
            SYSTEM_PATH,
        )
    });
    // The host by its full path, the environment not activated (as pipx
    // runs it): componentize-py and pyright are found beside it.
    let host = bin.join("host");
    new_run_check(
        &scratch,
        &|args| scratch.installed(&host, args, SYSTEM_PATH),
        "python",
        ("app.py", "oops: int = \"not a number\"", |line| {
            format!("app.py:{line}:")
        }),
    );

    // What this install lacks is named in one line, with what installs it.
    for (lang, lacking) in [
        (
            "js",
            "JavaScript scripts are built with componentize-js, which is not installed: \
             `npm install -g @bytecodealliance/componentize-js@0.23.0`",
        ),
        (
            "rust",
            "Rust scripts are built with cargo, which is not installed: see https://rustup.rs",
        ),
    ] {
        let project = format!("my-{lang}-mod");
        let created = scratch.run_installed(&host, &["new", &project, "--lang", lang], SYSTEM_PATH);
        if lang == "js" {
            assert!(created.contains(&format!("({lacking})")), "{created}");
        }
        let output = scratch
            .installed(
                &host,
                &["run", &project, "--headless", "--frames", "1"],
                SYSTEM_PATH,
            )
            .output()
            .unwrap();
        let stderr = common::stderr_of(&output);
        assert!(!output.status.success(), "{stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].ends_with(lacking), "{stderr}");
    }

    // The wheel's host is the lean one (no optional features): asked to
    // join a fleet or report to Agones, it says so in one line, with how
    // to build a host that can.
    for (option, lacking) in [
        (
            &["--fleet", "redis://127.0.0.1:1/"][..],
            "built without the fleet",
        ),
        (&["--agones"][..], "built without Agones' SDK"),
    ] {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
        args.extend_from_slice(option);
        let output = scratch
            .installed(&host, &args, SYSTEM_PATH)
            .output()
            .unwrap();
        let error = common::only_error(&output);
        assert!(error.contains(lacking), "{error}");
        assert!(
            error.contains("cargo install --path host --features"),
            "{error}"
        );
    }
}

#[test]
fn the_npm_packages_give_a_typescript_modder_host_without_rust() {
    assert_no_rust(SYSTEM_PATH);
    let scratch = Scratch::new();
    let packed = Command::new(common::workspace().join("packaging/npm/pack.sh"))
        .arg(env!("CARGO_BIN_EXE_host"))
        .arg(scratch.path().join("npm"))
        .output()
        .unwrap();
    assert!(
        packed.status.success(),
        "pack.sh failed:\n{}",
        common::stderr_of(&packed)
    );
    let tarballs: Vec<String> = String::from_utf8(packed.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(tarballs.len(), 2, "{tarballs:?}");

    std::fs::write(
        scratch.path().join("package.json"),
        r#"{ "name": "my-game", "private": true }"#,
    )
    .unwrap();
    let mut install = vec!["install", "--no-fund", "--no-audit", "--loglevel=error"];
    install.extend(tarballs.iter().map(String::as_str));
    timed("npm install game-host (the tarballs)", || {
        scratch.run_installed("npm", &install, SYSTEM_PATH)
    });
    let npx = |args: &[&str]| {
        let mut all = vec!["--no", "host"];
        all.extend(args);
        scratch.installed("npx", &all, SYSTEM_PATH)
    };
    new_run_check(
        &scratch,
        &npx,
        "ts",
        ("app.ts", "const oops: number = \"not a number\";", |line| {
            format!("app.ts({line},")
        }),
    );

    // An edit under --watch: one build, one swap with the state handed over.
    let watching = Watching::start(scratch.installed(
        "npx",
        &["--no", "host", "run", "my-mod", "--headless", "--watch"],
        SYSTEM_PATH,
    ));
    watching.wait_for("running in real time", 1);
    let source = scratch.path().join("my-mod/app.ts");
    let text = std::fs::read_to_string(&source).unwrap();
    assert!(text.contains("const SPEED = 1.0"), "{text}");
    let edited = Instant::now();
    std::fs::write(
        &source,
        text.replace("const SPEED = 1.0", "const SPEED = 2.0"),
    )
    .unwrap();
    watching.wait_for("hot-swapped", 1);
    eprintln!(
        "edit to swap under --watch: {:.1} s",
        edited.elapsed().as_secs_f64()
    );
    std::thread::sleep(Duration::from_secs(2));
    let log = watching.log();
    assert_eq!(watching.count("changed; building"), 1, "{log}");
    assert_eq!(watching.count("hot-swapped"), 1, "{log}");
    assert!(log.contains("state=\"handed over\""), "{log}");
    assert_eq!(watching.count("ERROR"), 0, "{log}");
}

/// The one file in `dir` whose name ends in `suffix`.
fn only_file(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.into_iter().next().unwrap()
}
