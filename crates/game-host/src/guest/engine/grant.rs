//! Giving a component its grants: what it imports (by grant name), what it
//! declares it needs (the `game:needs` custom section `host build`
//! embeds), and, for a live script's runtime, the interfaces it is not
//! granted linked to functions that trap naming the grant.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use wasmparser::{Chunk, Parser, Payload};
use wasmtime::Engine;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker};

use crate::game_types::{COMPONENTS, RESOURCES};
use crate::grants::{GrantSpec, INTERFACES};
use crate::guest::{LiveSources, ScriptState};

/// The custom section in which `host build` embeds what a script declares
/// it needs: a [`GrantSpec`] as JSON.
pub const NEEDS_SECTION: &str = "game:needs";

/// Most bytes of a `game:needs` section the host reads.
const MAX_NEEDS: usize = 64 << 10;

/// One interface a component imports that grants cover: its import name
/// (`game:engine/events@0.2.2`) and its grant name (`events`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    pub name: String,
    pub grant: String,
}

/// The grant name of import `name`: `events` for `game:engine/events@0.2.2`,
/// `game:terrain/terrain` for an extension's; `None` for WASI and the
/// host's own `game:live`, which grants do not cover.
pub(crate) fn grant_name(name: &str) -> Option<String> {
    let unversioned = name.split('@').next().unwrap_or(name);
    if unversioned.starts_with("wasi:") || unversioned.starts_with("game:live/") {
        return None;
    }
    Some(match unversioned.strip_prefix("game:engine/") {
        Some(interface) => interface.to_owned(),
        None => unversioned.to_owned(),
    })
}

/// The interfaces `component` imports that declare functions (those that
/// declare only types, such as `types`, are always granted).
pub(crate) fn imports_of(component: &Component, engine: &Engine) -> Vec<Import> {
    component
        .component_type()
        .imports(engine)
        .filter_map(|(name, item)| {
            let grant = grant_name(name)?;
            let has_functions = match &item.ty {
                ComponentItem::ComponentInstance(instance) => instance
                    .exports(engine)
                    .any(|(_, item)| matches!(item.ty, ComponentItem::ComponentFunc(_))),
                ComponentItem::ComponentFunc(_) => true,
                _ => false,
            };
            has_functions.then(|| Import {
                name: name.to_owned(),
                grant,
            })
        })
        .collect()
}

/// The `game:engine` interfaces a live script's sources import, by grant
/// name: Python's `from wit_world.imports import events` (or
/// `wit_world.imports.events`), JavaScript's `"game:engine/events@..."`;
/// and the game's typed interfaces Python imports, by interface name
/// (`game-components`).
/// A static reading for the check at load; what a script reaches otherwise
/// traps at its call.
pub(crate) fn live_imports(sources: &LiveSources) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, text) in &sources.files {
        for (at, _) in text.match_indices("game:engine/") {
            names.insert(word(&text[at + "game:engine/".len()..]));
        }
        names.extend(python_imports(text));
    }
    // A game's typed interfaces (`game_components`) keep their own names:
    // the caller knows which game's they are.
    names.retain(|name| {
        INTERFACES.contains(&name.as_str()) || GAME_INTERFACES.contains(&name.as_str())
    });
    names
}

/// The interfaces a Python source imports from its world's bindings, by
/// interface name (`game-data` for `game_data`): `from wit_world.imports
/// import events, scene` (also in parentheses over several lines) and
/// `import wit_world.imports.events`. A static reading: what a script
/// reaches another way is not seen.
pub fn python_imports(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices("wit_world.imports") {
        // Not in a comment.
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if text[line_start..at].contains('#') {
            continue;
        }
        let rest = &text[at + "wit_world.imports".len()..];
        if let Some(module) = rest.strip_prefix('.') {
            names.insert(word(module));
        } else if let Some(list) = rest.trim_start().strip_prefix("import") {
            let list = list.trim_start();
            let list = match list.strip_prefix('(') {
                Some(inner) => inner.split(')').next().unwrap_or_default().to_owned(),
                // A line ending in `\` goes on on the next.
                None => {
                    let mut joined = String::new();
                    for line in list.lines() {
                        match line.trim_end().strip_suffix('\\') {
                            Some(part) => joined.push_str(part),
                            None => {
                                joined.push_str(line);
                                break;
                            }
                        }
                    }
                    joined
                }
            };
            let code = list
                .lines()
                .map(|line| line.split('#').next().unwrap_or_default());
            for item in code.flat_map(|line| line.split(',')) {
                let item = item.split_whitespace().next().unwrap_or_default();
                names.insert(word(item));
            }
        }
    }
    names.remove("");
    names
}

/// A game's typed interfaces, as a live script's imports name them.
const GAME_INTERFACES: [&str; 2] = [COMPONENTS, RESOURCES];

/// The interface name at the start of `text`, Python's `game_data` spelled
/// `game-data`.
fn word(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect::<String>()
        .replace('_', "-")
}

