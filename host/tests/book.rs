//! The book cannot drift from the code: every shell block marked
//! ```` ```sh,runnable ```` in `book/src` is run, as a reader would type it,
//! in a scratch directory outside the repository with the built `host` on
//! `PATH` (the blocks of one page in order, in one directory), and fails the
//! test when a command fails; every link between pages, to a heading, to a
//! file of the repository or from `docs/` resolves; every `{{#include}}`
//! names a file that is there.
//!
//! Needs what the blocks use: componentize-py and componentize-js, pyright
//! and tsc (`./test.sh` installs them), and the `wasm32-wasip2` target.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Every `.md` file under `dir`, sorted.
fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The fenced code blocks of `text` whose info string is `info`, in order.
fn blocks(text: &str, info: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(rest)) if rest.trim() == info => current = Some(String::new()),
            (None, Some(_)) => current = Some("\0other".into()),
            (Some(block), Some(_)) => {
                if !block.starts_with('\0') {
                    found.push(std::mem::take(block));
                }
                current = None;
            }
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, None) => {}
        }
    }
    found
}

/// The ids mdBook (and GitHub) give a page's headings.
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut ids = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let id: String = title
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        ids.insert(id);
    }
    ids
}

/// The text of `path` as the book shows it: with its `{{#include}}`s in
/// place (whole files; ranges are not needed for headings).
fn rendered(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        match line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|rest| rest.strip_suffix("}}"))
        {
            Some(target) => {
                let file = target.split(':').next().unwrap();
                let included = path.parent().unwrap().join(file);
                out.push_str(&std::fs::read_to_string(&included).unwrap_or_default());
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The link targets of `text` outside code: `[text](target)`.
fn links(text: &str) -> Vec<String> {
    // The prose, paragraph by paragraph: fenced blocks left out, and inline
    // code (which may hold `](`, and may wrap a line) too.
    let mut in_code = false;
    let mut paragraphs = vec![String::new()];
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        match (in_code, line.trim().is_empty()) {
            (true, _) => {}
            (false, true) => paragraphs.push(String::new()),
            (false, false) => {
                let last = paragraphs.last_mut().expect("one at least");
                last.push_str(line);
                last.push('\n');
            }
        }
    }
    let mut found = Vec::new();
    for paragraph in paragraphs {
        let prose: String = (paragraph.split('`').enumerate())
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        for (at, _) in prose.match_indices("](") {
            let rest = &prose[at + 2..];
            if let Some(end) = rest.find(')') {
                found.push(rest[..end].to_owned());
            }
        }
    }
    found
}

/// `path` with its `.` and `..` parts resolved, as text (no file is read).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The pages `book/build.sh` writes (those `book/.gitignore` names under
/// `src/`), as paths.
fn generated() -> Vec<PathBuf> {
    let book = workspace().join("book");
    let ignore = std::fs::read_to_string(book.join(".gitignore")).unwrap();
    ignore
        .lines()
        .filter_map(|line| line.strip_prefix("/src/"))
        .map(|page| book.join("src").join(page))
        .collect()
}

/// Checks every link of the file at `page` (whose text is `text`), naming
/// each broken one in `broken`.
fn check_links(page: &Path, text: &str, broken: &mut Vec<String>) {
    let generated = generated();
    for target in links(text) {
        if target.starts_with("http://") || target.starts_with("https://") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let path = match file {
            "" => page.to_owned(),
            file => normal(&page.parent().unwrap().join(file)),
        };
        if generated.contains(&path) {
            continue; // written by book/build.sh
        }
        if !path.exists() {
            broken.push(format!("{}: `{target}`: no such file", page.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && path.extension().is_some_and(|e| e == "md")
            && !heading_ids(&rendered(&path)).contains(anchor)
        {
            broken.push(format!("{}: `{target}`: no such heading", page.display()));
        }
    }
}

#[test]
fn every_link_and_include_of_the_book_and_docs_resolves() {
    let root = workspace();
    let mut broken = Vec::new();
    let book = pages(&root.join("book/src"));
    assert!(book.len() > 20, "{book:?}");
    for page in book.iter().chain(&pages(&root.join("docs"))) {
        let text = std::fs::read_to_string(page).unwrap();
        for line in text.lines() {
            if let Some(target) = line.trim().strip_prefix("{{#include ") {
                let file = target.trim_end_matches("}}").split(':').next().unwrap();
                if !page.parent().unwrap().join(file).is_file() {
                    broken.push(format!(
                        "{}: includes `{file}`: no such file",
                        page.display()
                    ));
                }
            }
        }
        // A book page's links are checked as the book shows them: with
        // what it includes, whose links then resolve from the page.
        let shown = match page.starts_with(root.join("book")) {
            true => rendered(page),
            false => text,
        };
        check_links(page, &shown, &mut broken);
    }
    assert!(broken.is_empty(), "broken:\n{}", broken.join("\n"));
}

#[test]
fn every_runnable_block_of_the_book_runs_as_a_reader_would_type_it() {
    let root = workspace();
    let host = Path::new(env!("CARGO_BIN_EXE_host"));
    let path = format!(
        "{}:{}",
        host.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The SDK `host new` writes, apart from the machine's own.
    let data = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for page in pages(&root.join("book/src")) {
        let runnable = blocks(&std::fs::read_to_string(&page).unwrap(), "sh,runnable");
        if runnable.is_empty() {
            continue;
        }
        let scratch = tempfile::tempdir().unwrap();
        // What a block prints goes to files, not pipes: a process it leaves
        // behind cannot hold the test, and `timeout` ends one that hangs.
        let said = tempfile::tempdir().unwrap();
        for block in runnable {
            let out = said.path().join("out");
            let status = Command::new("timeout")
                .args([
                    "--kill-after=10",
                    "600",
                    "bash",
                    "-euo",
                    "pipefail",
                    "-c",
                    &block,
                ])
                .current_dir(scratch.path())
                .env("PATH", &path)
                .env("GAME_HOST_DATA_DIR", data.path())
                .env("NO_COLOR", "1")
                .stdin(std::process::Stdio::null())
                .stdout(std::fs::File::create(&out).unwrap())
                .stderr(std::fs::File::create(out.with_extension("err")).unwrap())
                .status()
                .unwrap();
            let tail = |path: &Path| {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                lines[lines.len().saturating_sub(30)..].join("\n")
            };
            assert!(
                status.success(),
                "a runnable block of {} failed ({status}):\n{block}\n--- stdout\n{}\n--- stderr\n{}",
                page.display(),
                tail(&out),
                tail(&out.with_extension("err"))
            );
            ran += 1;
        }
    }
    eprintln!("ran {ran} runnable blocks of the book");
    assert!(ran >= 3, "only {ran} runnable blocks");
}

#[test]
fn blocks_ids_and_links_are_read_as_mdbook_reads_them() {
    let text = "# A `host` page\n```sh,runnable\nhost run\n```\n```sh\nnot this\n```\n\
                See [it](other.md#a-host-page) and `[x](y)`.\n";
    assert_eq!(blocks(text, "sh,runnable"), ["host run\n"]);
    assert!(heading_ids(text).contains("a-host-page"));
    assert_eq!(links(text), ["other.md#a-host-page"]);
}

#[test]
fn readme_is_short_and_its_script_is_the_default_script() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines: the guides go to the book"
    );
    let shown = blocks(&readme, "rust");
    let source = std::fs::read_to_string(root.join("examples/spinning-cube/src/lib.rs")).unwrap();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        source.ends_with(&shown[0]),
        "README's Rust block is to be the end of examples/spinning-cube/src/lib.rs, as it is"
    );
    let mut broken = Vec::new();
    check_links(&root.join("README.md"), &readme, &mut broken);
    for extra in ["examples/README.md", "client/README.md"] {
        let path = root.join(extra);
        let text = std::fs::read_to_string(&path).unwrap();
        check_links(&path, &text, &mut broken);
    }
    assert!(broken.is_empty(), "broken:\n{}", broken.join("\n"));
}
