//! `host new`: a script project of the author's own, anywhere, ready for
//! `host run NAME` and `host run NAME --watch`.
//!
//! A Rust project is a crate depending on the SDK this host ships
//! ([`sdk`]), with the stack-size setting scripts link with, its own
//! `[workspace]` (so it builds inside another cargo workspace too) and a
//! `.gitignore`; Python, JavaScript and TypeScript projects are a directory
//! holding the module (`app.py`, `app.js`, `app.ts`) with its type
//! checker's settings (`pyrightconfig.json`, `jsconfig.json`,
//! `tsconfig.json`; the stubs themselves are written by `editor_types`). Each does something visible (a moon circling
//! the cube) and hands its state over on hot-swap.

pub mod sdk;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use game_host::game_types::GameTypes;

/// The language of a new project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectLanguage {
    /// A Rust crate built with cargo.
    Rust,
    /// A Python module built with componentize-py.
    Python,
    /// A JavaScript module built with componentize-js.
    JavaScript,
    /// A TypeScript module: JavaScript once its types are erased.
    TypeScript,
}

/// The type checker's settings file a project in `language` gets: (name,
/// text); none for Rust, which cargo checks.
pub fn config_file(language: ProjectLanguage) -> Option<(&'static str, &'static str)> {
    match language {
        ProjectLanguage::Rust => None,
        ProjectLanguage::Python => Some((
            "pyrightconfig.json",
            include_str!("templates/pyrightconfig.json"),
        )),
        ProjectLanguage::JavaScript => {
            Some(("jsconfig.json", include_str!("templates/jsconfig.json")))
        }
        ProjectLanguage::TypeScript => {
            Some(("tsconfig.json", include_str!("templates/tsconfig.json")))
        }
    }
}

/// [`config_file`] as a file to write.
fn config(language: ProjectLanguage) -> (&'static str, String) {
    let (name, text) = config_file(language).expect("a checked language");
    (name, text.to_owned())
}

/// Creates a project at `dir` (which must not exist, or be empty) and
/// returns the files written, relative to it. The project's name is the
/// directory's name. Made for `game`, it also holds the game's types
/// (`wit/game.wit`) and, in Rust, their bindings (`src/game.rs`).
pub fn create(
    dir: &Path,
    language: ProjectLanguage,
    game: Option<&GameTypes>,
) -> Result<Vec<PathBuf>> {
    create_in(dir, language, game, sdk::install)
}

/// [`create`], with a Rust project depending on the SDK at `sdk` (the
/// `script` crate [`sdk::install_at`] returns) instead of the one in the
/// host's data directory.
pub fn create_with_sdk(
    dir: &Path,
    language: ProjectLanguage,
    game: Option<&GameTypes>,
    sdk: &Path,
) -> Result<Vec<PathBuf>> {
    create_in(dir, language, game, || Ok(sdk.to_owned()))
}

