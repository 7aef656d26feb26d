//! The live path, how `host run` runs Python and JavaScript scripts: the
//! interpreter is built and compiled once, and a script is data.
//!
//! For each language, a runtime component (componentize-py's CPython or
//! componentize-js's SpiderMonkey, the `game:engine` `stateful-script`
//! bindings, and a loader, `loaders/loader.{py,js}`) is built with the
//! installed tool, kept in the build cache under a key of the tool's
//! version, the WIT and the loader, and compiled once per engine
//! ([`ScriptEngine::load_kept`]). A script's sources reach its instances
//! through the host-internal import `game:live/sources`
//! (`crates/game-host/wit/live.wit`):
//! read-only, in memory, the files of that one script and nothing else.
//! Loading or swapping a script is then a check of its sources in a
//! throwaway instance (`game:live/loader.check`: compiled, not run) and a
//! new instance: milliseconds, where a build took tens of seconds. A Bevy
//! game has the new instance compile them ahead (`loader.prepare`), away
//! from its step.
//!
//! [`super::build`] stays the way to ship one self-contained component per
//! script (`host build`).

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use super::cache::BuildCache;
use super::extensions;
use super::tool::run_tool;
use super::{
    Additions, ENGINE_WIT, GameWit, Language, hash_script_wit, read_sources, script_world,
    tool_version, write_wit,
};
use game_host::LiveSources;
use game_host::guest::engine::API_VERSION;
use game_host::guest::{ENGINE_INTERFACES, LIVE_VERSION};
use game_host::hex::hex;
use game_host::sync::LockExt;
use game_host::{ScriptComponent, ScriptEngine};

/// The host-internal package the runtimes import and export beside
/// `game:engine`.
use game_host::LIVE_WIT;

/// The root package of a runtime's build: the script world plus `live`,
/// each at the version its package declares; for a game's scripts the
/// game's typed imports, and for scripts that import extensions theirs.
fn runtime_wit(additions: Additions<'_>) -> String {
    let includes = [
        format!("include game:engine/stateful-script@{API_VERSION};"),
        format!("include game:live/live@{LIVE_VERSION};"),
    ];
    script_world("game:live-runtime", RUNTIME_WORLD, &includes, additions)
}

/// The world a runtime is built for.
const RUNTIME_WORLD: &str = "live-script";

impl Language {
    /// The loader's file name in a runtime's build, and its text, with the
    /// versions of the packages it binds filled in (`{{engine-version}}`,
    /// `{{live-version}}`), and the interfaces: the engine's, `game`'s and
    /// the extensions'.
    fn loader(self, (game, extensions): Additions<'_>) -> (&'static str, String) {
        let (file, text) = match self {
            Language::Python => ("game_live_loader.py", include_str!("loaders/loader.py")),
            Language::JavaScript | Language::TypeScript => {
                ("loader.js", include_str!("loaders/loader.js"))
            }
        };
        // The interface lists, from the WIT the host was built with.
        let camel = |name: &str| {
            let mut parts = name.split('-');
            let first = parts.next().unwrap_or_default().to_owned();
            parts.fold(first, |mut out, part| {
                let mut chars = part.chars();
                if let Some(c) = chars.next() {
                    out.push(c.to_ascii_uppercase());
                    out.extend(chars);
                }
                out
            })
        };
        let bound = || ENGINE_INTERFACES.iter().filter(|(_, funcs)| *funcs);
        let mut imports: String = bound()
            .map(|(name, _)| {
                format!(
                    "import * as {} from \"game:engine/{name}@{{{{engine-version}}}}\";\n",
                    camel(name)
                )
            })
            .collect();
        let mut interfaces: String = ENGINE_INTERFACES
            .iter()
            .map(|(name, funcs)| {
                let value = if *funcs { camel(name) } else { "{}".to_owned() };
                format!("  \"game:engine/{name}\": {value},\n")
            })
            .collect();
        let mut modules: String = ENGINE_INTERFACES
            .iter()
            .map(|(name, _)| format!("    {},\n", name.replace('-', "_")))
            .collect();
        // The game's interfaces have names no engine interface has.
        for (game, name) in game
            .iter()
            .flat_map(|g| g.interfaces().into_iter().map(|i| (&g.name, i)))
        {
            imports.push_str(&format!(
                "import * as {} from \"{game}:game/{name}\";\n",
                camel(name)
            ));
            interfaces.push_str(&format!("  \"{game}:game/{name}\": {},\n", camel(name)));
            modules.push_str(&format!("    {},\n", name.replace('-', "_")));
        }
        // An extension's interfaces are bound by their package's name, so
        // they cannot clash with an engine interface's binding.
        for extension in extensions {
            for name in &extension.interfaces {
                let package = &extension.package;
                let binding = camel(&format!("{}-{name}", package.replace(':', "-")));
                imports.push_str(&format!(
                    "import * as {binding} from \"{package}/{name}@{}\";\n",
                    extension.version
                ));
                interfaces.push_str(&format!("  \"{package}/{name}\": {binding},\n"));
                modules.push_str(&format!("    {},\n", name.replace('-', "_")));
            }
        }
        let text = text
            .replace("{{engine-imports}}\n", &imports)
            .replace("{{engine-interfaces}}\n", &interfaces)
            .replace("{{engine-modules}}\n", &modules)
            .replace("{{engine-version}}", API_VERSION)
            .replace("{{live-version}}", LIVE_VERSION);
        (file, text)
    }
}

