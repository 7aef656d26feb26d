//! The type checker's settings a script project carries
//! (`project/templates/`): `pyrightconfig.json` for Python (the stubs'
//! directory, the Python componentize-py runs), `jsconfig.json` for
//! JavaScript (`checkJs` over the module and the declarations) and
//! `tsconfig.json` for TypeScript (only syntax that erasing types leaves
//! as JavaScript). Written once; an author's own settings are kept.

use std::path::Path;

use anyhow::{Context, Result};

use crate::componentize::Language;
use crate::project::ProjectLanguage;

/// The settings file a new project of `language` gets: (name, text).
pub fn config_file(language: Language) -> (&'static str, &'static str) {
    let language = match language {
        Language::Python => ProjectLanguage::Python,
        Language::JavaScript => ProjectLanguage::JavaScript,
        Language::TypeScript => ProjectLanguage::TypeScript,
    };
    crate::project::config_file(language).expect("Python, JavaScript and TypeScript have settings")
}

/// The name of the settings file the checker reads in `dir`: the author's
/// own if there is one (`pyrightconfig.json` or a `[tool.pyright]` table in
/// `pyproject.toml`; `tsconfig.json` or `jsconfig.json`), else the one
/// [`config_file`] gives, written now. `None` for pyproject's table, which
/// pyright finds itself.
pub(crate) fn ensure_config(language: Language, dir: &Path) -> Result<Option<&'static str>> {
    let (name, text) = config_file(language);
    match language {
        Language::Python => {
            let pyproject = std::fs::read_to_string(dir.join("pyproject.toml"));
            let table = pyproject
                .ok()
                .and_then(|text| text.parse::<toml::Table>().ok());
            let pyright = table
                .as_ref()
                .and_then(|t| t.get("tool")?.get("pyright"))
                .is_some();
            if pyright {
                return Ok(None);
            }
        }
        Language::JavaScript | Language::TypeScript => {
            if dir.join("tsconfig.json").is_file() {
                return Ok(Some("tsconfig.json"));
            }
        }
    }
    let path = dir.join(name);
    if !path.is_file() {
        std::fs::write(&path, text)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
    }
    Ok(Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authors_own_settings_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tsconfig.json"), "{}").unwrap();
        let used = ensure_config(Language::JavaScript, dir.path()).unwrap();
        assert_eq!(used, Some("tsconfig.json"));
        assert!(!dir.path().join("jsconfig.json").exists());

        std::fs::write(dir.path().join("pyproject.toml"), "# [tool.pyright]\n").unwrap();
        ensure_config(Language::Python, dir.path()).unwrap();
        assert!(dir.path().join("pyrightconfig.json").is_file());
        std::fs::remove_file(dir.path().join("pyrightconfig.json")).unwrap();
        std::fs::write(dir.path().join("pyproject.toml"), "[tool.pyright]\n").unwrap();
        assert_eq!(ensure_config(Language::Python, dir.path()).unwrap(), None);
        assert!(!dir.path().join("pyrightconfig.json").exists());
    }

    #[test]
    fn settings_are_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let name = ensure_config(Language::Python, dir.path())
            .unwrap()
            .unwrap();
        let path = dir.path().join(name);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            config_file(Language::Python).1
        );
        std::fs::write(&path, "{ \"strict\": [\".\"] }").unwrap();
        ensure_config(Language::Python, dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{ \"strict\": [\".\"] }"
        );
    }
}
