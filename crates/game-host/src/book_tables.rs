//! For the tests (behind `test-util`): the book's reference tables, read
//! as rows of their first two cells, and compared with what the code
//! declares, both ways. A reference page's table cannot drift from the
//! code that a test holds it against.

use std::path::PathBuf;

/// Where the book's reference pages are, in this repository.
fn reference() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../book/src/reference"
    ))
}

/// The text of `book/src/reference/PAGE`.
pub fn page(page: &str) -> String {
    let path = reference().join(page);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text of `page` with each run of whitespace made one space: what its
/// prose says, however its lines are broken.
pub fn prose(page: &str) -> String {
    self::page(page)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first ```` ```LANG ```` block of `page`, without its fences.
pub fn code_block(page: &str, lang: &str) -> String {
    let text = self::page(page);
    let fence = format!("```{lang}\n");
    let start = text
        .find(&fence)
        .unwrap_or_else(|| panic!("book/src/reference/{page} has no ```{lang} block"))
        + fence.len();
    let end = start + text[start..].find("```").expect("a closed block");
    text[start..end].to_owned()
}

/// The rows of the tables of `book/src/reference/PAGE` (under the heading
/// SECTION alone, of any level, up to the next heading, when a section is
/// given) whose first cell is code: that code (before any `?`) and the
/// second cell.
pub fn rows(page: &str, section: Option<&str>) -> Vec<(String, String)> {
    let text = self::page(page);
    let mut inside = section.is_none();
    let mut found = section.is_none();
    let mut rows = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        // A `#` in a code block is not a heading.
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.starts_with('#') {
            let heading = line.trim_start_matches('#').trim();
            inside = section.is_none_or(|s| s == heading);
            found |= inside;
            continue;
        }
        if !inside {
            continue;
        }
        let mut cells = line.split(" | ");
        let Some(first) = cells
            .next()
            .and_then(|c| c.strip_prefix("| `"))
            .and_then(|c| c.strip_suffix('`'))
        else {
            continue;
        };
        let first = first.split('?').next().unwrap_or_default().to_owned();
        if let Some(second) = cells.next() {
            rows.push((first, second.trim_end_matches(" |").to_owned()));
        }
    }
    assert!(
        found,
        "book/src/reference/{page} has no section `{}`",
        section.unwrap_or_default()
    );
    rows
}

/// Panics unless the table of `page` (in `section`, if given) lists each
/// of `declared` and nothing else.
pub fn assert_lists_exactly(page: &str, section: Option<&str>, declared: &[(String, String)]) {
    let listed = rows(page, section);
    let place = match section {
        Some(section) => format!("book/src/reference/{page} (section `{section}`)"),
        None => format!("book/src/reference/{page}"),
    };
    for (name, second) in declared {
        assert!(
            listed.contains(&(name.clone(), second.clone())),
            "{place} has no line for `{name}` | {second}"
        );
    }
    for (name, second) in &listed {
        assert!(
            declared.contains(&(name.clone(), second.clone())),
            "{place} lists `{name}` | {second}, which the code does not have"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_holds_its_own_rows_alone() {
        // The HTTP reference: its route table, and no rows under `Guards`.
        let all = rows("http.md", None);
        assert!(all.iter().any(|(route, _)| route == "GET /healthz"));
        assert!(rows("http.md", Some("Guards")).is_empty());
    }

    #[test]
    #[should_panic(expected = "has no section `No such section`")]
    fn a_missing_section_is_named() {
        rows("http.md", Some("No such section"));
    }
}
