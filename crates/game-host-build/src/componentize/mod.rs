//! Building Python and JavaScript scripts into components, with
//! componentize-py and componentize-js, against the host's own WIT.
//!
//! Both tools take tens of seconds and write a different component each
//! time for the same input, which would also defeat the compile cache. So
//! builds are cached too: keyed by SHA-256 of the language, the tool's
//! version, the WIT, the world and every source file, under
//! `<cache dir>/builds/`. An unchanged script loads from there, and its
//! compiled code from the compile cache, in milliseconds.
//!
//! The world is `stateful-script` when the source defines the state
//! hand-over exports (`save_state` / `saveState`), else `script`; a
//! project made for a game (`wit/game.wit`, `game_wit`) adds the game's
//! typed imports to it, and a script that imports an extension's
//! interface (`extensions`) that extension's.
//!
//! That is the shipping path (`host build`: one self-contained component
//! per script). `host run` takes the live path (`live`): one runtime per
//! language, built once, running the script's sources as data.
//!
//! This module reads a script's sources and keys its build; `api` refuses
//! sources written against 0.1 with one line naming what to change;
//! `language` names the languages, their files and tools; `tool`
//! runs the tool and turns a failure into the script's own error; `cache`
//! keeps the builds; `live` builds the runtimes and loads scripts on them.

mod api;
mod cache;
mod extensions;
mod game_wit;
mod language;
mod live;
mod tool;
mod typescript;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use cache::BuildCache;
pub use cache::MAX_BUILD_CACHE_BYTES;
pub use extensions::{ExtensionWit, all as extensions, used_by as extensions_used_by};
pub use game_wit::{GameWit, path_in as game_wit_path, path_in_project as project_game_wit};
pub use language::{COMPONENTIZE_JS_VERSION, COMPONENTIZE_PY_VERSION, Language};
pub use live::{live_sources, load as load_live, load_sources as load_live_sources, runtime};
use tool::run_tool;

use game_host::files::{MAX_TEXT_FILE, read_capped};
use game_host::guest::engine::API_VERSION;
use game_host::hex::hex;

/// The WIT package scripts are built against, as the host was built with
/// it: (file name, text) for each file of the package.
use game_host::ENGINE_WIT;

/// Builds the script whose entry file is `entry` and returns the
/// component's bytes, from the build cache under `cache_dir` when its
/// sources, the WIT and the tool are unchanged.
pub fn build(
    language: Language,
    entry: &Path,
    name: &str,
    cache_dir: Option<&Path>,
) -> Result<Vec<u8>> {
    let sources = read_sources(language, entry)?;
    let game = GameWit::of_project(entry)?;
    let version = tool_version(language)?;
    // What the tool builds; the key is of the sources as written.
    let runnable = runnable_sources(language, &sources)?;
    let world = language.world(&runnable);
    let extensions = uses(language, &runnable);
    let version = match language {
        Language::TypeScript => format!("{version} on {}", typescript::STRIPPER),
        _ => version,
    };
    let key = cache_key(
        language,
        &version,
        world,
        (game.as_ref(), &extensions),
        &sources,
    );
    let cache = cache_dir.and_then(BuildCache::open);
    if let Some(bytes) = cache.as_ref().and_then(|cache| cache.get(&key)) {
        tracing::debug!(script = name, "build cache hit");
        return Ok(bytes);
    }

    let work = std::env::temp_dir().join(format!("game-host-build-{}", uuid::Uuid::now_v7()));
    // Build from the sources as read for the key, not from the script's
    // directory: an edit saved during the build must not be cached under
    // the key of the sources before it.
    let result = write_script_wit(&work, world, game.as_ref(), &extensions)
        .and_then(|_| snapshot(language, entry, &runnable, &work))
        .and_then(|copy| {
            let label = format!(
                "building `{name}` ({} script, world `{world}`) with {version}",
                language.name()
            );
            run_tool(language, &copy, entry, name, label, world, &work)
        });
    let _ = std::fs::remove_dir_all(&work);
    let bytes = result?;
    if let Some(cache) = cache {
        cache.put(&key, &bytes);
    }
    Ok(bytes)
}

/// The world the script builds for: `stateful-script` if its sources
/// define the state hand-over, else `script`.
pub(crate) fn world_of(language: Language, entry: &Path) -> Result<&'static str> {
    let sources = read_sources(language, entry)?;
    Ok(language.world(&runnable_sources(language, &sources)?))
}

/// A source file of a script: its path and its bytes.
type Source = (PathBuf, Vec<u8>);

/// `sources` as the tool and the runtime take them: a TypeScript script's
/// with their types erased (lines kept), any other's as they are.
fn runnable_sources(language: Language, sources: &[Source]) -> Result<Cow<'_, [Source]>> {
    if language == language.runs_as() {
        return Ok(Cow::Borrowed(sources));
    }
    let erased = sources
        .iter()
        .map(|(path, text)| {
            let text = std::str::from_utf8(text)
                .map_err(|_| anyhow::anyhow!("`{}` is not UTF-8 text", path.display()))?;
            let runnable = language.runnable(&path.display().to_string(), text)?;
            Ok((path.clone(), runnable.into_owned().into_bytes()))
        })
        .collect::<Result<_>>()?;
    Ok(Cow::Owned(erased))
}

