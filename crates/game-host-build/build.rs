//! Embeds the SDK's sources (`script/` with a stand-alone manifest, and the
//! WIT it binds, `wit/`), with every extension's guest half (a crate
//! `crates/<extension>/guest/` and the WIT package `crates/<extension>/wit/`
//! it binds), at the same places relative to `script/`. `host new` writes
//! them to a data directory so a script crate anywhere can depend on them
//! (`src/project/sdk.rs`), and Python and JavaScript scripts are built
//! against the extensions' WIT (`src/componentize/extensions.rs`).
//!
//! An extension is found by that layout, not named here: a crate under
//! `crates/` with a `guest/` crate beside its `wit/`.

use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir
        .ancestors()
        .nth(2)
        .expect("crates/game-host-build/ is two levels under the workspace");
    let extensions = extensions(workspace);
    // A new extension is a new package of the workspace: Cargo.lock changes.
    let watched = ["script", "wit", "Cargo.toml", "Cargo.lock"].map(String::from);
    for input in watched.into_iter().chain(
        extensions
            .iter()
            .flat_map(|crate_dir| [format!("{crate_dir}/guest"), format!("{crate_dir}/wit")]),
    ) {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    let out_dir = PathBuf::from(env("OUT_DIR"));
    embed_sdk(workspace, &extensions, &out_dir);
}

/// The extensions' crate directories (`crates/game-host-terrain`), sorted:
/// those with a `guest/Cargo.toml` and a `wit/`.
fn extensions(workspace: &Path) -> Vec<String> {
    let crates = workspace.join("crates");
    let entries = std::fs::read_dir(&crates)
        .unwrap_or_else(|e| panic!("failed to list `{}`: {e}", crates.display()));
    let mut found: Vec<String> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|dir| dir.join("guest/Cargo.toml").is_file() && dir.join("wit").is_dir())
        .map(|dir| {
            let name = dir.file_name().expect("a crate directory has a name");
            format!("crates/{}", name.to_string_lossy())
        })
        .collect();
    found.sort();
    found
}

/// Writes `$OUT_DIR/sdk_files.rs`: `SDK_FILES`, every file of the SDK as
/// `(path in the SDK directory, contents)`; `SDK_ID`, the SDK's version
/// and a hash of those files (the name of its directory); `EXTENSION_WIT`,
/// each extension's WIT package as `(crate directory, [(file name,
/// text)])`; and `GUEST_CRATES`, each extension's guest crate as
/// `(crate name, path in the SDK directory, description)`.
fn embed_sdk(workspace: &Path, extensions: &[String], out_dir: &Path) {
    let manifest = out_dir.join("sdk-Cargo.toml");
    std::fs::write(&manifest, standalone_manifest(workspace))
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", manifest.display()));
    let mut files = vec![("script/Cargo.toml".to_owned(), manifest)];
    let mut dirs = vec!["script/src".to_owned(), "wit".to_owned()];
    for crate_dir in extensions {
        dirs.push(format!("{crate_dir}/guest"));
        dirs.push(format!("{crate_dir}/wit"));
    }
    for dir in &dirs {
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
    code.push_str(&extension_tables(workspace, extensions));
    let out = out_dir.join("sdk_files.rs");
    std::fs::write(&out, code)
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", out.display()));
}

/// The `EXTENSION_WIT` and `GUEST_CRATES` tables (see [`embed_sdk`]).
fn extension_tables(workspace: &Path, extensions: &[String]) -> String {
    let mut wit = String::from(
        "/// Each extension's WIT package: (crate directory, [(file name, text)]).\n\
         pub const EXTENSION_WIT: &[(&str, &[(&str, &str)])] = &[\n",
    );
    let mut guests = String::from(
        "/// Each extension's guest crate: (name, path in the SDK, description).\n\
         pub const GUEST_CRATES: &[(&str, &str, &str)] = &[\n",
    );
    for crate_dir in extensions {
        let mut files = Vec::new();
        files_under(
            workspace,
            &workspace.join(crate_dir).join("wit"),
            &mut files,
        );
        files.sort();
        assert!(
            files.iter().all(|(name, _)| name.matches('/').count() == 3),
            "`{crate_dir}/wit/` is to hold one package's files, without directories"
        );
        wit.push_str(&format!("    ({crate_dir:?}, &[\n"));
        for (name, path) in files {
            let file = name.rsplit('/').next().expect("a file name");
            wit.push_str(&format!(
                "        ({file:?}, include_str!({:?})),\n",
                path.display().to_string()
            ));
        }
        wit.push_str("    ]),\n");
        let guest = format!("{crate_dir}/guest");
        let manifest = std::fs::read_to_string(workspace.join(&guest).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("failed to read `{guest}/Cargo.toml`: {e}"));
        let value = |key: &str| {
            manifest
                .lines()
                .find_map(|line| line.strip_prefix(key)?.trim().strip_prefix('='))
                .map(|value| value.trim().trim_matches('"').to_owned())
                .unwrap_or_else(|| panic!("`{guest}/Cargo.toml` gives no `{key}`"))
        };
        // What a script crate gets from the SDK and from the guest crate
        // must agree: the same wit-bindgen, the same oldest Rust.
        let line = |text: &str, key: &str| {
            (text.lines())
                .find(|line| line.starts_with(key))
                .map(str::to_owned)
        };
        let read = |path: &str| {
            std::fs::read_to_string(workspace.join(path))
                .unwrap_or_else(|e| panic!("failed to read `{path}`: {e}"))
        };
        for (key, from) in [
            ("wit-bindgen = ", "Cargo.toml"),
            ("rust-version = ", "script/Cargo.toml"),
        ] {
            assert_eq!(
                line(&manifest, key),
                line(&read(from), key),
                "`{guest}/Cargo.toml` is to give `{key}` as `{from}` does"
            );
        }
        let inherits = (manifest.lines())
            .any(|line| !line.trim_start().starts_with('#') && line.contains("workspace"));
        assert!(
            !inherits,
            "`{guest}/Cargo.toml` must stand alone (it ships as it is): no `workspace` keys"
        );
        guests.push_str(&format!(
            "    ({:?}, {guest:?}, {:?}),\n",
            value("name "),
            value("description ")
        ));
    }
    wit.push_str("];\n");
    guests.push_str("];\n");
    wit + &guests
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