/// Loads the script whose entry file is `entry` as `name`, on its
/// language's runtime (built and compiled on first use; for a project made
/// for a game, the runtime of its game types; for a script that imports
/// extensions, one with theirs). Fails, with the language's
/// own error naming file and line, when its sources do not compile.
pub fn load(
    engine: &ScriptEngine,
    language: Language,
    entry: &Path,
    name: &str,
) -> Result<ScriptComponent> {
    let game = GameWit::of_project(entry)?;
    let sources = live_sources(language, entry)?;
    load_sources(engine, language, sources, name, game.as_ref())
}

/// [`load`] for sources already read (an engine's assets, say): the entry
/// module first, on the runtime of `game`'s types, or the engine's alone,
/// with the extensions the sources import.
pub fn load_sources(
    engine: &ScriptEngine,
    language: Language,
    sources: LiveSources,
    name: &str,
    game: Option<&GameWit>,
) -> Result<ScriptComponent> {
    // Refused before a runtime is built for it (tens of seconds).
    if let Some(game) = game
        && engine
            .game()
            .is_none_or(|running| running.name != game.name)
    {
        let runs = match engine.game() {
            Some(running) => format!("this host runs game `{}`", running.name),
            None => "this host runs no game description (`host run --game FILE`; in a Bevy \
                     game, `GameHostPlugin::game`)"
                .into(),
        };
        bail!(
            "failed to load {} script `{name}`: it was made for game `{}` (its `wit/game.wit`), \
             and {runs}",
            language.name(),
            game.name
        );
    }
    let sources = runnable(language, sources)
        .with_context(|| format!("failed to load {} script `{name}`", language.name()))?;
    let texts = sources.files.iter().map(|(_, text)| text.as_bytes());
    let extensions = extensions::used_by(language, texts);
    let runs_as = language.runs_as();
    let runtime = match (game, extensions.is_empty()) {
        (None, true) => runtime(engine, runs_as, (None, &[]))?,
        // The runtime is what the script's game types and extensions were
        // built into: a build for another description, or an extension the
        // engine lacks, is the script's own error.
        _ => runtime_of(engine, runs_as, (game, &extensions))
            .with_context(|| format!("failed to load {} script `{name}`", language.name()))?,
    };
    let component = runtime.with_live_sources(name, sources);
    let checked = component
        .check_live()
        .with_context(|| format!("the {} runtime failed", language.runs_as().name()))?;
    if let Some(error) = checked {
        let error = match error.contains('\n') {
            true => format!("\n{error}"),
            false => error,
        };
        bail!(
            "failed to load {} script `{name}`: {error}",
            language.name()
        );
    }
    Ok(component)
}