/// The extensions a script's sources import.
fn uses(language: Language, sources: &[(PathBuf, Vec<u8>)]) -> Vec<&'static ExtensionWit> {
    extensions::used_by(language, sources.iter().map(|(_, text)| text.as_slice()))
}

/// What a script's world adds to the engine's: the game's typed imports
/// (`wit/game.wit`), if it was made for a game, and the extensions it
/// imports.
pub type Additions<'a> = (Option<&'a GameWit>, &'a [&'static ExtensionWit]);

/// Writes the WIT a script is built against for `world` into `work/wit`
/// and returns that directory: the engine's package, with `world` in it;
/// for a script of a game or one that imports extensions, a package of
/// its own whose `world` includes the engine's, the game's imports and
/// each extension's.
pub(crate) fn write_script_wit(
    work: &Path,
    world: &str,
    game: Option<&GameWit>,
    extensions: &[&'static ExtensionWit],
) -> Result<PathBuf> {
    if game.is_none() && extensions.is_empty() {
        write_wit(work, ENGINE_WIT, &[])?;
        return Ok(work.join("wit"));
    }
    let game_files = game.map(|game| [("game.wit", game.text.as_str())]);
    let names: Vec<String> = extensions.iter().map(|e| e.dep_name()).collect();
    let mut deps: Vec<(&str, WitFiles<'_>)> = vec![("engine", ENGINE_WIT)];
    if let Some(files) = &game_files {
        deps.push(("game", files));
    }
    for (name, extension) in names.iter().zip(extensions) {
        deps.push((name, extension.files));
    }
    let includes = [format!("include game:engine/{world}@{API_VERSION};")];
    let main = script_world(GAME_SCRIPT_PACKAGE, world, &includes, (game, extensions));
    write_wit(work, &[("main.wit", &main)], &deps)?;
    Ok(work.join("wit"))
}

/// The package `package` with one world, `world`: `includes`, then what
/// `additions` adds (the game's imports, each extension's).
pub(crate) fn script_world(
    package: &str,
    world: &str,
    includes: &[String],
    (game, extensions): Additions<'_>,
) -> String {
    let game = game.map(|game| format!("include {}:game/imports;", game.name));
    let lines = (includes.iter().cloned())
        .chain(game)
        .chain(extensions.iter().map(|e| e.include()));
    let body: String = lines.map(|line| format!("    {line}\n")).collect();
    format!("package {package};\n\nworld {world} {{\n{body}}}\n")
}

/// The package holding the world of a game's script.
const GAME_SCRIPT_PACKAGE: &str = "game:game-script";

/// Feeds the WIT a script is built against (the engine's, and what
/// `additions` adds) to `hash`.
pub(crate) fn hash_script_wit(hash: &mut Sha256, (game, extensions): Additions<'_>) {
    hash_wit(hash, ENGINE_WIT);
    if let Some(game) = game {
        game.hash(hash);
    }
    for extension in extensions {
        hash_wit(hash, extension.files);
    }
}

/// A fingerprint of the script's sources, its game types and the world
/// they build for (not the tool's version: that takes running the tool).
/// TypeScript whose types cannot be erased (a syntax error) still has one,
/// of its text as written: the watcher builds a script again only when
/// its fingerprint changes, and a script without one would be built again
/// on every event its own reading raises, for as long as the error stays.
pub fn fingerprint(language: Language, entry: &Path) -> Result<String> {
    let sources = read_sources(language, entry)?;
    let game = GameWit::of_project(entry)?;
    let runnable = runnable_sources(language, &sources).unwrap_or(Cow::Borrowed(&sources));
    let extensions = uses(language, &runnable);
    Ok(cache_key(
        language,
        "",
        language.world(&runnable),
        (game.as_ref(), &extensions),
        &sources,
    ))
}

/// The directory of the script whose entry file is `entry`: its parent,
/// or for a bare `app.py` (whose parent is ``) the working directory.
pub fn script_dir(entry: &Path) -> &Path {
    (entry.parent())
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The script's source files with their contents, sorted by path.
fn read_sources(language: Language, entry: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let read = |path: &Path| {
        read_capped(path, MAX_TEXT_FILE)
            .with_context(|| format!("failed to read `{}`", path.display()))
    };
    let mut sources = vec![(entry.to_owned(), read(entry)?)];
    if language == Language::Python {
        let mut pending = vec![script_dir(entry).to_owned()];
        while let Some(dir) = pending.pop() {
            let entries = std::fs::read_dir(&dir)
                .with_context(|| format!("failed to list `{}`", dir.display()))?;
            for item in entries.flatten() {
                let path = item.path();
                let hidden = item.file_name().to_string_lossy().starts_with('.');
                // A linked folder is not followed: it could lead out of the
                // project, or back into it for ever.
                let folder = item.file_type().is_ok_and(|kind| kind.is_dir());
                if folder && !hidden && item.file_name() != "__pycache__" {
                    pending.push(path);
                } else if path.is_dir() {
                    continue;
                } else if path != entry && language.is_source(entry, &path) {
                    sources.push((path.clone(), read(&path)?));
                }
            }
        }
    }
    sources.sort();
    if let Some(error) = api::old_api(language, &sources) {
        bail!(error);
    }
    Ok(sources)
}

/// The files of one WIT package: (file name, text).
type WitFiles<'a> = &'a [(&'a str, &'a str)];

/// Writes the WIT of a build into `work/wit`: the `root` package's files,
/// and each dependency's under `deps/<name>/`.
fn write_wit(work: &Path, root: WitFiles<'_>, deps: &[(&str, WitFiles<'_>)]) -> Result<()> {
    let wit = work.join("wit");
    let packages = std::iter::once((wit.clone(), root)).chain(
        deps.iter()
            .map(|(name, files)| (wit.join("deps").join(name), *files)),
    );
    for (dir, files) in packages {
        for (name, text) in files {
            std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(dir.join(name), text))
                .context("failed to write the WIT for the build")?;
        }
    }
    Ok(())
}

