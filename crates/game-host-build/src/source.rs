//! [`ScriptSource`]: where a script comes from (a component file, a script
//! crate directory, or a Python or JavaScript script), and the one way to
//! turn it into a script name and component bytes, used by the CLI and by
//! hot-swap alike.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::cargo_build::{BuildOutput, build_script_crate, build_script_crate_for_debugger};
use crate::componentize::{self, Language};
use crate::needs::{embed, read_needs};
use game_host::files::{MAX_COMPONENT_FILE, MAX_TEXT_FILE, read_capped};
use game_host::guest::engine::{ScriptComponent, ScriptEngine, script_name};
use game_host::hex::hex;

/// A script given by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptSource {
    /// A component file (`.wasm`).
    File(PathBuf),
    /// A script crate directory, built with cargo.
    Crate(PathBuf),
    /// A Python, JavaScript or TypeScript script: its entry file (`app.py`,
    /// `app.js`, `app.ts`, or any such file given by path), built with
    /// componentize-py or componentize-js.
    Foreign(Language, PathBuf),
}

impl ScriptSource {
    /// A `.py`, `.js` or `.ts` file is a Python, JavaScript or TypeScript
    /// script; a directory is a crate if it holds `Cargo.toml`, else such a
    /// script if it holds `app.py`, `app.js` or `app.ts`; anything else is a
    /// component file. Fails if nothing is at `path`.
    pub fn new(path: &Path) -> Result<Self> {
        if path.is_dir() {
            if !path.join("Cargo.toml").is_file() {
                for language in [Language::Python, Language::JavaScript, Language::TypeScript] {
                    let entry = path.join(language.entry_file());
                    if entry.is_file() {
                        return Ok(ScriptSource::Foreign(language, entry));
                    }
                }
            }
            Ok(ScriptSource::Crate(path.to_owned()))
        } else if path.exists() {
            Ok(match Language::of(path) {
                Some(language) => ScriptSource::Foreign(language, path.to_owned()),
                None => ScriptSource::File(path.to_owned()),
            })
        } else {
            bail!("script `{}` not found", path.display())
        }
    }

    /// The file or directory.
    pub fn path(&self) -> &Path {
        match self {
            ScriptSource::File(path)
            | ScriptSource::Crate(path)
            | ScriptSource::Foreign(_, path) => path,
        }
    }

    /// The directories to watch for changes to this source, each with
    /// whether to watch below it.
    pub fn watch_dirs(&self) -> Vec<(PathBuf, bool)> {
        let parent = |path: &Path| path.parent().unwrap_or(Path::new("/")).to_owned();
        match self {
            // Watch the directory: builds often replace the file by renaming.
            ScriptSource::File(file) => vec![(parent(file), false)],
            ScriptSource::Crate(dir) => {
                let mut dirs = vec![(dir.join("src"), true), (dir.clone(), false)];
                dirs.extend(game_types_dir(dir));
                dirs
            }
            ScriptSource::Foreign(language, entry) => {
                let mut dirs = vec![(parent(entry), *language == Language::Python)];
                dirs.extend(game_types_dir(&parent(entry)));
                dirs
            }
        }
    }

    /// Whether a change at `changed` concerns this source: the file itself,
    /// a crate's `src/`, `Cargo.toml` or `build.rs`, a Python script's
    /// modules or a JavaScript script's module, and a project's game types
    /// (`wit/game.wit`).
    pub fn is_touched_by(&self, changed: &Path) -> bool {
        match self {
            ScriptSource::File(file) => changed == file,
            ScriptSource::Crate(dir) => {
                changed.starts_with(dir.join("src"))
                    || changed == dir.join("Cargo.toml")
                    || changed == dir.join("build.rs")
                    || changed == componentize::project_game_wit(dir)
            }
            ScriptSource::Foreign(language, entry) => {
                language.is_source(entry, changed) || changed == componentize::game_wit_path(entry)
            }
        }
    }