/// `sources` as the runtime runs them: a TypeScript script's with their
/// types erased (named in errors by their paths under the root).
fn runnable(language: Language, sources: LiveSources) -> Result<LiveSources> {
    if language == language.runs_as() {
        return Ok(sources);
    }
    let LiveSources { root, files } = sources;
    let files = files
        .into_iter()
        .map(|(path, text)| {
            let runnable = language.runnable(&format!("{root}/{path}"), &text)?;
            Ok((path, runnable.into_owned()))
        })
        .collect::<Result<_>>()?;
    Ok(LiveSources { root, files })
}

/// A script's sources as its runtime reads them: the entry module first,
/// then the others by path, each relative to the entry's directory.
pub fn live_sources(language: Language, entry: &Path) -> Result<LiveSources> {
    let root = super::script_dir(entry);
    let mut files = Vec::new();
    for (path, bytes) in read_sources(language, entry)? {
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let relative: Vec<_> = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect();
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("`{}` is not UTF-8 text", path.display()))?;
        let file = (relative.join("/"), text);
        match path == entry {
            true => files.insert(0, file),
            false => files.push(file),
        }
    }
    Ok(LiveSources {
        root: root.display().to_string(),
        files,
    })
}

/// The runtime component of `language` (with `game`'s types and the
/// extensions given), kept by `engine`: built (or read from the build
/// cache) and compiled on first use.
pub fn runtime(
    engine: &ScriptEngine,
    language: Language,
    additions: Additions<'_>,
) -> Result<ScriptComponent> {
    runtime_of(engine, language, additions)
        .with_context(|| format!("failed to load the {} runtime", language.name()))
}

fn runtime_of(
    engine: &ScriptEngine,
    language: Language,
    additions: Additions<'_>,
) -> Result<ScriptComponent> {
    // TypeScript runs on JavaScript's runtime.
    let language = language.runs_as();
    let version = known_tool_version(language)?;
    let key = runtime_key(language, &version, additions);
    let name = format!("{}-runtime", language.name().to_lowercase());
    engine.load_kept(&key, &name, || {
        build_runtime(language, &version, &key, additions, engine.cache_dir())
    })
}

/// The tool's version, asked once per process (asking takes a tool start:
/// a tenth of a second for componentize-py).
fn known_tool_version(language: Language) -> Result<String> {
    static KNOWN: Mutex<Vec<(Language, String)>> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock_unpoisoned();
    if let Some((_, version)) = known.iter().find(|(l, _)| *l == language) {
        return Ok(version.clone());
    }
    let version = tool_version(language)?;
    known.push((language, version.clone()));
    Ok(version)
}

/// SHA-256 over what a runtime is built from.
fn runtime_key(language: Language, version: &str, additions: Additions<'_>) -> String {
    let (_, loader) = language.loader(additions);
    let mut hash = Sha256::new();
    for part in [
        "runtime",
        language.name(),
        version,
        LIVE_WIT,
        &runtime_wit(additions),
        &loader,
    ] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash_script_wit(&mut hash, additions);
    hex(&hash.finalize())
}

