//! The host's extensions as a Python or JavaScript script meets them: each
//! one's WIT package (`crates/<extension>/wit/`, embedded by `build.rs`
//! with no extension named there), whose `imports` world a script is built
//! against when its sources import one of the package's interfaces:
//! Python's `from wit_world.imports import terrain`, JavaScript's
//! `from "game:terrain/terrain@0.1.0"`.
//!
//! Only then: componentize-py and componentize-js import every interface
//! of the world they build, and a host without the extension refuses a
//! component that imports it, naming the interface. A script that calls
//! no extension stays a plain script of `game:engine`, which any host
//! loads.

use std::sync::OnceLock;

use super::Language;
use crate::embedded::EXTENSION_WIT;

/// One extension's WIT package, read from its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionWit {
    /// The package, without its version (`game:terrain`).
    pub package: String,
    /// The package's version (`0.1.0`).
    pub version: String,
    /// The interfaces its world `imports` imports (`terrain`): what a
    /// script may import. Each is to declare functions, as terrain's does
    /// (the live runtimes bind them as modules).
    pub interfaces: Vec<String>,
    /// Its files: (file name, text).
    pub files: &'static [(&'static str, &'static str)],
}

impl ExtensionWit {
    /// Reads the package of `files`: `None` unless they declare a
    /// versioned package with a world `imports` (what a script includes).
    fn read(files: &'static [(&'static str, &'static str)]) -> Option<ExtensionWit> {
        let lines = || {
            files
                .iter()
                .flat_map(|(_, text)| text.lines().map(str::trim))
        };
        let declared = lines().find_map(|line| line.strip_prefix("package "))?;
        let (package, version) = declared.strip_suffix(';')?.trim().split_once('@')?;
        let world = lines().skip_while(|line| *line != "world imports {");
        let interfaces = (world.skip(1))
            .take_while(|line| *line != "}")
            .filter_map(|line| line.strip_prefix("import ")?.strip_suffix(';'))
            .map(|name| name.trim().to_owned())
            .collect::<Vec<_>>();
        if interfaces.is_empty() {
            return None;
        }
        Some(ExtensionWit {
            package: package.to_owned(),
            version: version.to_owned(),
            interfaces,
            files,
        })
    }

    /// The name of its directory among a build's WIT dependencies
    /// (`ext-game--terrain`: a WIT name has no `--`, so no two packages
    /// share one).
    pub(crate) fn dep_name(&self) -> String {
        format!("ext-{}", self.package.replace(':', "--"))
    }

    /// The line a script's world includes it with.
    pub(crate) fn include(&self) -> String {
        format!("include {}/imports@{};", self.package, self.version)
    }

    /// Whether `text`, one source of a script in `language`, imports one
    /// of its interfaces.
    fn imported_by(&self, language: Language, text: &str) -> bool {
        match language {
            Language::Python => {
                let imported = game_host::guest::engine::python_imports(text);
                self.interfaces.iter().any(|name| imported.contains(name))
            }
            // A specifier after `from` or `import`, not a comment's words.
            Language::JavaScript | Language::TypeScript => ['"', '\''].iter().any(|quote| {
                let specifier = format!("{quote}{}/", self.package);
                text.match_indices(&specifier).any(|(at, _)| {
                    let before = text[..at].trim_end();
                    before.ends_with("from") || before.ends_with("import")
                })
            }),
        }
    }
}

/// Every extension this host's builder knows, in a fixed order.
pub fn all() -> &'static [ExtensionWit] {
    static ALL: OnceLock<Vec<ExtensionWit>> = OnceLock::new();
    ALL.get_or_init(|| {
        EXTENSION_WIT
            .iter()
            .filter_map(|(_, files)| ExtensionWit::read(files))
            .collect()
    })
}

/// The extensions whose interfaces the sources (texts) of a `language`
/// script import.
pub fn used_by<'a>(
    language: Language,
    texts: impl Iterator<Item = &'a [u8]> + Clone,
) -> Vec<&'static ExtensionWit> {
    all()
        .iter()
        .filter(|extension| {
            texts
                .clone()
                .any(|text| extension.imported_by(language, &String::from_utf8_lossy(text)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terrain() -> &'static ExtensionWit {
        all()
            .iter()
            .find(|e| e.package == "game:terrain")
            .expect("the workspace's terrain extension is embedded")
    }

    #[test]
    fn every_embedded_extension_reads_as_a_package_with_its_interfaces() {
        assert_eq!(all().len(), EXTENSION_WIT.len());
        let terrain = terrain();
        assert_eq!(terrain.version, "0.1.0");
        assert_eq!(terrain.interfaces, ["terrain"]);
        assert_eq!(terrain.include(), "include game:terrain/imports@0.1.0;");
        assert_eq!(terrain.dep_name(), "ext-game--terrain");
    }

    #[test]
    fn a_script_uses_an_extension_only_when_it_imports_it() {
        let uses =
            |language, text: &str| !used_by(language, std::iter::once(text.as_bytes())).is_empty();
        let python = Language::Python;
        assert!(uses(python, "from wit_world.imports import log, terrain\n"));
        assert!(uses(
            python,
            "from wit_world.imports import (\n    scene,\n    terrain,\n)\n"
        ));
        assert!(uses(python, "import wit_world.imports.terrain as t\n"));
        assert!(!uses(
            python,
            "# terrain is generated on the host\nimport math\n"
        ));
        assert!(!uses(python, "from wit_world.imports import terrain_ish\n"));
        let js = Language::JavaScript;
        assert!(uses(
            js,
            "import { tileSize } from \"game:terrain/terrain@0.1.0\";"
        ));
        assert!(uses(js, "import * as t from 'game:terrain/terrain@0.1.0';"));
        assert!(!uses(
            js,
            "// terrain tiles\nimport { log } from \"game:engine/log@0.2.6\";"
        ));
        assert!(!uses(
            js,
            "// like \"game:terrain/terrain@0.1.0\"\nexport function f() {}"
        ));
    }
}