    /// The script's name: a component's file stem, a crate's library name,
    /// a Python or JavaScript file's stem, or for an `app.py` / `app.js`
    /// the name of its directory.
    pub fn name(&self) -> String {
        match self {
            ScriptSource::Foreign(language, entry)
                if entry
                    .file_name()
                    .is_some_and(|n| n == language.entry_file()) =>
            {
                entry
                    .canonicalize()
                    .ok()
                    .and_then(|e| Some(e.parent()?.file_name()?.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| script_name(entry))
            }
            other => script_name(other.path()),
        }
    }

    /// A fingerprint of the source's content: equal fingerprints build
    /// equal components, so a watcher event that changed nothing (cargo
    /// opening `Cargo.toml`, a save without edits) starts no build. For a
    /// crate: `Cargo.toml`, `build.rs` and everything under `src/`; for a
    /// Python or JavaScript script its modules; for a file its bytes.
    /// `None` if they cannot be read (then the source is built, and the
    /// build says why).
    pub fn fingerprint(&self) -> Option<String> {
        match self {
            ScriptSource::Foreign(language, entry) => {
                componentize::fingerprint(*language, entry).ok()
            }
            ScriptSource::Crate(dir) => crate_fingerprint(dir).ok(),
            ScriptSource::File(file) => {
                let bytes = read_capped(file, MAX_COMPONENT_FILE).ok()?;
                Some(hex(&Sha256::digest(&bytes)))
            }
        }
    }

    /// What the script declares it needs ([`crate::needs`]): a crate in its
    /// `Cargo.toml`, a Python script in `pyproject.toml`, a JavaScript one
    /// in `package.json` beside it; a component file carries its own.
    pub fn declared_needs(&self) -> Result<Option<game_host::GrantSpec>> {
        match self {
            ScriptSource::File(_) => Ok(None),
            ScriptSource::Crate(dir) => read_needs(
                &dir.join("Cargo.toml"),
                &["package", "metadata", "game", "needs"],
            ),
            ScriptSource::Foreign(language, entry) => {
                let dir = entry.parent().unwrap_or(Path::new("."));
                match language {
                    Language::Python => {
                        read_needs(&dir.join("pyproject.toml"), &["tool", "game", "needs"])
                    }
                    Language::JavaScript | Language::TypeScript => {
                        read_needs(&dir.join("package.json"), &["game", "needs"])
                    }
                }
            }
        }
    }

    /// Builds the source if it is a crate, a Python or a JavaScript script,
    /// and reads the component: returns the script's name and its bytes, a
    /// self-contained component (what `host build` writes to ship).
    /// Python and JavaScript builds are cached under `cache_dir`.
    pub fn build(
        &self,
        output: BuildOutput,
        cache_dir: Option<&Path>,
    ) -> Result<(String, Vec<u8>)> {
        self.build_as(output, cache_dir, false)
    }

    /// [`ScriptSource::build`]; a crate with debug info and without
    /// optimisation when `for_debugger`.
    fn build_as(
        &self,
        output: BuildOutput,
        cache_dir: Option<&Path>,
        for_debugger: bool,
    ) -> Result<(String, Vec<u8>)> {
        let needs = self.declared_needs()?;
        let file = match self {
            ScriptSource::File(file) => file.clone(),
            ScriptSource::Crate(dir) if for_debugger => {
                build_script_crate_for_debugger(dir, output)?
            }
            ScriptSource::Crate(dir) => build_script_crate(dir, output)?,
            ScriptSource::Foreign(language, entry) => {
                let name = self.name();
                let bytes = componentize::build(*language, entry, &name, cache_dir)
                    .with_context(|| format!("cannot build script `{}`", entry.display()))?;
                return Ok((name, with_needs(bytes, needs.as_ref())));
            }
        };
        let bytes = read_capped(&file, MAX_COMPONENT_FILE)
            .with_context(|| format!("failed to read script `{}`", file.display()))?;
        Ok((script_name(&file), with_needs(bytes, needs.as_ref())))
    }

    /// Loads the source into `engine` for a native debugger: a crate is
    /// built with debug info and without optimisation (cargo's dev
    /// profile); anything else loads as [`ScriptSource::load`] does.
    pub fn load_for_debugger(
        &self,
        engine: &ScriptEngine,
        output: BuildOutput,
    ) -> Result<ScriptComponent> {
        match self {
            ScriptSource::Crate(_) => self.load_built(engine, output, true),
            _ => self.load(engine, output),
        }
    }

    /// Loads the source into `engine`: a Python or JavaScript script on its
    /// language's runtime (the live path: no build), anything else built
    /// (if a crate) and compiled.
    pub fn load(&self, engine: &ScriptEngine, output: BuildOutput) -> Result<ScriptComponent> {
        if let ScriptSource::Foreign(language, entry) = self {
            let needs = self.declared_needs()?;
            return componentize::load_live(engine, *language, entry, &self.name())
                .map(|script| script.with_source(self.path()).with_needs(needs));
        }
        self.load_built(engine, output, false)
    }

    /// Builds the source (see [`ScriptSource::build_as`]) and compiles it.
    fn load_built(
        &self,
        engine: &ScriptEngine,
        output: BuildOutput,
        for_debugger: bool,
    ) -> Result<ScriptComponent> {
        let (name, bytes) = self.build_as(output, engine.cache_dir(), for_debugger)?;
        // What was built (or read from a `.wasm` file) is kept by its
        // digest, so a replay of a recording of it loads it without
        // building anything or opening the path the recording names.
        if let Some(cache) = engine.cache_dir() {
            game_host::record::kept::keep(cache, &bytes);
        }
        engine
            .load_bytes(&name, &bytes)
            .map(|script| script.with_source(self.path()))
            .with_context(|| format!("failed to load script `{}`", self.path().display()))
    }
}

/// `bytes`, with `needs` embedded if the script declares any.
fn with_needs(bytes: Vec<u8>, needs: Option<&game_host::GrantSpec>) -> Vec<u8> {
    match needs {
        Some(needs) => embed(bytes, needs),
        None => bytes,
    }
}

/// SHA-256 over a crate's manifest, build script, game types
/// (`wit/game.wit`) and `src/` tree (paths and contents, in a fixed order;
/// hidden entries left out).
fn crate_fingerprint(dir: &Path) -> Result<String> {
    let mut files = vec![dir.join("Cargo.toml")];
    let game_wit = componentize::project_game_wit(dir);
    for file in [dir.join("build.rs"), game_wit] {
        if file.is_file() {
            files.push(file);
        }
    }
    let mut pending = vec![dir.join("src")];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder)
            .with_context(|| format!("failed to list `{}`", folder.display()))?;
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        let text = read_capped(&file, MAX_TEXT_FILE)
            .with_context(|| format!("failed to read `{}`", file.display()))?;
        let name = file.strip_prefix(dir).unwrap_or(&file).to_string_lossy();
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name.as_bytes());
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(&text);
    }
    Ok(hex(&hash.finalize()))
}

