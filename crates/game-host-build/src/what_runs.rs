//! What building a script crate runs on this machine, found before it
//! builds ([`runs_at_build`]): the build scripts (`build.rs`) and proc
//! macros of the crate and of its dependencies, as `cargo metadata`
//! resolves them (nothing of the crate runs to find them). What the SDK
//! the host ships brings (wit-bindgen, serde, ...) is told apart from what
//! the crate adds, so that a modder sees at a glance what a downloaded mod
//! would run beyond what every script runs.
//!
//! A package counts as the SDK's only where it is the host's own SDK (the
//! crate `host new` points at), or reached from it and taken from
//! crates.io: a crate that patches one of the SDK's dependencies with a
//! crate of its own (`[patch]`) has that crate named.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::toolchain::cargo;

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    resolve: Option<Resolve>,
}

#[derive(Deserialize)]
struct Package {
    id: String,
    name: String,
    /// `None` for a path dependency.
    source: Option<String>,
    manifest_path: PathBuf,
    targets: Vec<Target>,
}

#[derive(Deserialize)]
struct Target {
    kind: Vec<String>,
}

#[derive(Deserialize)]
struct Resolve {
    nodes: Vec<Node>,
}

#[derive(Deserialize)]
struct Node {
    id: String,
    #[serde(default)]
    dependencies: Vec<String>,
}

/// What building a crate runs on this machine, by crate name.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunsAtBuild {
    /// Crates beyond the SDK's whose build script (`build.rs`) runs.
    pub build_scripts: Vec<String>,
    /// Proc-macro crates beyond the SDK's (they run inside the compiler).
    pub proc_macros: Vec<String>,
    /// How many of the SDK's crates run a build script or are proc macros.
    pub from_sdk: usize,
}

impl RunsAtBuild {
    /// One line for the person about to build or check `dir`.
    pub fn line(&self, dir: &Path) -> String {
        let sdk = match self.from_sdk {
            0 => String::new(),
            n => format!(" ({n} of the SDK's crates run build code too, as for every script)"),
        };
        if self.build_scripts.is_empty() && self.proc_macros.is_empty() {
            return format!(
                "building `{}` runs no build script or proc macro of its own or of its \
                 dependencies{sdk}",
                dir.display()
            );
        }
        let list = |what: &str, names: &[String]| {
            (!names.is_empty()).then(|| format!("{what} of {}", names.join(", ")))
        };
        let parts: Vec<String> = [
            list("the build scripts", &self.build_scripts),
            list("the proc macros", &self.proc_macros),
        ]
        .into_iter()
        .flatten()
        .collect();
        format!(
            "building `{}` runs code of its own or of its dependencies on this machine, as any \
             Rust build does: {}{sdk}",
            dir.display(),
            parts.join("; ")
        )
    }
}

