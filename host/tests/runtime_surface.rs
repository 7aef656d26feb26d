//! `Runtime`'s public surface, checked against what docs/architecture.md
//! says of it: the frame API on `Runtime` itself (at most 20 methods), the
//! rest behind its faces (`inspect()`, `input()`, `starts()`), test hooks
//! behind the `test-util` feature.
//!
//! The methods are read from the core's source as a reviewer would list
//! them: every `pub fn` directly inside an `impl Runtime` block, in any file
//! of the crate, unless an attribute above it limits it to tests or to the
//! `test-util` feature.

use std::path::{Path, PathBuf};

/// The most public methods `Runtime` itself may have (issue 67's bound).
const MOST_METHODS: usize = 20;

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// The public methods of `Runtime`'s `impl` blocks in one file's text, with
/// those for tests only left out.
fn public_methods(source: &str) -> Vec<String> {
    let mut methods = Vec::new();
    let mut inside = false;
    let mut attributes: Vec<&str> = Vec::new();
    for line in source.lines() {
        if !inside {
            inside = line.starts_with("impl Runtime {");
            continue;
        }
        if line == "}" {
            inside = false;
            continue;
        }
        let Some(item) = line.strip_prefix("    ") else {
            continue;
        };
        if item.starts_with(' ') || item.starts_with("//") {
            continue;
        }
        if item.starts_with("#[") {
            attributes.push(item);
            continue;
        }
        // `#[cfg(test)]`, `#[cfg(feature = "test-util")]` or both.
        let for_tests = attributes
            .iter()
            .any(|attribute| attribute.starts_with("#[cfg(") && attribute.contains("test"));
        attributes.clear();
        if let Some(rest) = item.strip_prefix("pub fn ")
            && !for_tests
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            methods.push(name);
        }
    }
    methods
}

fn runtime_methods() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root.join("crates/game-host/src"), &mut files);
    files.sort();
    let mut methods: Vec<String> = files
        .iter()
        .flat_map(|file| public_methods(&std::fs::read_to_string(file).unwrap()))
        .collect();
    methods.sort();
    methods
}

/// The "after" cell of the architecture page's row on the runtime's public
/// surface.
fn documented_surface() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let row = page
        .lines()
        .find(|line| line.starts_with("| the runtime's public surface |"))
        .expect("docs/architecture.md has a row on the runtime's public surface");
    let cells: Vec<&str> = row.split(" | ").collect();
    cells[2].to_owned()
}

#[test]
fn runtime_keeps_its_frame_api_alone_and_the_page_says_which() {
    let methods = runtime_methods();
    assert!(
        methods.len() <= MOST_METHODS,
        "Runtime has {} public methods, more than {MOST_METHODS}: put the new \
         one on a face (inspect, input, starts), or behind test-util if only \
         tests use it: {methods:?}",
        methods.len()
    );
    let after = documented_surface();
    let stated: usize = after
        .split(|c: char| !c.is_ascii_digit())
        .find(|number| !number.is_empty())
        .and_then(|number| number.parse().ok())
        .expect("the row states how many methods Runtime has");
    assert_eq!(
        stated,
        methods.len(),
        "docs/architecture.md says Runtime has {stated} public methods; the \
         source has {}: {methods:?}",
        methods.len()
    );
    for method in &methods {
        assert!(
            after.contains(&format!("`{method}`")) || after.contains(&format!("`{method}()`")),
            "docs/architecture.md does not name Runtime::{method}"
        );
    }
}

#[test]
fn the_reader_finds_methods_and_leaves_out_test_hooks() {
    let source = "\
impl Runtime {
    /// Frame.
    pub fn step(&mut self) {
        let x = 1;
    }

    #[cfg(any(test, feature = \"test-util\"))]
    pub fn wait_stats(&self) {}

    pub(crate) fn inner(&self) {}

    #[must_use]
    pub fn inspect(&self) {}
}

impl Other {
    pub fn not_runtime(&self) {}
}
";
    assert_eq!(public_methods(source), ["step", "inspect"]);
}
