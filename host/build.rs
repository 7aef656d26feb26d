//! Builds the built-in default script (`examples/spinning-cube`) for
//! wasm32-wasip2 so the `host` binary can embed it: an installed `host`
//! then runs its default from any directory. Writes the list of the host
//! extensions the binary links (`extensions.rs`), from what its
//! dependencies say they are.
//!
//! The script is built by a nested `cargo build` into its own target
//! directory beside this build's (so the two never wait on each other's
//! lock), in release mode, from the workspace's lock file.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.parent().expect("host/ has a parent");
    let script = workspace.join("examples/spinning-cube");
    for input in [
        "examples/spinning-cube",
        "script",
        "wit",
        "Cargo.lock",
        "Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }

    let out_dir = PathBuf::from(env("OUT_DIR"));
    write_extensions(&out_dir);
    let target_dir = nested_target_dir(&out_dir);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--locked", "--target", TARGET])
        .arg("--manifest-path")
        .arg(script.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // Its own build directory too: one configured for the outer build
        // (`build.build-dir`, as the packaging test sets) is locked by it,
        // and this build would wait on it for ever. (The variable beats a
        // configuration file's setting.)
        .env("CARGO_BUILD_BUILD_DIR", &target_dir)
        .current_dir(&script);
    // What the outer build set for itself must not leak into the script's.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "CLIPPY_ARGS",
        "CARGO_MAKEFLAGS",
    ] {
        command.env_remove(var);
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("failed to run cargo for the default script: {e}"));
    if !status.success() {
        panic!(
            "building the built-in default script ({}) failed: see cargo's output above \
             (a missing target is added with `rustup target add {TARGET}`)",
            script.display()
        );
    }
    let wasm = target_dir.join(TARGET).join("release/spinning_cube.wasm");
    std::fs::copy(&wasm, out_dir.join("spinning_cube.wasm"))
        .unwrap_or_else(|e| panic!("failed to copy `{}`: {e}", wasm.display()));
}

/// Writes `$OUT_DIR/extensions.rs`: `linked()`, the extensions of every
/// dependency that says it is one. An extension crate is a `links` package
/// whose build script prints `cargo::metadata=extension=<its crate name>`;
/// Cargo gives that to this script as `DEP_<LINKS>_EXTENSION`, and the
/// crate offers `extension()` (as `game_host_terrain` does).
fn write_extensions(out_dir: &Path) {
    let mut crates: Vec<String> = std::env::vars()
        .filter(|(key, _)| key.starts_with("DEP_") && key.ends_with("_EXTENSION"))
        .map(|(key, name)| {
            let ident = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            assert!(ident, "{key}: `{name}` is not a crate name");
            name
        })
        .collect();
    crates.sort();
    let calls: String = crates
        .iter()
        .map(|name| format!("        {name}::extension(),\n"))
        .collect();
    let code = format!(
        "/// The host extensions the binary links, one per dependency that is one\n\
         /// (written by `build.rs`).\n\
         pub fn linked() -> Vec<game_host::Extension> {{\n    vec![\n{calls}    ]\n}}\n"
    );
    let out = out_dir.join("extensions.rs");
    std::fs::write(&out, code)
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", out.display()));
}

/// `<target>/embedded-scripts`, where `<target>` holds this build's OUT_DIR
/// (`<target>/<profile>/build/host-<hash>/out`).
fn nested_target_dir(out_dir: &Path) -> PathBuf {
    let target = out_dir
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == "build"))
        .and_then(|build| build.parent()?.parent())
        .unwrap_or(out_dir);
    target.join("embedded-scripts")
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}