fn create_in(
    dir: &Path,
    language: ProjectLanguage,
    game: Option<&GameTypes>,
    sdk: impl FnOnce() -> Result<PathBuf>,
) -> Result<Vec<PathBuf>> {
    let name = project_name(dir)?;
    if let Some(game) = game.filter(|g| g.components.is_empty() && g.resources.is_empty()) {
        bail!(
            "game `{}`'s description has no components or resources: a project made for it \
             would have no types",
            game.name
        );
    }
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        bail!("`{}` already exists and is not empty", dir.display());
    }
    if dir.exists() && !dir.is_dir() {
        bail!("`{}` already exists and is not a directory", dir.display());
    }
    let fill = |template: &str| {
        template
            .replace("{{name}}", &name)
            .replace("{{wit}}", wit_version())
    };
    let mut files: Vec<(&str, String)> = match language {
        ProjectLanguage::Rust => {
            let sdk = sdk()?;
            vec![
                ("Cargo.toml", cargo_toml(&name, &sdk)),
                (".cargo/config.toml", CARGO_CONFIG.to_owned()),
                (".gitignore", "/target\n".to_owned()),
                ("src/lib.rs", fill(include_str!("templates/lib.rs"))),
            ]
        }
        ProjectLanguage::Python => vec![
            ("app.py", fill(include_str!("templates/app.py"))),
            config(ProjectLanguage::Python),
            (".gitignore", "__pycache__/\n.types*/\n".to_owned()),
        ],
        ProjectLanguage::JavaScript => vec![
            ("app.js", fill(include_str!("templates/app.js"))),
            config(ProjectLanguage::JavaScript),
            (".gitignore", ".types*/\n".to_owned()),
        ],
        ProjectLanguage::TypeScript => vec![
            ("app.ts", fill(include_str!("templates/app.ts"))),
            config(ProjectLanguage::TypeScript),
            (".gitignore", ".types*/\n".to_owned()),
        ],
    };
    if let Some(game) = game {
        let (file, after) = match language {
            ProjectLanguage::Rust => ("src/lib.rs", "use script::prelude::*;\n"),
            ProjectLanguage::Python => ("app.py", "from wit_world.imports.types import Vec3\n"),
            ProjectLanguage::JavaScript => {
                ("app.js", "import { find, spawn } from \"game:engine/scene@")
            }
            ProjectLanguage::TypeScript => {
                ("app.ts", "import type { Wake } from \"game:engine/tasks@")
            }
        };
        if let Some((_, text)) = files.iter_mut().find(|(name, _)| *name == file) {
            let at = text
                .find(after)
                .map(|at| at + text[at..].find('\n').unwrap_or(0) + 1);
            let at = at.expect("the template holds the line the game's types follow");
            text.insert_str(at, &game_module(game, language));
        }
        files.push(("wit/game.wit", game.wit()));
        if language == ProjectLanguage::Rust {
            files.push(("src/game.rs", game_bindings(game)));
        }
    }
    for (file, text) in &files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().expect("a file has a directory"))
            .and_then(|()| std::fs::write(&path, text))
            .with_context(|| format!("failed to write `{}`", path.display()))?;
    }
    Ok(files.into_iter().map(|(file, _)| file.into()).collect())
}

/// Brings the game types of the project in `dir` to `game`'s description:
/// `wit/game.wit`, and for a Rust project (`rust`) its bindings'
/// `src/game.rs`. Refused, in one line, for a description with no types
/// and for a Rust crate not made for a game (no `mod game;`). Each file is
/// written whole beside the old one (a hidden temporary name) and renamed
/// over it. Returns the files it changed (none when they already match).
pub fn update_game(dir: &Path, rust: bool, game: &GameTypes) -> Result<Vec<PathBuf>> {
    if game.components.is_empty() && game.resources.is_empty() {
        bail!(
            "game `{}`'s description has no components or resources: no types to write",
            game.name
        );
    }
    let mut files = vec![("wit/game.wit", game.wit())];
    if rust {
        let lib = dir.join("src/lib.rs");
        let made_for_a_game = std::fs::read_to_string(&lib)
            .is_ok_and(|text| text.lines().any(|line| line.trim() == "mod game;"));
        if !made_for_a_game {
            bail!(
                "`{}` was not made for a game: its `src/lib.rs` has no `mod game;` (make a \
                 project with `host new NAME --game FILE` and move the script into it)",
                dir.display()
            );
        }
        files.push(("src/game.rs", game_bindings(game)));
    }
    let mut changed = Vec::new();
    for (file, text) in files {
        let path = dir.join(file);
        if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
            continue;
        }
        let name = path.file_name().expect("a file").to_string_lossy();
        let fresh = path.with_file_name(format!(".{name}.{}.tmp", uuid::Uuid::now_v7().simple()));
        std::fs::create_dir_all(path.parent().expect("a file has a directory"))
            .and_then(|()| std::fs::write(&fresh, &text))
            .and_then(|()| std::fs::rename(&fresh, &path))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&fresh);
            })
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        changed.push(PathBuf::from(file));
    }
    Ok(changed)
}

/// `src/game.rs` of a Rust project made for `game`: its types' bindings.
fn game_bindings(game: &GameTypes) -> String {
    let interfaces: Vec<String> = (game.interfaces().into_iter())
        .map(|(interface, holds, _)| format!("{} as {holds}", interface.replace('-', "_")))
        .collect();
    include_str!("templates/game.rs")
        .replace("{{interfaces}}", &interfaces.join(", "))
        .replace("{{game}}", &game.name)
        .replace("{{game_module}}", &game.name.replace('-', "_"))
}