/// The directory of a project's game types (`wit/`), to watch when the
/// project has one.
fn game_types_dir(project: &Path) -> Option<(PathBuf, bool)> {
    let wit = project.join("wit");
    wit.is_dir().then_some((wit, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_told_apart_by_what_is_at_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let py = dir.path().join("orbiter");
        std::fs::create_dir(&py).unwrap();
        std::fs::write(py.join("app.py"), "").unwrap();
        let js = dir.path().join("mover.js");
        std::fs::write(&js, "").unwrap();
        let wasm = dir.path().join("cube.wasm");
        std::fs::write(&wasm, "").unwrap();

        let source = ScriptSource::new(&py).unwrap();
        assert_eq!(
            source,
            ScriptSource::Foreign(Language::Python, py.join("app.py"))
        );
        assert_eq!(source.name(), "orbiter");
        assert_eq!(source.watch_dirs(), [(py.clone(), true)]);
        let source = ScriptSource::new(&js).unwrap();
        assert_eq!(
            source,
            ScriptSource::Foreign(Language::JavaScript, js.clone())
        );
        assert_eq!(source.name(), "mover");
        assert_eq!(ScriptSource::new(&wasm).unwrap(), ScriptSource::File(wasm));
        assert_eq!(
            ScriptSource::new(dir.path()).unwrap(),
            ScriptSource::Crate(dir.path().to_owned())
        );
        assert!(ScriptSource::new(&dir.path().join("missing.py")).is_err());
    }

    #[test]
    fn a_crate_fingerprint_follows_its_sources_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]").unwrap();
        std::fs::create_dir_all(dir.path().join("src/nested")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}").unwrap();
        let source = ScriptSource::new(dir.path()).unwrap();
        let before = source.fingerprint().unwrap();
        // Opening, re-saving the same text, or writing beside the sources
        // (Cargo.lock, target/) changes nothing.
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}").unwrap();
        std::fs::write(dir.path().join("Cargo.lock"), "# lock").unwrap();
        std::fs::create_dir(dir.path().join("target")).unwrap();
        assert_eq!(source.fingerprint().unwrap(), before);
        std::fs::write(dir.path().join("src/nested/mod.rs"), "").unwrap();
        let with_module = source.fingerprint().unwrap();
        assert_ne!(with_module, before);
        std::fs::write(dir.path().join("src/lib.rs"), "fn b() {}").unwrap();
        let edited = source.fingerprint().unwrap();
        assert_ne!(edited, with_module);
        // The game's types its bindings read (`host check --game`).
        std::fs::create_dir(dir.path().join("wit")).unwrap();
        std::fs::write(dir.path().join("wit/game.wit"), "package g:game;").unwrap();
        assert_ne!(source.fingerprint().unwrap(), edited);
        assert!(source.is_touched_by(&dir.path().join("wit/game.wit")));
    }
}
