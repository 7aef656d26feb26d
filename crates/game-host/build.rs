//! Reads the `game:engine` versions from the workspace's `wit/`, the one
//! place they are written: the newest package (`wit/*.wit`) and the frozen
//! 0.1 release (`wit/v0.1/`), which the host still links. The crate reads
//! them as `env!("GAME_ENGINE_VERSION")` and `env!("GAME_ENGINE_V0_1")`.
//! It also embeds the newest package's files (`$OUT_DIR/engine_wit.rs`),
//! for the builders that hand them to componentize-py and -js, and reads
//! the version of the host's own `game:live` package (`wit/live.wit`) as
//! `env!("GAME_LIVE_VERSION")`. And it lists the interfaces from the WIT
//! itself, so no list in the host can miss one: `$OUT_DIR/interfaces.rs`
//! (every interface of the newest package and of 0.1 that declares
//! functions: the names grants use), `$OUT_DIR/engine_interfaces.rs` (the
//! newest package's interfaces, each with whether it declares functions:
//! for the Python and JavaScript loaders), `$OUT_DIR/engine_modules.rs`
//! (the same, as the bindings' modules) and `$OUT_DIR/predictor_imports.rs`
//! (the interfaces world `predictor` imports, which a predictor may call).

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
    list_interfaces(&wit);
    list_predictor_imports(&wit.join("worlds.wit"));
}

/// Writes `$OUT_DIR/predictor_imports.rs` (`&["controls", ...]`): each
/// `import NAME;` of `world predictor` in `worlds`, sorted.
fn list_predictor_imports(worlds: &Path) {
    let text = std::fs::read_to_string(worlds)
        .unwrap_or_else(|e| panic!("failed to read `{}`: {e}", worlds.display()));
    let mut lines = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default().trim())
        .skip_while(|line| *line != "world predictor {")
        .skip(1);
    let mut imports: Vec<&str> = Vec::new();
    for line in lines.by_ref() {
        if line == "}" {
            break;
        }
        if let Some(name) = line
            .strip_prefix("import ")
            .and_then(|l| l.strip_suffix(';'))
        {
            imports.push(name);
        }
    }
    assert!(
        !imports.is_empty(),
        "`{}` has no `world predictor` with imports",
        worlds.display()
    );
    imports.sort_unstable();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    write(
        &out.join("predictor_imports.rs"),
        &format!("&{imports:?}\n"),
    );
}

/// Writes `$OUT_DIR/interfaces.rs` (`&["entities", ...]`: each interface
/// that declares functions, the newest package's then 0.1's others, each
/// sorted) and `$OUT_DIR/engine_modules.rs` (`pub use game::engine::{...};`
/// of every interface of the newest package).
fn list_interfaces(wit: &Path) {
    let newest = interfaces(&wit_files(wit));
    let old = interfaces(&wit_files(&wit.join("v0.1")));
    let mut granted: Vec<&str> = newest
        .iter()
        .filter(|(_, funcs)| *funcs)
        .map(|(name, _)| name.as_str())
        .collect();
    granted.sort_unstable();
    let mut older: Vec<&str> = old
        .iter()
        .filter(|(name, funcs)| *funcs && !granted.contains(&name.as_str()))
        .map(|(name, _)| name.as_str())
        .collect();
    older.sort_unstable();
    granted.extend(older);
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    write(&out.join("interfaces.rs"), &format!("&{granted:?}\n"));
    let mut all: Vec<(String, bool)> = newest.clone();
    all.sort();
    write(&out.join("engine_interfaces.rs"), &format!("&{all:?}\n"));
    let mut modules: Vec<String> = newest
        .iter()
        .map(|(name, _)| name.replace('-', "_"))
        .collect();
    modules.sort_unstable();
    write(
        &out.join("engine_modules.rs"),
        &format!("pub use game::engine::{{{}}};\n", modules.join(", ")),
    );
}

/// Each `interface NAME { ... }` of `files`, with whether it declares a
/// function.
fn interfaces(files: &[PathBuf]) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("failed to read `{}`: {e}", path.display()));
        // Comments (docs included) may hold braces: they do not count.
        let text: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let mut rest = text.as_str();
        while let Some(at) = find_interface(rest) {
            let after = &rest[at + "interface ".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            let body_start = after.find('{').expect("an interface has a body");
            let mut depth = 0;
            let mut end = after.len();
            for (index, c) in after[body_start..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = body_start + index;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let body = &after[body_start..end];
            let funcs = body.contains("func(");
            found.push((name, funcs));
            rest = &after[end..];
        }
    }
    found
}

/// Where the next `interface` declaration starts at the start of a line.
fn find_interface(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("interface ") {
            return Some(offset + (line.len() - line.trim_start().len()));
        }
        offset += line.len();
    }
    None
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text)
        .unwrap_or_else(|e| panic!("failed to write `{}`: {e}", path.display()));
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
