//! A crate downloaded with a mod, checked as a modder would check it
//! before running it: `host check` runs nothing the crate's own files
//! choose (its `.cargo/config.toml`'s `rustc-wrapper`, its
//! `rust-toolchain.toml`'s toolchain `path`), and says which build scripts
//! and proc macros building it runs.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// Writes an executable shell script that appends `what` to `marker`.
fn program(path: &Path, marker: &Path, what: &str, then: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\necho {what} >> '{}'\n{then}\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `host check DIR`, with cargo found on `PATH` (as a modder's shell finds
/// it), and `RUSTUP_TOOLCHAIN` as `toolchain` says.
fn check(dir: &Path, toolchain: Option<&str>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_host"));
    command
        .args(["check", dir.to_str().unwrap()])
        .current_dir(dir.parent().unwrap())
        .env("NO_COLOR", "1")
        .env_remove("CARGO")
        .env_remove("RUSTC");
    match toolchain {
        Some(toolchain) => command.env("RUSTUP_TOOLCHAIN", toolchain),
        None => command.env_remove("RUSTUP_TOOLCHAIN"),
    };
    command.output().unwrap()
}

#[test]
fn checking_a_crate_runs_neither_its_cargo_configuration_nor_its_toolchain() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("ran");
    let dir = common::standalone_crate("counter", "mod-with-own-tools", |s| s.to_owned());
    // What the mod's files would have cargo and rustup run.
    let wrapper = dir.join("tools/wrap.sh");
    program(&wrapper, &marker, "wrapper", "exec \"$@\"");
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(
        dir.join(".cargo/config.toml"),
        format!(
            "[build]\nrustc-wrapper = {:?}\n",
            wrapper.display().to_string()
        ),
    )
    .unwrap();
    for tool in ["cargo", "rustc"] {
        program(&dir.join("tc/bin").join(tool), &marker, tool, "exit 1");
    }
    std::fs::write(
        dir.join("rust-toolchain.toml"),
        format!(
            "[toolchain]\npath = {:?}\n",
            dir.join("tc").display().to_string()
        ),
    )
    .unwrap();

    // On the toolchain the host runs under: the check passes, and neither
    // the wrapper nor the mod's toolchain ran.
    let pinned = std::env::var("RUSTUP_TOOLCHAIN").ok();
    let output = check(&dir, pinned.as_deref());
    let stderr = common::stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("no errors (cargo check)"), "{stderr}");
    // What building it runs is named first: here, the proc macro of the
    // repository's SDK (which is not the host's own, so it is named).
    assert!(
        stderr.contains("runs code of its own or of its dependencies on this machine")
            && stderr.contains("wit-bindgen-rust-macro"),
        "{stderr}"
    );
    // With no toolchain named: rustup's default, whatever it has; never
    // the mod's (the check may pass, or say the default lacks the target).
    let output = check(&dir, None);
    let code = output.status.code();
    assert!(matches!(code, Some(0..=2)), "{code:?}");
    assert!(
        !marker.exists(),
        "the mod's own programs ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}
