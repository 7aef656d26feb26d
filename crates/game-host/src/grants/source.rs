//! [`ScriptOrigin`]: where a script came from, and how a grant table's
//! key (`[source."mods/**"]`, `[source."sha256:HEX"]`) is checked and
//! matched against it.

use std::path::{Component, Path};

/// A table key that names a component by its digest starts so.
pub(super) const SHA256: &str = "sha256:";

/// The entry files that stand for their project's folder (what `host new`
/// writes in each language).
const PROJECT_ENTRIES: [&str; 3] = ["app.py", "app.js", "app.ts"];

/// Where a script came from, as grant tables match it.
#[derive(Debug, Clone, Copy)]
pub struct ScriptOrigin<'a> {
    /// The file or directory it was loaded from, absolute (`None`: built
    /// in, or given as bytes).
    pub path: Option<&'a Path>,
    /// SHA-256 of its component's bytes, in hex.
    pub sha256: &'a str,
}

/// Checks table key `key` (named `at` in errors): a digest of 64 hex
/// digits, or a path pattern without `..`.
pub(super) fn check_key(key: &str, at: &str) -> Result<(), String> {
    match key.strip_prefix(SHA256) {
        Some(hex) if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) => Err(
            format!("{at}: `{hex}` is not a SHA-256 digest (64 hex digits)"),
        ),
        Some(_) => Ok(()),
        None if Path::new(key)
            .components()
            .any(|part| part == Component::ParentDir) =>
        {
            Err(format!(
                "{at}: a path pattern may not hold `..` (name the folder itself, relative to \
                 the grants file or absolute)"
            ))
        }
        None => glob::Pattern::new(key)
            .map(drop)
            .map_err(|error| format!("{at}: not a path pattern: {error}")),
    }
}

/// Whether table key `key` (a digest or a path pattern) matches `origin`.
pub(super) fn matches(key: &str, origin: ScriptOrigin<'_>) -> bool {
    if let Some(hex) = key.strip_prefix(SHA256) {
        return hex.eq_ignore_ascii_case(origin.sha256);
    }
    let Some(path) = origin.path else {
        return false;
    };
    // A relative pattern is relative to the working directory (a world's
    // grants; a grants file's are made absolute when it is read).
    let pattern = if Path::new(key).is_absolute() {
        glob::Pattern::new(key).ok()
    } else {
        std::env::current_dir().ok().and_then(|dir| {
            let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
            let dir = glob::Pattern::escape(&dir.display().to_string());
            glob::Pattern::new(&format!("{dir}/{key}")).ok()
        })
    };
    let Some(pattern) = pattern else {
        return false;
    };
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    // A Python, JavaScript or TypeScript project is named by its entry
    // file: its folder matches too.
    let project = path
        .file_name()
        .is_some_and(|name| PROJECT_ENTRIES.iter().any(|entry| name == *entry))
        .then(|| path.parent())
        .flatten();
    pattern.matches_path_with(path, options)
        || project.is_some_and(|folder| pattern.matches_path_with(folder, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_folder_matches_its_entry_file_in_each_language() {
        for entry in ["app.py", "app.js", "app.ts"] {
            let path = format!("/game/mods/orbiter/{entry}");
            let origin = ScriptOrigin {
                path: Some(Path::new(&path)),
                sha256: "",
            };
            assert!(matches("/game/mods/orbiter", origin), "{entry}");
            assert!(matches("/game/mods/*", origin), "{entry}");
            assert!(!matches("/game/other/*", origin), "{entry}");
        }
        let other = ScriptOrigin {
            path: Some(Path::new("/game/mods/orbiter/util.ts")),
            sha256: "",
        };
        assert!(!matches("/game/mods/orbiter", other));
    }
}
