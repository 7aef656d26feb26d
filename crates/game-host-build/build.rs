//! Embeds the SDK's sources (`script/` with a stand-alone manifest, and the
//! WIT it binds: `wit/` and the terrain extension's
//! `crates/game-host-terrain/wit/`, at the same places relative to
//! `script/`), which `host new` writes to a data directory so a script
//! crate anywhere can depend on them (`src/project/sdk.rs`).

use std::path::{Path, PathBuf};

/// The terrain extension's WIT, which the SDK binds too.
const TERRAIN_WIT: &str = "crates/game-host-terrain/wit";

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .ancestors()
        .nth(2)
        .expect("crates/game-host-build/ is two levels under the workspace");
    for input in ["script", "wit", TERRAIN_WIT, "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    let out_dir = PathBuf::from(env("OUT_DIR"));
    embed_sdk(workspace, &out_dir);
}

/// Writes `$OUT_DIR/sdk_files.rs`: `SDK_FILES`, every file of the SDK as
/// `(path in the SDK directory, contents)`, and `SDK_ID`, the SDK's
/// version and a hash of those files (the name of its directory).
fn embed_sdk(workspace: &Path, out_dir: &Path) {
    let manifest = out_dir.join("sdk-Cargo.toml");
    std::fs::write(&manifest, standalone_manifest(workspace))
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", manifest.display()));
    let mut files = vec![("script/Cargo.toml".to_owned(), manifest)];
    for dir in ["script/src", "wit", TERRAIN_WIT] {
        files_under(workspace, &workspace.join(dir), &mut files);
    }
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a
    let mut code = String::from("/// The SDK's files: (path, contents).\n");
    code.push_str("pub const SDK_FILES: &[(&str, &str)] = &[\n");
    for (name, path) in &files {
        let text = std::fs::read(path)
            .unwrap_or_else(|e| panic!("failed to read `{}`: {e}", path.display()));
        for byte in name.bytes().chain([0]).chain(text).chain([0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        code.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push_str("];\n");
    code.push_str(&format!(
        "/// The SDK's version and content hash.\npub const SDK_ID: &str = \"{}-{:08x}\";\n",
        env("CARGO_PKG_VERSION"),
        hash as u32
    ));
    let out = out_dir.join("sdk_files.rs");
    std::fs::write(&out, code)
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", out.display()));
}

/// Every file under `dir`, named relative to `workspace` with `/`.
fn files_under(workspace: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("failed to list `{}`: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files_under(workspace, &path, files);
        } else {
            let name = path.strip_prefix(workspace).expect("under the workspace");
            let name = name
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.push((name, path));
        }
    }
}

/// `script/Cargo.toml` with what it inherits from the workspace written
/// out, so it builds outside the workspace.
fn standalone_manifest(workspace: &Path) -> String {
    let read = |path: PathBuf| {
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("failed to read `{}`: {e}", path.display()))
    };
    let root = read(workspace.join("Cargo.toml"));
    let sdk = read(workspace.join("script/Cargo.toml"));
    // `key = value` lines of the workspace's [workspace.package] and
    // [workspace.dependencies] tables.
    let mut inherited = std::collections::HashMap::new();
    let mut table = "";
    for line in root.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            table = line;
        } else if (table == "[workspace.package]" || table == "[workspace.dependencies]")
            && let Some((key, value)) = line.split_once(" = ")
        {
            inherited.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    let mut out =
        String::from("# The game-host SDK, as shipped with the `host` binary (`host new`).\n");
    let mut table = "";
    for line in sdk.lines() {
        if line.starts_with('[') {
            table = line.trim();
            if table == "[lints]" {
                continue;
            }
        }
        if table == "[lints]" {
            continue; // the workspace's lint levels are for this repository
        }
        let line = match line.split_once(".workspace = true") {
            Some((key, "")) => {
                let value = inherited
                    .get(key.trim())
                    .unwrap_or_else(|| panic!("the workspace gives no `{key}`"));
                format!("{key} = {value}")
            }
            _ => line.to_owned(),
        };
        assert!(
            !line.contains("workspace"),
            "script/Cargo.toml: cannot write `{line}` out for a stand-alone SDK"
        );
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name} for build scripts"))
}
