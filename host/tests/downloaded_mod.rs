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

/// `host ARGS` run inside the mod's folder `dir` (where cargo and rustup
/// would apply the mod's files), with cargo found on `PATH` (as a modder's
/// shell finds it), and `RUSTUP_TOOLCHAIN` as `toolchain` says.
fn host(dir: &Path, args: &[&str], toolchain: Option<&str>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_host"));
    command
        .args(args)
        .current_dir(dir)
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
    let output = host(&dir, &["check", "."], pinned.as_deref());
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
    let output = host(&dir, &["check", "."], None);
    let code = output.status.code();
    assert!(matches!(code, Some(0..=2)), "{code:?}");
    // Building it runs none of them either.
    let built = tmp.path().join("mod.wasm");
    let output = host(
        &dir,
        &[
            "build",
            ".",
            "-o",
            built.to_str().unwrap(),
            "--cache-dir",
            common::cache_dir().to_str().unwrap(),
        ],
        pinned.as_deref(),
    );
    assert!(output.status.success(), "{}", common::stderr_of(&output));
    assert!(built.is_file());
    assert!(
        !marker.exists(),
        "the mod's own programs ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}
