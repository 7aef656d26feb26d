//! TypeScript scripts: their types erased where they stand, so the
//! JavaScript that runs has every line and column of the `.ts` file.
//!
//! A TypeScript script runs as the JavaScript left when its types are
//! taken out, on the JavaScript runtime (`live`) or built by
//! componentize-js (`host build`). The types are taken out in Rust, with
//! swc's type stripper, the one Node.js runs `.ts` files with: each
//! annotation, `interface`, `type` and `import type` is overwritten with
//! spaces (line breaks kept), nothing else is touched. So a runtime error's
//! line and column, and a syntax error's, are the `.ts` file's own, with
//! no source map to carry or apply.
//!
//! What would need code written for it (an `enum`, a `namespace`, a
//! constructor's parameter properties, `<T>expr`) is refused with the
//! file, line and column and what to write instead, as Node refuses it.

use anyhow::{Result, bail};
use std::sync::{Arc, Mutex};

use swc_common::errors::{DiagnosticBuilder, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{GLOBALS, Globals, SourceMap, Span};
use swc_ts_fast_strip::{Mode, Options};

/// The stripper, as the build cache keys a TypeScript build by it (the
/// version `Cargo.toml` pins).
pub(super) const STRIPPER: &str = "swc_ts_fast_strip 60.0.0";

/// The most errors one message lists.
const MAX_ERRORS: usize = 5;

/// The JavaScript of the TypeScript module `text` (named `path` in
/// errors): the same text with its types blanked out. Fails, naming
/// `path`, line and column, on a syntax error and on TypeScript that
/// erasing cannot turn into JavaScript.
pub fn strip(path: &str, text: &str) -> Result<String> {
    let found = Found::default();
    let map: Lrc<SourceMap> = Default::default();
    let handler = Handler::with_emitter(
        false,
        false,
        Box::new(Collect {
            found: found.clone(),
        }),
    );
    let options = Options {
        module: Some(true),
        filename: Some(path.to_owned()),
        mode: Mode::StripOnly,
        ..Default::default()
    };
    let stripped = GLOBALS.set(&Globals::new(), || {
        swc_ts_fast_strip::operate(&map, &handler, text.to_owned(), options)
    });
    let found = std::mem::take(&mut *found.lock().unwrap_or_else(|p| p.into_inner()));
    match stripped {
        Ok(output) if found.is_empty() => Ok(output.code),
        outcome => {
            let mut lines: Vec<String> = found
                .iter()
                .take(MAX_ERRORS)
                .map(|(message, span)| match span {
                    Some(span) => {
                        let at = map.lookup_char_pos(span.lo);
                        format!("{path}:{}:{}: {message}", at.line, at.col.0 + 1)
                    }
                    None => format!("{path}: {message}"),
                })
                .collect();
            if found.len() > MAX_ERRORS {
                lines.push(format!("... and {} more", found.len() - MAX_ERRORS));
            }
            if lines.is_empty() {
                let why = outcome.err().map(|e| e.message).unwrap_or_default();
                lines.push(format!("{path}: {why}"));
            }
            match lines.len() {
                1 => bail!("{}", lines[0]),
                _ => bail!("\n{}", lines.join("\n")),
            }
        }
    }
}

/// Each diagnostic's message and where it points, as swc emits them.
type Found = Arc<Mutex<Vec<(String, Option<Span>)>>>;

/// Keeps each diagnostic's message and where it points.
struct Collect {
    found: Found,
}

impl Emitter for Collect {
    fn emit(&mut self, diagnostic: &mut DiagnosticBuilder<'_>) {
        let message = diagnostic.message();
        let span = diagnostic.span.primary_span();
        let mut found = self.found.lock().unwrap_or_else(|p| p.into_inner());
        found.push((message, span));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_become_spaces_and_every_line_stays() {
        let source = "import type { FrameClock } from \"game:engine/runtime@0.2.0\";\n\
                      import { log } from \"game:engine/log@0.2.0\";\n\
                      interface Moon {\n  angle: number;\n}\n\
                      let speed: number = 1.5;\n\
                      export function onUpdate(clock: FrameClock): void {\n\
                      \x20 log(\"info\", String(speed as number));\n}\n";
        let js = strip("app.ts", source).unwrap();
        assert_eq!(js.lines().count(), source.lines().count(), "{js}");
        for (ts, js) in source.lines().zip(js.lines()) {
            assert_eq!(ts.len(), js.len(), "{ts:?} became {js:?}");
        }
        assert!(js.contains("import { log } from \"game:engine/log@0.2.0\";"));
        assert!(js.contains("let speed         = 1.5;"), "{js}");
        assert!(
            js.contains("export function onUpdate(clock            )"),
            "{js}"
        );
        assert!(
            !js.contains("FrameClock") && !js.contains("interface"),
            "{js}"
        );
    }

    #[test]
    fn the_stripper_named_in_build_keys_is_the_one_pinned() {
        let manifest = include_str!("../../Cargo.toml");
        let (name, version) = STRIPPER.split_once(' ').unwrap();
        assert!(
            manifest.contains(&format!("{name} = \"={version}\"")),
            "{STRIPPER}"
        );
    }

    #[test]
    fn what_erasing_cannot_do_is_refused_with_its_place() {
        let error = strip("mods/app.ts", "let a = 1;\n\nenum Dir { Up, Down }\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "mods/app.ts:3:1: TypeScript enum is not supported in strip-only mode"
        );
        let error = strip("app.ts", "let a: number = ;\n").unwrap_err();
        assert!(error.to_string().starts_with("app.ts:1:"), "{error}");
        // Columns count characters, a tab as one, as editors and tsc do.
        let error = strip("app.ts", "function f() {\n\tenum E { A }\n}\n").unwrap_err();
        assert!(error.to_string().starts_with("app.ts:2:2: "), "{error}");
    }
}