/// Builds the runtime with the tool, through the build cache.
fn build_runtime(
    language: Language,
    version: &str,
    key: &str,
    additions: Additions<'_>,
    cache_dir: Option<&Path>,
) -> Result<Vec<u8>> {
    let (game, extensions) = additions;
    // One build at a time in a process: engines that want the same
    // runtime at once wait for the first and read it from the cache.
    static BUILDING: Mutex<()> = Mutex::new(());
    let _building = BUILDING.lock_unpoisoned();
    let cache = cache_dir.and_then(BuildCache::open);
    if let Some(bytes) = cache.as_ref().and_then(|cache| cache.get(key)) {
        return Ok(bytes);
    }
    let work = std::env::temp_dir().join(format!("game-host-runtime-{}", uuid::Uuid::now_v7()));
    let (file, text) = language.loader(additions);
    let loader = work.join("src").join(file);
    let runtime_wit = runtime_wit(additions);
    let game_files = game.map(|game| [("game.wit", game.text.as_str())]);
    let mut deps = vec![
        ("engine", ENGINE_WIT),
        ("live", &[("live.wit", LIVE_WIT)][..]),
    ];
    if let Some(files) = &game_files {
        deps.push(("game", files));
    }
    let names: Vec<String> = extensions.iter().map(|e| e.dep_name()).collect();
    for (name, extension) in names.iter().zip(extensions) {
        deps.push((name, extension.files));
    }
    let result = write_wit(&work, &[("main.wit", &runtime_wit)], &deps)
        .and_then(|()| {
            std::fs::create_dir_all(work.join("src"))
                .and_then(|()| std::fs::write(&loader, text))
                .context("failed to write the loader")
        })
        .and_then(|()| {
            let with: Vec<String> = (game.iter())
                .map(|game| format!("game `{}`'s types", game.name))
                .chain(
                    extensions
                        .iter()
                        .map(|e| format!("extension `{}`", e.package)),
                )
                .collect();
            let label = match with.is_empty() {
                true => format!(
                    "building the {} runtime (once per {version})",
                    language.name()
                ),
                false => format!(
                    "building the {} runtime with {} (once per {version} and what it adds)",
                    language.name(),
                    with.join(" and ")
                ),
            };
            let name = format!("{}-runtime", language.name().to_lowercase());
            run_tool(
                language,
                &loader,
                &loader,
                &name,
                label,
                RUNTIME_WORLD,
                &work,
            )
        });
    let _ = std::fs::remove_dir_all(&work);
    let bytes = result?;
    if let Some(cache) = cache {
        cache.put(key, &bytes);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_sources_put_the_entry_first_with_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("a.py"), "A = 1").unwrap();
        std::fs::write(dir.path().join("pkg/b.py"), "B = 2").unwrap();
        std::fs::write(dir.path().join("orbit.py"), "import a").unwrap();
        let sources = live_sources(Language::Python, &dir.path().join("orbit.py")).unwrap();
        assert_eq!(sources.root, dir.path().display().to_string());
        let paths: Vec<&str> = sources.files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["orbit.py", "a.py", "pkg/b.py"]);
        std::fs::write(dir.path().join("a.py"), [0xff, 0xfe]).unwrap();
        let error = live_sources(Language::Python, &dir.path().join("orbit.py")).unwrap_err();
        assert!(
            format!("{error}").contains("a.py` is not UTF-8 text"),
            "{error}"
        );
    }

    #[test]
    fn the_runtime_key_follows_the_tool_and_the_language() {
        let key = runtime_key(Language::Python, "componentize-py 0.25.1", (None, &[]));
        assert_eq!(
            key,
            runtime_key(Language::Python, "componentize-py 0.25.1", (None, &[]))
        );
        assert_ne!(
            key,
            runtime_key(Language::Python, "componentize-py 0.26.0", (None, &[]))
        );
        assert_ne!(
            key,
            runtime_key(Language::JavaScript, "componentize-py 0.25.1", (None, &[]))
        );
        let game = GameWit {
            name: "g".into(),
            text: "package g:game;\ninterface game-components {\n}\n".into(),
        };
        let with_game = runtime_key(
            Language::Python,
            "componentize-py 0.25.1",
            (Some(&game), &[]),
        );
        assert_ne!(key, with_game);
        let terrain = extensions::all();
        let with_terrain = runtime_key(
            Language::Python,
            "componentize-py 0.25.1",
            (None, &[&terrain[0]]),
        );
        assert_ne!(key, with_terrain);
        let (_, loader) = Language::JavaScript.loader((Some(&game), &[&terrain[0]]));
        assert!(
            loader.contains("\"g:game/game-components\": gameComponents,"),
            "{loader}"
        );
        assert!(
            loader
                .contains("import * as gameTerrainTerrain from \"game:terrain/terrain@0.1.0\";\n"),
            "{loader}"
        );
        assert!(
            loader.contains("\"game:terrain/terrain\": gameTerrainTerrain,"),
            "{loader}"
        );
        let (_, loader) = Language::Python.loader((None, &[&terrain[0]]));
        assert!(loader.contains("    terrain,\n"), "{loader}");
    }
}
