//! The layering inside each crate, checked: in every folder of modules (a
//! crate's `src`, and each folder with a `mod.rs`), the modules and the
//! folder's own file (`lib.rs` or `mod.rs`, "the parent") form no cycle.
//! (Between crates, cargo refuses cycles itself, and the core cannot name
//! the terrain extension or anything else above it: it does not depend on
//! them.)
//!
//! Edges come from the source text outside `#[cfg(test)]` code, as a
//! reviewer reading `use` lines would draw them:
//! - a module names a sibling through the folder's path (`crate::NAME`,
//!   `crate::runtime::NAME`) or, in its own file, through `super::NAME`;
//! - a module names the parent when such a name is not a sibling: an item
//!   the parent defines. A name the parent only re-exports (`pub use
//!   child::Name`) leads to the child that defines it;
//! - the parent names a child when its code (not its `mod` lines, its
//!   `pub use` index or its comments) uses a path through the child.
//!
//! So a parent that defines what its children build on, and also uses what
//! they define, is a cycle; one that is only an index, or only a base, is
//! not. The binary's `main.rs` is left out (it holds `mod cli;` alone).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The workspace's crates that the checks cover: where their modules are
/// (relative to the workspace root) and how they name each other there.
/// The CLI's modules sit under `cli/`; a binary's root is its `main.rs`.
const CRATES: &[(&str, &str)] = &[
    ("crates/game-host/src", "crate::"),
    ("crates/game-host-render/src", "crate::"),
    ("crates/game-host-server/src", "crate::"),
    ("crates/game-host-fleet/src", "crate::"),
    ("crates/game-host-build/src", "crate::"),
    ("crates/game-host-terrain/src", "crate::"),
    ("crates/game-host-bevy/src", "crate::"),
    ("examples/bevy-game/src", "crate::"),
    ("host/src/cli", "crate::cli::"),
    ("script/src", "crate::"),
];

/// Every folder of modules under a crate's `src` (relative to the workspace
/// root): the folder, its parent file, and the path its modules are named
/// by from anywhere in the crate (`crate::runtime::`).
fn folders() -> Vec<(PathBuf, &'static str, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for &(dir, prefix) in CRATES {
        let src = root.join(dir);
        let parent = ["lib.rs", "main.rs"]
            .into_iter()
            .find(|root| src.join(root).exists())
            .unwrap_or("mod.rs");
        let mut stack = vec![(src, parent, prefix.to_owned())];
        while let Some((folder, parent, prefix)) = stack.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.join("mod.rs").exists() {
                    let name = path.file_name().unwrap().to_string_lossy();
                    stack.push((path.clone(), "mod.rs", format!("{prefix}{name}::")));
                }
            }
            found.push((folder, parent, prefix));
        }
    }
    found
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The names a path continues with: `name` in `name::...`, and each
/// item's first name in a group, `{a, b::c}`.
fn names_after(text: &str) -> Vec<String> {
    let Some(group) = text.strip_prefix('{') else {
        return Some(ident(text))
            .filter(|n| !n.is_empty())
            .into_iter()
            .collect();
    };
    let mut names = Vec::new();
    let (mut depth, mut item_start) = (0, true);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && !c.is_whitespace() => {
                item_start = false;
                let name = ident(&group[at..]);
                if !name.is_empty() && name != "self" {
                    names.push(name);
                }
            }
            _ => {}
        }
    }
    names
}

