//! [`Language`]: the languages the host builds scripts from, what each
//! calls its files and its tool, and the tool versions the project is
//! tested with.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::Result;

/// The tool versions the project is tested with (and README and the book install).
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";
/// See [`COMPONENTIZE_PY_VERSION`].
pub const COMPONENTIZE_JS_VERSION: &str = "0.23.0";

/// A language the host can build scripts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Python, built with componentize-py.
    Python,
    /// JavaScript (an ES module), built with componentize-js.
    JavaScript,
    /// TypeScript (an ES module), run as the JavaScript its types are
    /// erased to ([`super::typescript`]).
    TypeScript,
}

impl Language {
    /// The language of a source file, by its extension.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" => Some(Language::Python),
            "js" | "mjs" => Some(Language::JavaScript),
            "ts" | "mts" => Some(Language::TypeScript),
            _ => None,
        }
    }

    /// The entry file a script directory holds in this language.
    pub fn entry_file(self) -> &'static str {
        match self {
            Language::Python => "app.py",
            Language::JavaScript => "app.js",
            Language::TypeScript => "app.ts",
        }
    }

    /// The language's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
        }
    }

    pub(crate) fn tool(self) -> &'static str {
        match self {
            Language::Python => "componentize-py",
            Language::JavaScript | Language::TypeScript => "componentize-js",
        }
    }

    pub(crate) fn install_hint(self) -> String {
        match self {
            Language::Python => format!("pip install componentize-py=={COMPONENTIZE_PY_VERSION}"),
            Language::JavaScript | Language::TypeScript => format!(
                "npm install -g @bytecodealliance/componentize-js@{COMPONENTIZE_JS_VERSION}"
            ),
        }
    }

    /// Whether a change at `changed` is to a source of a script whose entry
    /// file is `entry`: for Python any module beside it (or below it, out
    /// of `__pycache__` and hidden directories such as the editor types'),
    /// for JavaScript and TypeScript the one module itself.
    pub fn is_source(self, entry: &Path, changed: &Path) -> bool {
        match self {
            Language::Python => {
                let dir = entry.parent().unwrap_or(Path::new("."));
                let below = changed.strip_prefix(dir).ok();
                below.is_some_and(|below| {
                    below.components().all(|c| {
                        let name = c.as_os_str().to_string_lossy();
                        name != "__pycache__" && !name.starts_with('.')
                    })
                }) && changed.extension().is_some_and(|e| e == "py")
            }
            Language::JavaScript | Language::TypeScript => changed == entry,
        }
    }

    /// The language whose runtime and tool run the script: JavaScript for
    /// TypeScript, whose types are erased first.
    pub(crate) fn runs_as(self) -> Language {
        match self {
            Language::TypeScript => Language::JavaScript,
            language => language,
        }
    }

    /// The text the script's runtime and tool are given for the source
    /// file `path`: a TypeScript module's with its types erased (every line
    /// and column kept), any other as it is.
    pub(crate) fn runnable<'a>(self, path: &str, text: &'a str) -> Result<Cow<'a, str>> {
        match self {
            Language::TypeScript => Ok(Cow::Owned(super::typescript::strip(path, text)?)),
            _ => Ok(Cow::Borrowed(text)),
        }
    }

    /// The world to build for: `stateful-script` if the source defines the
    /// state hand-over, else `script`.
    pub(super) fn world(self, sources: &[(PathBuf, Vec<u8>)]) -> &'static str {
        let marker: &[u8] = match self {
            Language::Python => b"def save_state",
            Language::JavaScript | Language::TypeScript => b"saveState",
        };
        let stateful = sources
            .iter()
            .any(|(_, text)| text.windows(marker.len()).any(|w| w == marker));
        if stateful {
            "stateful-script"
        } else {
            "script"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_come_from_extensions() {
        assert_eq!(Language::of(Path::new("a/app.py")), Some(Language::Python));
        assert_eq!(
            Language::of(Path::new("app.mjs")),
            Some(Language::JavaScript)
        );
        assert_eq!(
            Language::of(Path::new("a/app.ts")),
            Some(Language::TypeScript)
        );
        assert_eq!(Language::TypeScript.runs_as(), Language::JavaScript);
        assert_eq!(Language::of(Path::new("cube.wasm")), None);
    }

    #[test]
    fn the_world_follows_the_state_exports() {
        let plain = vec![(
            PathBuf::from("app.py"),
            b"def on_update(self, clock): pass".to_vec(),
        )];
        assert_eq!(Language::Python.world(&plain), "script");
        let stateful = vec![(
            PathBuf::from("app.js"),
            b"export function saveState() {}".to_vec(),
        )];
        assert_eq!(Language::JavaScript.world(&stateful), "stateful-script");
    }

    #[test]
    fn python_sources_are_modules_outside_bytecode_caches() {
        let entry = Path::new("/s/app.py");
        assert!(Language::Python.is_source(entry, Path::new("/s/util.py")));
        assert!(Language::Python.is_source(entry, Path::new("/s/pkg/mod.py")));
        assert!(!Language::Python.is_source(entry, Path::new("/s/__pycache__/x.py")));
        let stubs = Path::new("/s/.types.new-x/wit_world/__init__.py");
        assert!(!Language::Python.is_source(entry, stubs));
        assert!(!Language::Python.is_source(entry, Path::new("/s/notes.txt")));
        assert!(!Language::Python.is_source(entry, Path::new("/t/app.py")));
        assert!(Language::JavaScript.is_source(Path::new("/s/app.js"), Path::new("/s/app.js")));
        assert!(!Language::JavaScript.is_source(Path::new("/s/app.js"), Path::new("/s/x.js")));
    }
}
