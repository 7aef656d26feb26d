//! A script's browser form, as `host build --predictor` writes it and
//! `host serve --predictor` serves it: a directory of jco's module and
//! core WebAssembly files, and a [`Manifest`] naming the component they
//! were made from by its digest. [`PredictorFiles::read`] reads one back,
//! trusting nothing in it (names, counts and sizes bounded).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::files::read_capped;

/// The manifest's file name, in a predictor's directory.
pub const MANIFEST: &str = "predictor.json";

/// The module the client library imports, in a predictor's directory.
pub const MODULE: &str = "predictor.js";

/// Files a predictor may have besides its manifest, at most.
const MAX_FILES: usize = 16;

/// Bytes of all of a predictor's files, at most (a Rust script's is about
/// half a MB). Within what a fleet's node relays in one answer (16 MiB),
/// so a page reaches any file of it through any node.
const MAX_BYTES: u64 = 16 << 20;

/// Bytes of a predictor's manifest, at most.
const MAX_MANIFEST: u64 = 64 << 10;

/// A predictor's manifest: what it was built from, and its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The world it was checked against: `game:engine/predictor@VERSION`.
    pub world: String,
    /// The script's name.
    pub script: String,
    /// SHA-256 of the component it was made from (hex).
    pub sha256: String,
    /// The module to import ([`MODULE`]).
    pub module: String,
    /// Every file of it, the module first.
    pub files: Vec<String>,
}

/// A predictor read into memory: its manifest and each file's bytes.
#[derive(Debug, Clone)]
pub struct PredictorFiles {
    pub manifest: Manifest,
    files: Arc<HashMap<String, Arc<[u8]>>>,
}

impl PredictorFiles {
    /// Reads the predictor in `dir`: its manifest, and the files it lists
    /// (plain names, at most [`MAX_FILES`] of at most [`MAX_BYTES`] in
    /// all), each of which must be there.
    pub fn read(dir: &Path) -> Result<PredictorFiles> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            bail!(
                "no predictor in `{}` (no {MANIFEST}: `host build SCRIPT --predictor` writes one)",
                dir.display()
            );
        }
        let text = read_capped(&path, MAX_MANIFEST)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .with_context(|| format!("`{}` is not a predictor's manifest", path.display()))?;
        if manifest.files.len() > MAX_FILES {
            bail!(
                "`{}` lists {} files (at most {MAX_FILES})",
                path.display(),
                manifest.files.len()
            );
        }
        if !manifest.files.contains(&manifest.module) {
            bail!(
                "`{}` does not list its module `{}`",
                path.display(),
                manifest.module
            );
        }
        if !manifest.world.starts_with("game:engine/predictor@") {
            bail!(
                "`{}` is of world `{}`, not `game:engine/predictor`",
                path.display(),
                manifest.world
            );
        }
        let mut files = HashMap::new();
        let mut total = text.len() as u64;
        for name in &manifest.files {
            if !plain_name(name) {
                bail!(
                    "`{}` lists `{name}`, not a file's plain name",
                    path.display()
                );
            }
            let file = dir.join(name);
            if !file.exists() {
                bail!("the predictor's `{}` is missing", file.display());
            }
            // Read within what is left of the bound, however it changes.
            let bytes = read_capped(&file, MAX_BYTES - total).with_context(|| {
                format!(
                    "the predictor in `{}` is over {} MiB",
                    dir.display(),
                    MAX_BYTES >> 20
                )
            })?;
            total += bytes.len() as u64;
            files.insert(name.clone(), Arc::from(bytes));
        }
        Ok(PredictorFiles {
            manifest,
            files: Arc::new(files),
        })
    }

    /// File `name`, if the manifest lists it.
    pub fn file(&self, name: &str) -> Option<Arc<[u8]>> {
        self.files.get(name).cloned()
    }

    /// File `name` as a world of frame rate `hz` serves it to its players:
    /// the manifest with `hz` added (the rate a browser makes its commands
    /// at, one a frame, which the predictor's clock then counts), the rest
    /// as read.
    pub fn served(&self, name: &str, hz: f64) -> Option<Arc<[u8]>> {
        if name != MANIFEST {
            return self.file(name);
        }
        let mut manifest = serde_json::to_value(&self.manifest).ok()?;
        manifest["hz"] = hz.into();
        Some(Arc::from(manifest.to_string().into_bytes()))
    }
}

/// Whether `name` names a file in the directory itself: no separators,
/// nothing hidden, not empty.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, manifest: &serde_json::Value, files: &[(&str, &[u8])]) {
        std::fs::write(dir.join(MANIFEST), manifest.to_string()).unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }

    #[test]
    fn reads_what_its_manifest_lists_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = serde_json::json!({"world": "game:engine/predictor@0.2.6",
            "script": "dash", "sha256": "ab", "module": "predictor.js",
            "files": ["predictor.js", "predictor.core.wasm"]});
        write(
            dir.path(),
            &manifest,
            &[
                ("predictor.js", b"export {}"),
                ("predictor.core.wasm", b"\0asm"),
                ("secret", b"x"),
            ],
        );
        let read = PredictorFiles::read(dir.path()).unwrap();
        assert_eq!(read.manifest.script, "dash");
        assert_eq!(&*read.file("predictor.js").unwrap(), b"export {}");
        assert!(read.file("secret").is_none());
        // Served, the manifest says the world's rate; the rest as read.
        let served: serde_json::Value =
            serde_json::from_slice(&read.served(MANIFEST, 30.0).unwrap()).unwrap();
        assert_eq!(served["hz"], 30.0);
        assert_eq!(served["sha256"], "ab");
        assert_eq!(read.served("predictor.js", 30.0), read.file("predictor.js"));
        assert!(read.served("secret", 30.0).is_none());

        let error = |manifest: serde_json::Value| {
            write(dir.path(), &manifest, &[]);
            format!("{:#}", PredictorFiles::read(dir.path()).unwrap_err())
        };
        let mut escaping = manifest.clone();
        escaping["files"] = serde_json::json!(["predictor.js", "../../etc/passwd"]);
        assert!(error(escaping).contains("not a file's plain name"));
        let mut missing = manifest.clone();
        missing["files"] = serde_json::json!(["predictor.js", "gone.wasm"]);
        assert!(error(missing).contains("gone.wasm` is missing"));
        let mut extra = manifest.clone();
        extra["served"] = serde_json::json!(true);
        assert!(error(extra).contains("not a predictor's manifest"));
        let empty = tempfile::tempdir().unwrap();
        let none = format!("{:#}", PredictorFiles::read(empty.path()).unwrap_err());
        assert!(none.contains("host build SCRIPT --predictor"), "{none}");
    }
}
