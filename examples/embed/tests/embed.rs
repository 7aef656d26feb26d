//! The embedding example as the book runs it: the spinning cube, built from
//! `examples/spinning-cube`, run for 60 frames on the core alone, and the
//! cube's rotation printed; without a cube, one line says how to build it.

use std::path::Path;
use std::process::{Command, Output};

use game_host_build::{BuildOutput, build_script_crate};

fn embed(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_embed"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_core_alone_turns_the_cube_a_quarter_turn_in_60_frames() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let cube = build_script_crate(&examples.join("spinning-cube"), BuildOutput::Capture)
        .unwrap_or_else(|e| panic!("building the spinning cube failed: {e:#}"));
    let output = embed(&[cube.as_os_str()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // A quarter turn a second about y, for one second at 60 Hz: what the
    // book's embedding page says it prints.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("cube rotation after 60 frames: "))
        .unwrap_or_else(|| panic!("{stdout}\n{stderr}"));
    assert!(
        line.ends_with("(90.0 degrees about (0.00, 1.00, 0.00))"),
        "{line}"
    );
}

#[test]
fn without_a_cube_one_line_says_how_to_build_it() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-cube.wasm");
    let output = embed(&[missing.as_os_str()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "error: no spinning cube at `{}`",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(
        first.contains("cargo build --release --target wasm32-wasip2 -p spinning-cube"),
        "{stderr}"
    );
}