/// What a project made for `game` has after its imports: what the game's
/// types offer, in `language`'s names, and (but in Rust, where the SDK's
/// prelude comes first) the import of them.
fn game_module(game: &GameTypes, language: ProjectLanguage) -> String {
    let comment = match language {
        ProjectLanguage::Python => "#",
        _ => "//",
    };
    let mut text = format!(
        "\n{comment} Game `{}`'s own types (wit/game.wit), typed, no names crossing:\n",
        game.name
    );
    for (wit, interface, records) in game.interfaces() {
        let id = if interface == "components" { "id" } else { "" };
        let set = if id.is_empty() { "value" } else { "id, value" };
        for record in records {
            let snake = record.wit.replace('-', "_");
            let (get, set) = match language {
                ProjectLanguage::Rust => (
                    format!("game::{interface}::get_{snake}({id})"),
                    format!("set_{snake}({set})"),
                ),
                ProjectLanguage::Python => (
                    format!("{}.get_{snake}({id})", wit.replace('-', "_")),
                    format!("set_{snake}({set})"),
                ),
                ProjectLanguage::JavaScript | ProjectLanguage::TypeScript => {
                    let camel = camel_case(&record.wit);
                    (
                        format!("{}.get{camel}({id})", js_module(wit)),
                        format!("set{camel}({set})"),
                    )
                }
            };
            text.push_str(&format!("{comment}   {get} / {set} ({})\n", record.name));
        }
    }
    let modules = game.interfaces().into_iter().map(|(wit, _, _)| wit);
    match language {
        ProjectLanguage::Rust => text.push_str("#[allow(dead_code)]\nmod game;\n"),
        ProjectLanguage::Python => {
            let modules: Vec<String> = modules.map(|m| m.replace('-', "_")).collect();
            text.push_str(&format!(
                "from wit_world.imports import {}\n",
                modules.join(", ")
            ));
        }
        ProjectLanguage::JavaScript | ProjectLanguage::TypeScript => {
            for module in modules {
                text.push_str(&format!(
                    "import * as {} from \"{}:game/{module}\";\n",
                    js_module(module),
                    game.name
                ));
            }
        }
    }
    text
}

/// The name a JavaScript script binds interface `wit` to
/// (`gameComponents`).
fn js_module(wit: &str) -> String {
    let camel = camel_case(wit);
    let mut chars = camel.chars();
    let first = chars.next().map(|c| c.to_ascii_lowercase());
    first.into_iter().chain(chars).collect()
}

/// `spin-rate` as `SpinRate`.
fn camel_case(wit: &str) -> String {
    wit.split('-')
        .map(|part| {
            let mut chars = part.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect()
}

/// The directory's name, if it is one cargo and the host accept as a
/// script's name: ASCII letters, digits, `-` and `_`, starting with a
/// letter.
fn project_name(dir: &Path) -> Result<String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("`{}` does not end in a project name", dir.display()))?;
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        bail!(
            "`{name}` is not a project name: use ASCII letters, digits, `-` and `_`, \
             starting with a letter"
        );
    }
    Ok(name.to_owned())
}

/// The version of the `game:engine` package the host binds, for the
/// JavaScript template's imports.
fn wit_version() -> &'static str {
    game_host::guest::engine::API_VERSION
}

