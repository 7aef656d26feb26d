//! Scripts written against `game:engine` 0.1: Python and JavaScript
//! sources are bound to the newest API when they are built or run live, so
//! a 0.1 source gets one line naming what to change, instead of an error
//! from deep inside the tool or the interpreter. (A component built against
//! 0.1 loads unchanged: the host links 0.1, see `game_host::guest::v0_1`.)

use std::path::{Path, PathBuf};

use game_host::guest::engine::API_VERSION;

use super::language::Language;

/// Why `sources` cannot run on the newest API, if they are written against
/// 0.1: one line naming the file and what to change.
pub(super) fn old_api(language: Language, sources: &[(PathBuf, Vec<u8>)]) -> Option<String> {
    sources.iter().find_map(|(path, text)| {
        let text = String::from_utf8_lossy(text);
        match language {
            Language::Python => text.contains("def on_message(").then(|| python(path)),
            Language::JavaScript | Language::TypeScript => imports_0_1(&text)
                .map(|spec| javascript(path, spec))
                .or_else(|| exports_on_message(&text).then(|| javascript(path, "onMessage"))),
        }
    })
}

fn python(path: &Path) -> String {
    format!(
        "`{}` is a game:engine 0.1 script (it defines `on_message(id)`): in \
         {API_VERSION}, `runtime.subscribe_update()` takes no id and the host calls \
         `on_update(self, clock)` every frame and `on_wake(self, clock, wakes)` with \
         completed waits (the book: A script in Python or JavaScript)",
        path.display()
    )
}

fn javascript(path: &Path, what: &str) -> String {
    format!(
        "`{}` is a game:engine 0.1 script (`{what}`): import \"game:engine/...@{API_VERSION}\" \
         and export `onUpdate(clock)` (every frame after `subscribeUpdate()`) and \
         `onWake(clock, wakes)` instead of `onMessage(id)` (the book: A script in Python or JavaScript)",
        path.display()
    )
}

/// A JavaScript source's imports of an older compatible release (same
/// major and minor, `game:engine/log@0.2.0` under 0.2.1) bound to the
/// newest, [`API_VERSION`]: componentize-js resolves an import only at the
/// exact version of the WIT it builds against, where a 0.2.0 source is
/// valid 0.2.1. Other text is kept as it is.
pub(super) fn javascript_at_newest(text: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(text) else {
        return text.to_vec();
    };
    let (newest_minor, newest_patch) = API_VERSION.rsplit_once('.').expect("x.y.z");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("game:engine/") {
        let spec = &rest[at..];
        let end = spec.find(['"', '\'']).unwrap_or(spec.len());
        let (head, version) = spec[..end].split_once('@').unwrap_or((&spec[..end], ""));
        let older = version.rsplit_once('.').is_some_and(|(minor, patch)| {
            let newest = newest_patch.parse::<u32>().ok();
            minor == newest_minor && patch.parse::<u32>().is_ok_and(|p| Some(p) < newest)
        });
        out.push_str(&rest[..at]);
        match older {
            true => {
                out.push_str(head);
                out.push('@');
                out.push_str(API_VERSION);
            }
            false => out.push_str(&spec[..end]),
        }
        rest = &spec[end..];
    }
    out.push_str(rest);
    out.into_bytes()
}

/// The first `game:engine/...@0.1.x` import specifier in `text`.
fn imports_0_1(text: &str) -> Option<&str> {
    text.match_indices("game:engine/").find_map(|(at, _)| {
        let spec = &text[at..];
        let end = spec.find(['"', '\'']).unwrap_or(spec.len());
        let spec = &spec[..end];
        spec.split_once('@')
            .is_some_and(|(_, version)| version.starts_with("0.1."))
            .then_some(spec)
    })
}

/// Whether `text` exports a function named `onMessage`.
fn exports_on_message(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("export") && line.contains("function onMessage(")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(text: &str) -> Vec<(PathBuf, Vec<u8>)> {
        vec![(PathBuf::from("app"), text.as_bytes().to_vec())]
    }

    #[test]
    fn a_0_1_source_is_named_with_what_to_change() {
        let py = old_api(
            Language::Python,
            &sources("class WitWorld:\n    def on_message(self, id):\n        pass\n"),
        )
        .unwrap();
        assert!(py.contains("`app` is a game:engine 0.1 script"), "{py}");
        assert!(py.contains("on_update(self, clock)"), "{py}");
        let js = old_api(
            Language::JavaScript,
            &sources("import { log } from \"game:engine/log@0.1.5\";\n"),
        )
        .unwrap();
        assert!(js.contains("(`game:engine/log@0.1.5`)"), "{js}");
        assert!(!js.contains('\n'), "one line: {js}");
        let js = old_api(
            Language::JavaScript,
            &sources("export function onMessage(id) {}\n"),
        )
        .unwrap();
        assert!(js.contains("(`onMessage`)"), "{js}");
    }

    #[test]
    fn a_source_of_the_newest_api_passes() {
        let js = format!(
            "import {{ log }} from \"game:engine/log@{API_VERSION}\";\n\
             export function onUpdate(clock) {{}}\n"
        );
        assert_eq!(old_api(Language::JavaScript, &sources(&js)), None);
        let py = "class WitWorld:\n    def on_update(self, clock):\n        pass\n";
        assert_eq!(old_api(Language::Python, &sources(py)), None);
    }

    #[test]
    fn older_compatible_javascript_imports_are_bound_to_the_newest() {
        let (minor, patch) = API_VERSION.rsplit_once('.').unwrap();
        let newest: u32 = patch.parse().unwrap();
        if newest == 0 {
            return; // no older patch release of this minor
        }
        let old = format!(
            "import {{ log }} from \"game:engine/log@{minor}.{}\";\n",
            newest - 1
        );
        let bound = String::from_utf8(javascript_at_newest(old.as_bytes())).unwrap();
        assert_eq!(
            bound,
            format!("import {{ log }} from \"game:engine/log@{API_VERSION}\";\n")
        );
        // The newest, 0.1 (refused elsewhere, with its own message) and
        // anything else stay as written.
        for kept in [
            format!("import {{ log }} from 'game:engine/log@{API_VERSION}';"),
            "import { log } from \"game:engine/log@0.1.5\";".to_owned(),
            "const s = \"game:engine/\"; // game:engine/x".to_owned(),
            "import { log } from \"game:engine/log@0.2.x\";".to_owned(),
        ] {
            assert_eq!(javascript_at_newest(kept.as_bytes()), kept.as_bytes());
        }
    }
}
