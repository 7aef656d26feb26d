//! For the tests: the book's reference tables that list what the server
//! has (its routes, its metrics), read as rows of their first two cells,
//! and compared with what the server declares, both ways.

use std::path::Path;

/// The rows of `book/src/reference/PAGE` whose first cell is code: that
/// code (before any `?`) and the second cell.
pub(crate) fn rows(page: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../book/src/reference")
        .join(page);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter_map(|line| {
            let mut cells = line.split(" | ");
            let first = cells.next()?.strip_prefix("| `")?.strip_suffix('`')?;
            let first = first.split('?').next()?.to_owned();
            Some((first, cells.next()?.to_owned()))
        })
        .collect()
}

/// Panics unless `page` lists each of `declared` and nothing else.
pub(crate) fn assert_lists_exactly(page: &str, declared: &[(String, String)]) {
    let listed = rows(page);
    for (name, kind) in declared {
        assert!(
            listed.contains(&(name.clone(), kind.clone())),
            "book/src/reference/{page} has no line for {name} ({kind})"
        );
    }
    for (name, kind) in &listed {
        assert!(
            declared.contains(&(name.clone(), kind.clone())),
            "book/src/reference/{page} lists {name} ({kind}), which the server does not have"
        );
    }
}
