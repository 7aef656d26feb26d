//! Reads the `game:engine` versions from the workspace's `wit/`, the one
//! place they are written: the newest package (`wit/*.wit`) and the frozen
//! 0.1 release (`wit/v0.1/`), which the host still links. The crate reads
//! them as `env!("GAME_ENGINE_VERSION")` and `env!("GAME_ENGINE_V0_1")`.
//! It also embeds the newest package's files (`$OUT_DIR/engine_wit.rs`),
//! for the builders that hand them to componentize-py and -js, and reads
//! the version of the host's own `game:live` package (`wit/live.wit`) as
//! `env!("GAME_LIVE_VERSION")`.

use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let wit = manifest_dir.join("../../wit");
    println!("cargo:rerun-if-changed={}", wit.display());
    let newest = package_version(&wit_files(&wit), "game:engine");
    let v0_1 = package_version(&wit_files(&wit.join("v0.1")), "game:engine");
    let live = package_version(&[manifest_dir.join("wit/live.wit")], "game:live");
    assert!(
        v0_1.starts_with("0.1."),
        "wit/v0.1/ holds game:engine@{v0_1}, not a 0.1 release"
    );
    println!("cargo:rerun-if-changed={}", wit.join("v0.1").display());
    println!("cargo:rustc-env=GAME_ENGINE_VERSION={newest}");
    println!("cargo:rustc-env=GAME_ENGINE_V0_1={v0_1}");
    println!("cargo:rustc-env=GAME_LIVE_VERSION={live}");
    embed_files(&wit);
}

/// Writes `$OUT_DIR/engine_wit.rs`: `ENGINE_WIT`, each `.wit` file of the
/// newest package as (file name, text), sorted by name.
fn embed_files(wit: &Path) {
    let mut code = String::from("&[\n");
    for path in wit_files(wit) {
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        code.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("]\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("engine_wit.rs");
    std::fs::write(&out, code)
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", out.display()));
}

/// The `.wit` files directly in `dir`, sorted.
fn wit_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("failed to list `{}`: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "wit"))
        .collect();
    files.sort();
    files
}

/// The version `package PACKAGE@VERSION;` declares in one of `files`.
fn package_version(files: &[PathBuf], package: &str) -> String {
    let prefix = format!("package {package}@");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("failed to read `{}`: {e}", path.display()));
        if let Some(version) = text
            .lines()
            .find_map(|line| line.trim().strip_prefix(&prefix)?.strip_suffix(';'))
        {
            return version.to_owned();
        }
    }
    panic!("none of {files:?} declares `{prefix}VERSION;`");
}