/// Feeds a WIT package's files (names and texts) to `hash`.
fn hash_wit(hash: &mut Sha256, files: WitFiles<'_>) {
    for (name, text) in files {
        for part in [name, text] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
}

/// Writes `sources` (read from beside `entry`, as the tool takes them)
/// under `work/src`, keeping their relative paths; returns the copy of
/// `entry`. A TypeScript module, its types erased already, is written as
/// `.js`, which the tool builds.
fn snapshot(
    language: Language,
    entry: &Path,
    sources: &[(PathBuf, Vec<u8>)],
    work: &Path,
) -> Result<PathBuf> {
    let root = entry.parent().unwrap_or(Path::new("."));
    let copy = |path: &Path| {
        let copy = work
            .join("src")
            .join(path.strip_prefix(root).unwrap_or(path));
        match language {
            Language::TypeScript => copy.with_extension("js"),
            _ => copy,
        }
    };
    for (path, text) in sources {
        let to = copy(path);
        let text = match language {
            Language::JavaScript | Language::TypeScript => &api::javascript_at_newest(text),
            Language::Python => text,
        };
        to.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&to, text))
            .with_context(|| format!("failed to copy `{}` for the build", path.display()))?;
    }
    Ok(copy(entry))
}

/// `None` when `language`'s build tool starts, else the one line that says
/// how to install it.
pub fn tool_missing(language: Language) -> Option<String> {
    tool_version(language)
        .err()
        .map(|error| format!("{error:#}"))
}

/// The tool's version line, or an error saying how to install it.
fn tool_version(language: Language) -> Result<String> {
    let tool = language.tool();
    let output = crate::process::tool(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => anyhow::anyhow!(
                "{} scripts are built with {tool}, which is not installed: `{}`",
                language.name(),
                language.install_hint()
            ),
            _ => anyhow::Error::from(error).context(format!("failed to run `{tool} --version`")),
        })?;
    if !output.status.success() {
        bail!(
            "`{tool} --version` failed ({}); reinstall it: `{}`",
            output.status,
            language.install_hint()
        );
    }
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    // componentize-py says its name, componentize-js only its number.
    Ok(if version.starts_with(tool) {
        version
    } else {
        format!("{tool} {version}")
    })
}

fn cache_key(
    language: Language,
    version: &str,
    world: &str,
    additions: Additions<'_>,
    sources: &[(PathBuf, Vec<u8>)],
) -> String {
    let mut hash = Sha256::new();
    for part in [language.name(), version, world] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash_script_wit(&mut hash, additions);
    let root = sources[0].0.parent().unwrap_or(Path::new("."));
    for (path, text) in sources {
        let relative = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
        hash.update((relative.len() as u64).to_le_bytes());
        hash.update(relative.as_bytes());
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(text);
    }
    hex(&hash.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_key_changes_with_any_source_or_the_tool() {
        let sources = |text: &[u8]| vec![(PathBuf::from("/s/app.py"), text.to_vec())];
        let key = |version, text| {
            cache_key(
                Language::Python,
                version,
                "script",
                (None, &[]),
                &sources(text),
            )
        };
        assert_eq!(key("v1", b"a"), key("v1", b"a"));
        assert_ne!(key("v1", b"a"), key("v1", b"b"));
        assert_ne!(key("v1", b"a"), key("v2", b"a"));
        let game = GameWit {
            name: "g".into(),
            text: "package g:game;".into(),
        };
        let with_game = cache_key(
            Language::Python,
            "v1",
            "script",
            (Some(&game), &[]),
            &sources(b"a"),
        );
        assert_ne!(key("v1", b"a"), with_game);
        let terrain = cache_key(
            Language::Python,
            "v1",
            "script",
            (None, &[&extensions::all()[0]]),
            &sources(b"a"),
        );
        assert_ne!(key("v1", b"a"), terrain);
    }
}