/// Code before the file's `#[cfg(test)]` part, without its comment lines
/// (doc links are not dependencies).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The parent's code with what does not use a child taken out: `mod`
/// declarations and `pub use` statements (the index).
fn parent_uses(code: &str) -> String {
    let mut kept = String::new();
    let mut in_reexport = false;
    for line in code.lines() {
        let trimmed = line.trim_start();
        let starts_reexport = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if starts_reexport {
            in_reexport = true;
        }
        let skip = in_reexport || (trimmed.contains("mod ") && trimmed.ends_with(';'));
        if in_reexport && trimmed.ends_with(';') {
            in_reexport = false;
        }
        if !skip {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// Names the parent imports from its children (`use child::{A, b::C}` and
/// `pub use child::D`, any visibility): name -> child.
fn imported_names(code: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for (at, _) in code.match_indices("use ") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let statement = &code[at + 4..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        let statement = statement.trim_start_matches("self::");
        let child = ident(statement);
        if !children.contains(&child) {
            continue;
        }
        let body = statement.replace(['{', '}', '\n'], ",");
        for item in body.split(',') {
            let item = item.trim();
            let name = match item.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => item.rsplit("::").next().unwrap_or(item),
            };
            if !name.is_empty() && name != child {
                names.insert(name.to_owned(), child.clone());
            }
        }
    }
    names
}

/// `module -> modules it names` for one folder, the parent file included
/// under its file name.
fn module_graph(folder: &Path, parent: &str, prefix: &str) -> Graph {
    let mut children = BTreeSet::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.join("mod.rs").exists() {
            children.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs")
            && ![parent, "main.rs"].contains(&name.as_str())
        {
            children.insert(stem.to_owned());
        }
    }
    let parent_code = code(&folder.join(parent));
    let imported = imported_names(&parent_code, &children);
    let mut graph = Graph::new();
    graph.insert(parent.to_owned(), BTreeSet::new());
    for child in &children {
        let own = folder.join(format!("{child}.rs"));
        let (own, mut files) = if own.exists() {
            (own.clone(), vec![own])
        } else {
            (folder.join(child).join("mod.rs"), vec![folder.join(child)])
        };
        let mut names = BTreeSet::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let code = code(&path);
            let mut prefixes = vec![prefix];
            if path == own {
                prefixes.push("super::");
            }
            for prefix in prefixes {
                for (at, _) in code.match_indices(prefix) {
                    let before = &code[..at];
                    if before.ends_with("super::")
                        || (prefix == "super::" && before.ends_with(|c: char| c.is_alphanumeric()))
                    {
                        continue; // `super::super::` reaches above the folder
                    }
                    for name in names_after(&code[at + prefix.len()..]) {
                        let target = if children.contains(&name) {
                            name
                        } else if let Some(child) = imported.get(&name) {
                            child.clone()
                        } else {
                            parent.to_owned()
                        };
                        if &target != child {
                            names.insert(target);
                        }
                    }
                }
            }
        }
        graph.insert(child.clone(), names);
    }
    let uses = parent_uses(&parent_code);
    let names = graph.get_mut(parent).unwrap();
    for child in &children {
        let path = format!("{child}::");
        for (at, _) in uses.match_indices(&path) {
            let before = &uses[..at];
            let through_path = before.ends_with("::");
            let direct = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if (!through_path && direct) || before.ends_with("self::") || before.ends_with(prefix) {
                names.insert(child.clone());
            }
        }
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn no_folder_has_modules_in_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let folders = folders();
    assert!(folders.len() >= 20, "found only {} folders", folders.len());
    let mut found = Vec::new();
    for (folder, parent, prefix) in &folders {
        let graph = module_graph(folder, parent, prefix);
        assert!(
            graph.len() > 1,
            "{}: found only {:?}",
            folder.display(),
            graph.keys()
        );
        let folder = folder.strip_prefix(&root).unwrap_or(folder);
        for cycle in cycles(&graph) {
            let edges: Vec<String> = cycle
                .iter()
                .flat_map(|from| {
                    let graph = &graph;
                    let cycle = &cycle;
                    graph[from]
                        .iter()
                        .filter(move |to| cycle.contains(to))
                        .map(move |to| format!("{from} -> {to}"))
                })
                .collect();
            found.push(format!("{}: {}", folder.display(), edges.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "modules import each other in a circle:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_graph_sees_a_parent_that_uses_its_child_and_is_used_by_it() {
    let dir = std::env::temp_dir().join(format!("module-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "mod.rs",
        "//! `child::Thing` in a comment is no edge\nmod child;\nmod other;\n\
         pub use other::Index;\nuse child::Helper;\npub struct Base;\n",
    );
    write("child.rs", "use super::Base;\npub struct Helper;\n");
    write("other.rs", "use super::Base;\npub struct Index;\n");
    let graph = module_graph(&dir, "mod.rs", "crate::folder::");
    assert_eq!(cycles(&graph), [["child", "mod.rs"]]);
    assert!(graph["mod.rs"].contains("child"));
    assert!(!graph["mod.rs"].contains("other"), "{graph:?}");
    write("mod.rs", "mod child;\nmod other;\npub use child::Helper;\n");
    write("other.rs", "use super::Helper;\npub struct Index;\n");
    write("child.rs", "pub struct Helper;\n");
    let graph = module_graph(&dir, "mod.rs", "crate::folder::");
    assert!(cycles(&graph).is_empty(), "{graph:?}");
    assert!(graph["other"].contains("child"), "{graph:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let mut graph = Graph::new();
    let edge = |g: &mut Graph, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge(&mut graph, "a", "b");
    edge(&mut graph, "b", "c");
    edge(&mut graph, "c", "a");
    edge(&mut graph, "c", "d");
    assert_eq!(cycles(&graph), [["a", "b", "c"]]);
}
