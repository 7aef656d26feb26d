//! The layering inside each crate, checked: the top-level modules of every
//! crate's `src` form no cycle through `crate::` paths. (Between crates,
//! cargo refuses cycles itself, and the core cannot name the terrain
//! extension or anything else above it: it does not depend on them.)
//!
//! Edges come from the source text (every `crate::NAME` outside
//! `#[cfg(test)]` code), as a reviewer reading `use` lines would draw them.
//! `lib.rs` (the index), the binary's `main.rs` and the CLI's `mod.rs` are
//! left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The workspace's crates that the checks cover: where their modules are
/// (relative to the workspace root) and how they name each other there.
/// The CLI's modules sit under `cli/`.
const CRATES: &[(&str, &str)] = &[
    ("crates/game-host/src", "crate::"),
    ("crates/game-host-render/src", "crate::"),
    ("crates/game-host-server/src", "crate::"),
    ("crates/game-host-build/src", "crate::"),
    ("crates/game-host-terrain/src", "crate::"),
    ("host/src/cli", "crate::cli::"),
    ("script/src", "crate::"),
];

/// `module -> modules it names`, for the top-level modules under `dir`
/// (relative to the workspace root): edges are the names after `prefix`
/// anywhere in a module's files, and, `with_super`, after `super::` in the
/// module's own file (`x.rs` or `x/mod.rs`, where `super` is `dir`).
fn module_graph(dir: &str, prefix: &str, with_super: bool) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let depth = relative.components().count();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        if ["lib", "main", "mod"].contains(&module.as_str()) {
            continue;
        }
        let own_file = depth == 1 || (depth == 2 && relative.ends_with("mod.rs"));
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let names = graph.entry(module.clone()).or_default();
        let mut prefixes = vec![prefix];
        if with_super && own_file {
            prefixes.push("super::");
        }
        for prefix in prefixes {
            for (at, _) in code.match_indices(prefix) {
                if prefix == "super::" && code[..at].ends_with("super::") {
                    continue; // `super::super::` reaches above `dir`
                }
                let name: String = code[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    names.insert(name);
                }
            }
        }
    }
    graph
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
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
fn no_crate_has_modules_in_a_cycle() {
    for &(dir, prefix) in CRATES {
        let graph = module_graph(dir, prefix, prefix != "crate::");
        assert!(graph.len() > 2, "{dir}: found only {:?}", graph.keys());
        let cycles = cycles(&graph);
        assert!(
            cycles.is_empty(),
            "{dir}: modules import each other in a circle: {cycles:?}\ngraph: {graph:#?}"
        );
    }
}

#[test]
fn no_folder_of_the_core_has_modules_in_a_cycle() {
    for folder in ["guest", "runtime", "jobs", "record", "scene", "log"] {
        let dir = format!("crates/game-host/src/{folder}");
        let graph = module_graph(&dir, &format!("crate::{folder}::"), true);
        assert!(graph.len() > 1, "{folder}: found only {:?}", graph.keys());
        let cycles = cycles(&graph);
        assert!(
            cycles.is_empty(),
            "{folder}: modules import each other in a circle: {cycles:?}\ngraph: {graph:#?}"
        );
    }
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let edge = |g: &mut BTreeMap<String, BTreeSet<String>>, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge(&mut graph, "a", "b");
    edge(&mut graph, "b", "c");
    edge(&mut graph, "c", "a");
    edge(&mut graph, "c", "d");
    assert_eq!(cycles(&graph), [["a", "b", "c"]]);
}