/// What the component declares it needs, from its top-level `game:needs`
/// section; `None` when it declares nothing. A section that is not a
/// valid [`GrantSpec`] fails the load, naming it.
pub(crate) fn needs_of(bytes: &[u8]) -> Result<Option<GrantSpec>> {
    let mut parser = Parser::new(0);
    let mut at = 0usize;
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        let (consumed, payload) = match parser.parse(rest, true) {
            Ok(Chunk::Parsed { consumed, payload }) => (consumed, payload),
            // A component wasmtime compiled is whole: stop reading, as for
            // an error, and let what compiled run without declared needs.
            Ok(Chunk::NeedMoreData(_)) | Err(_) => return Ok(None),
        };
        at += consumed;
        match payload {
            Payload::CustomSection(section) if section.name() == NEEDS_SECTION => {
                if section.data().len() > MAX_NEEDS {
                    bail!("its `{NEEDS_SECTION}` section is larger than {MAX_NEEDS} bytes");
                }
                let needs: GrantSpec = serde_json::from_slice(section.data())
                    .with_context(|| format!("its `{NEEDS_SECTION}` section is not valid"))?;
                needs
                    .check("its needs:")
                    .map_err(|error| anyhow::anyhow!(error))?;
                return Ok(Some(needs));
            }
            // Nested modules and components are not read: skip their bytes.
            Payload::ModuleSection {
                unchecked_range, ..
            }
            | Payload::ComponentSection {
                unchecked_range, ..
            } => {
                at = usize::try_from(unchecked_range.end).unwrap_or(usize::MAX);
            }
            Payload::CodeSectionStart { size, .. } => {
                parser.skip_section();
                at = at.saturating_add(size as usize);
            }
            Payload::End(_) => return Ok(None),
            _ => {}
        }
    }
}

/// `linker`, with every function of the interfaces in `denied` (imports of
/// `component`) replaced by one that traps naming `script` and the
/// interface: what a live script's runtime, which imports everything, gets
/// for the interfaces its grants leave out.
pub(crate) fn deny(
    linker: &Linker<ScriptState>,
    component: &Component,
    engine: &Engine,
    denied: &[Import],
    script: &str,
) -> Result<Linker<ScriptState>> {
    let mut linker = linker.clone();
    linker.allow_shadowing(true);
    let ty = component.component_type();
    for import in denied {
        let Some(item) = ty.get_import(engine, &import.name) else {
            continue;
        };
        let ComponentItem::ComponentInstance(instance) = item.ty else {
            continue;
        };
        let mut namespace = linker.instance(&import.name)?;
        for (function, item) in instance.exports(engine) {
            if !matches!(item.ty, ComponentItem::ComponentFunc(_)) {
                continue;
            }
            let message = format!(
                "grants: script `{script}` may not use `{}` (`{function}`): its grants' \
                 imports leave it out",
                import.grant
            );
            namespace.func_new(function, move |_, _, _, _| {
                Err(wasmtime::format_err!("{message}"))
            })?;
        }
    }
    Ok(linker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_names_become_grant_names() {
        assert_eq!(
            grant_name("game:engine/events@0.2.2").as_deref(),
            Some("events")
        );
        assert_eq!(
            grant_name("game:engine/game-data@0.2.1").as_deref(),
            Some("game-data")
        );
        assert_eq!(
            grant_name("game:terrain/terrain@0.1.0").as_deref(),
            Some("game:terrain/terrain")
        );
        assert_eq!(grant_name("wasi:cli/stdout@0.2.6"), None);
        assert_eq!(grant_name("game:live/sources@0.2.0"), None);
    }

    #[test]
    fn live_sources_name_what_they_import() {
        let python = LiveSources {
            root: "mod".into(),
            files: vec![(
                "app.py".into(),
                "import wit_world\nfrom wit_world.imports import events, log as l, runtime\n\
                 from wit_world.imports.game_data import Value\n\
                 from wit_world.imports import (\n  scene,\n  types)\n"
                    .into(),
            )],
        };
        let names: Vec<String> = live_imports(&python).into_iter().collect();
        assert_eq!(names, ["events", "game-data", "log", "runtime", "scene"]);
        let js = LiveSources {
            root: "mod".into(),
            files: vec![(
                "app.js".into(),
                r#"import { send } from "game:engine/events@0.2.2";
                   import { log } from 'game:engine/log@0.2.2';
                   import { Vec3 } from "game:engine/types@0.2.2";"#
                    .into(),
            )],
        };
        let names: Vec<String> = live_imports(&js).into_iter().collect();
        assert_eq!(names, ["events", "log"]);
    }

    #[test]
    fn python_imports_read_past_comments_and_continued_lines() {
        let text = "from wit_world.imports import (log,  # the host log\n    terrain)\n\
                    from wit_world.imports import scene, \\\n    motion\n\
                    # from wit_world.imports import events\n\
                    x = 1  # not wit_world.imports.players\n";
        let names: Vec<String> = python_imports(text).into_iter().collect();
        assert_eq!(names, ["log", "motion", "scene", "terrain"]);
    }

    #[test]
    fn a_needs_section_is_read_and_checked() {
        let mut component = b"\0asm\x0d\0\x01\0".to_vec();
        let body = br#"{"imports": ["scene", "log"], "writes": ["cube"]}"#;
        let name = NEEDS_SECTION.as_bytes();
        let size = 1 + name.len() + body.len();
        component.extend([0, size as u8, name.len() as u8]);
        component.extend(name);
        component.extend(body);
        let needs = needs_of(&component).unwrap().unwrap();
        assert_eq!(needs.writes, Some(vec!["cube".to_owned()]));
        assert_eq!(needs_of(b"\0asm\x0d\0\x01\0").unwrap(), None);
        let bad = br#"{"imports": ["nope"]}"#;
        let mut broken = b"\0asm\x0d\0\x01\0".to_vec();
        broken.extend([0, (1 + name.len() + bad.len()) as u8, name.len() as u8]);
        broken.extend(name);
        broken.extend(bad);
        let error = format!("{:#}", needs_of(&broken).unwrap_err());
        assert!(error.contains("`nope` is no interface"), "{error}");
    }
}
