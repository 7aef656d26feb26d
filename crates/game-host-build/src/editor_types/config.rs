//! The type checker's settings a script project carries: `pyrightconfig.json`
//! for Python (the stubs' directory, the Python componentize-py runs) and
//! `jsconfig.json` for JavaScript (`checkJs` over the module and the
//! declarations). Written once; an author's own settings are kept.

use std::path::Path;

use anyhow::{Context, Result};

use crate::componentize::Language;

/// pyright's settings: the stubs under `.types/`, Python 3.14 (the one
/// componentize-py 0.25 embeds); the stubs have no module source beside
/// them, which is not the script's mistake.
const PYRIGHT_CONFIG: &str = r#"{
  // Editor types: the game engine's API as stubs in .types/, written by
  // `host new` with componentize-py and refreshed by `host build` and
  // `host check` when the host's API changes.
  "stubPath": ".types",
  "pythonVersion": "3.14",
  "reportMissingModuleSource": "none"
}
"#;

/// TypeScript's settings for a JavaScript script: checked, not emitted,
/// with null checks; a parameter without a type is allowed (`any`), one
/// with a JSDoc type is held to it.
const JS_CONFIG: &str = r#"{
  // Editor types: the game engine's API as declarations in .types/, written
  // by `host new` with jco and refreshed by `host build` and `host check`
  // when the host's API changes. `tsc -p jsconfig.json` checks the script.
  "compilerOptions": {
    "allowJs": true,
    "checkJs": true,
    "noEmit": true,
    "strict": true,
    "noImplicitAny": false,
    "target": "es2022",
    "module": "esnext",
    "moduleResolution": "bundler",
    "lib": ["es2022"],
    "types": []
  },
  "include": ["*.js", "*.mjs", ".types/**/*.d.ts"]
}
"#;

/// The settings file a new project of `language` gets: (name, text).
pub fn config_file(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::Python => ("pyrightconfig.json", PYRIGHT_CONFIG),
        Language::JavaScript => ("jsconfig.json", JS_CONFIG),
    }
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
            if pyproject.is_ok_and(|text| text.contains("[tool.pyright]")) {
                return Ok(None);
            }
        }
        Language::JavaScript => {
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
        assert_eq!(std::fs::read_to_string(&path).unwrap(), PYRIGHT_CONFIG);
        std::fs::write(&path, "{ \"strict\": [\".\"] }").unwrap();
        ensure_config(Language::Python, dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{ \"strict\": [\".\"] }"
        );
    }
}