/// What building the crate of `manifest` may run (its dependencies for
/// every platform); `sdk` is the manifest of the SDK the host ships, whose own dependencies
/// are counted apart.
pub fn runs_at_build(manifest: &Path, sdk: Option<&Path>) -> Result<RunsAtBuild> {
    // Every platform's dependencies: a build script's or a proc macro's
    // run on this machine's, not the script target's, so a filter to either
    // would leave some out (naming too many is safe; too few is not).
    let output = cargo()
        .args(["metadata", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(manifest)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("failed to run `cargo metadata` (is Rust installed and on PATH?)")?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        anyhow::bail!(
            "`cargo metadata` failed: {}",
            stderr
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or(stderr.trim())
        );
    }
    let metadata: Metadata =
        serde_json::from_slice(&output.stdout).context("`cargo metadata` printed no metadata")?;
    Ok(summarise(&metadata, sdk))
}

/// Whether a package comes from crates.io.
fn from_crates_io(package: &Package) -> bool {
    package.source.as_deref().is_some_and(|source| {
        source == "registry+https://github.com/rust-lang/crates.io-index"
            || source == "sparse+https://index.crates.io/"
    })
}

fn summarise(metadata: &Metadata, sdk: Option<&Path>) -> RunsAtBuild {
    let nodes: HashMap<&str, &Node> = match &metadata.resolve {
        Some(resolve) => resolve.nodes.iter().map(|n| (n.id.as_str(), n)).collect(),
        None => HashMap::new(),
    };
    let packages: HashMap<&str, &Package> = metadata
        .packages
        .iter()
        .map(|p| (p.id.as_str(), p))
        .collect();
    // The SDK's packages: the SDK itself, and what it reaches from
    // crates.io.
    let mut sdk_side: HashSet<&str> = HashSet::new();
    let mut todo: Vec<&str> = metadata
        .packages
        .iter()
        .filter(|p| sdk.is_some_and(|sdk| p.manifest_path == sdk))
        .map(|p| p.id.as_str())
        .collect();
    while let Some(id) = todo.pop() {
        if !sdk_side.insert(id) {
            continue;
        }
        for dependency in nodes.get(id).map_or(&[][..], |n| &n.dependencies) {
            if packages
                .get(dependency.as_str())
                .is_some_and(|p| from_crates_io(p))
            {
                todo.push(dependency);
            }
        }
    }
    let mut runs = RunsAtBuild::default();
    for package in &metadata.packages {
        // Only what the build resolves (`packages` may list more).
        if !nodes.is_empty() && !nodes.contains_key(package.id.as_str()) {
            continue;
        }
        let has = |kind: &str| {
            package
                .targets
                .iter()
                .any(|t| t.kind.iter().any(|k| k == kind))
        };
        let (build, proc_macro) = (has("custom-build"), has("proc-macro"));
        if !(build || proc_macro) {
            continue;
        }
        if sdk_side.contains(package.id.as_str()) {
            runs.from_sdk += 1;
            continue;
        }
        if build {
            runs.build_scripts.push(package.name.clone());
        }
        if proc_macro {
            runs.proc_macros.push(package.name.clone());
        }
    }
    for names in [&mut runs.build_scripts, &mut runs.proc_macros] {
        names.sort();
        names.dedup();
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

    /// Metadata of `packages` (id, name, source, manifest, target kind) and
    /// the dependency `edges` between them.
    fn metadata(
        packages: &[(&str, &str, Option<&str>, &str, &str)],
        edges: &[(&str, &str)],
    ) -> Metadata {
        Metadata {
            packages: packages
                .iter()
                .map(|(id, name, source, manifest, kind)| Package {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    source: source.map(str::to_owned),
                    manifest_path: PathBuf::from(manifest),
                    targets: vec![Target {
                        kind: vec![(*kind).to_owned()],
                    }],
                })
                .collect(),
            resolve: Some(Resolve {
                nodes: packages
                    .iter()
                    .map(|(id, ..)| Node {
                        id: (*id).to_owned(),
                        dependencies: edges
                            .iter()
                            .filter(|(from, _)| from == id)
                            .map(|(_, to)| (*to).to_owned())
                            .collect(),
                    })
                    .collect(),
            }),
        }
    }

    #[test]
    fn what_the_sdk_brings_is_counted_apart_from_what_the_mod_adds() {
        let sdk = Path::new("/data/sdk/script/Cargo.toml");
        let graph = metadata(
            &[
                (
                    "mod",
                    "my-mod",
                    None,
                    "/mods/my-mod/Cargo.toml",
                    "custom-build",
                ),
                (
                    "script",
                    "script",
                    None,
                    "/data/sdk/script/Cargo.toml",
                    "lib",
                ),
                (
                    "wb",
                    "wit-bindgen-rust-macro",
                    Some(CRATES_IO),
                    "/r/wb/Cargo.toml",
                    "proc-macro",
                ),
                (
                    "pm2",
                    "proc-macro2",
                    Some(CRATES_IO),
                    "/r/pm2/Cargo.toml",
                    "custom-build",
                ),
                (
                    "own",
                    "derive-mine",
                    Some(CRATES_IO),
                    "/r/own/Cargo.toml",
                    "proc-macro",
                ),
                // The mod patches one of the SDK's dependencies with its own.
                (
                    "patched",
                    "quote",
                    None,
                    "/mods/my-mod/quote/Cargo.toml",
                    "custom-build",
                ),
            ],
            &[
                ("mod", "script"),
                ("mod", "own"),
                ("script", "wb"),
                ("wb", "pm2"),
                ("wb", "patched"),
            ],
        );
        let runs = summarise(&graph, Some(sdk));
        assert_eq!(runs.build_scripts, ["my-mod", "quote"]);
        assert_eq!(runs.proc_macros, ["derive-mine"]);
        assert_eq!(runs.from_sdk, 2);
        let line = runs.line(Path::new("mods/my-mod"));
        assert!(
            line.contains(
                "the build scripts of my-mod, quote; the proc macros of derive-mine (2 of the \
                 SDK's crates"
            ),
            "{line}"
        );
        // Without the host's SDK, every crate is named.
        let runs = summarise(&graph, None);
        assert_eq!(runs.from_sdk, 0);
        assert_eq!(runs.proc_macros, ["derive-mine", "wit-bindgen-rust-macro"]);
        // A mod of the SDK alone adds nothing.
        let lean = metadata(
            &[
                ("mod", "my-mod", None, "/mods/my-mod/Cargo.toml", "cdylib"),
                (
                    "script",
                    "script",
                    None,
                    "/data/sdk/script/Cargo.toml",
                    "lib",
                ),
                (
                    "wb",
                    "wit-bindgen-rust-macro",
                    Some(CRATES_IO),
                    "/r/wb/Cargo.toml",
                    "proc-macro",
                ),
            ],
            &[("mod", "script"), ("script", "wb")],
        );
        let line = summarise(&lean, Some(sdk)).line(Path::new("my-mod"));
        assert!(
            line.starts_with("building `my-mod` runs no build script or proc macro of its own"),
            "{line}"
        );
    }
}