/// The stack-size setting every script crate links with (see the book: A script in Rust), for
/// `host build` / cargo (wasm32-wasip2) and `cargo component build`
/// (wasm32-wasip1).
const CARGO_CONFIG: &str = "\
# Scripts link with a 64 KiB stack in linear memory instead of Rust's
# default 1 MiB, so spawning an instance touches no fresh pages. A script
# that needs a deeper stack raises the number (`host build` reads it from
# here, and nothing else of this file). `cargo component build` builds for
# wasm32-wasip1, so the setting is given for it too.
[target.wasm32-wasip2]
rustflags = [\"-C\", \"link-arg=-zstack-size=65536\"]

[target.wasm32-wasip1]
rustflags = [\"-C\", \"link-arg=-zstack-size=65536\"]
";

fn cargo_toml(name: &str, sdk: &Path) -> String {
    // TOML basic strings escape `\` and `"`.
    let toml = |path: &Path| {
        path.display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
    };
    let sdk_root = toml(sdk.parent().unwrap_or(sdk));
    let sdk = toml(sdk);
    format!(
        "[package]
name = \"{name}\"
version = \"0.1.0\"
edition = \"2024\"
# The SDK's own minimum; with it cargo picks dependency versions this
# toolchain builds.
rust-version = \"{rust_version}\"

[lib]
crate-type = [\"cdylib\"]

[dependencies]
# The SDK shipped with `host` {version}, written by `host new`.
script = {{ path = \"{sdk}\" }}
{extensions}
# What the script needs, for a game that grants each script only part of the
# API (the book: Grants); `host build` embeds it in the component.
# [package.metadata.game.needs]
# imports = [\"log\", \"runtime\", \"scene\"]
# writes = []

# A project of its own, also when created inside another cargo workspace.
[workspace]
",
        rust_version = SDK_RUST_VERSION,
        version = env!("CARGO_PKG_VERSION"),
        extensions = extension_lines(&sdk_root),
    )
}

/// Commented dependencies on the extensions' guest crates, which ship in
/// the SDK beside `script/` (`sdk_root`): a script that calls an
/// extension imports its WIT package, and only hosts with that extension
/// load it.
fn extension_lines(sdk_root: &str) -> String {
    if sdk::GUEST_CRATES.is_empty() {
        return String::new();
    }
    let mut lines = String::from(
        "# The host's extensions, for a script that calls one (only a host with that\n\
         # extension loads the script then):\n",
    );
    for (name, path, description) in sdk::GUEST_CRATES {
        lines.push_str(&format!(
            "# {description}\n# {name} = {{ path = \"{sdk_root}/{path}\" }}\n"
        ));
    }
    lines
}

/// The SDK's `rust-version`.
const SDK_RUST_VERSION: &str = "1.88";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_cargo_accepts() {
        assert_eq!(project_name(Path::new("/tmp/my-mod")).unwrap(), "my-mod");
        for bad in ["1st", "my mod", "mod.rs", "-x", "é"] {
            let error = project_name(Path::new(bad)).unwrap_err().to_string();
            assert!(error.contains("is not a project name"), "{error}");
        }
    }

    #[test]
    fn the_manifest_states_the_sdks_rust_version() {
        let sdk_manifest = sdk::SDK_FILES
            .iter()
            .find(|(name, _)| *name == "script/Cargo.toml")
            .unwrap()
            .1;
        assert!(
            sdk_manifest.contains(&format!("rust-version = \"{SDK_RUST_VERSION}\"")),
            "{sdk_manifest}"
        );
        assert_eq!(wit_version().split('.').count(), 3);
    }

    #[test]
    fn a_typescript_project_is_written_for_a_game_too() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("ts_mod");
        let files = create(&project, ProjectLanguage::TypeScript, None).unwrap();
        assert_eq!(
            files,
            ["app.ts", "tsconfig.json", ".gitignore"].map(PathBuf::from)
        );
        let game =
            GameTypes::parse(r#"{"game": "spin-demo", "components": {"Spin": {"speed": "f32"}}}"#)
                .unwrap();
        let made = dir.path().join("ts_game");
        create(&made, ProjectLanguage::TypeScript, Some(&game)).unwrap();
        let app = std::fs::read_to_string(made.join("app.ts")).unwrap();
        assert!(app.contains("from \"spin-demo:game/"), "{app}");
    }

    #[test]
    fn a_python_project_is_written_and_an_existing_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("my_mod");
        let files = create(&project, ProjectLanguage::Python, None).unwrap();
        assert_eq!(
            files,
            ["app.py", "pyrightconfig.json", ".gitignore"].map(PathBuf::from)
        );
        let app = std::fs::read_to_string(project.join("app.py")).unwrap();
        assert!(app.starts_with("\"\"\"my_mod:"), "{app}");
        let error = create(&project, ProjectLanguage::JavaScript, None).unwrap_err();
        assert!(error.to_string().contains("is not empty"), "{error}");
    }
}
