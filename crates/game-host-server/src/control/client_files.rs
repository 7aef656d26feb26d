//! The players' client library (`client/src/`, the npm package
//! `@game-host/client`), served at `/client/NAME.js` for the view page: the
//! very files the package ships (JavaScript with JSDoc types, checked by
//! `tsc`), so the page and a game's client run the same code.

/// Each file's name and text.
const FILES: &[(&str, &str)] = &[
    ("index.js", include_str!("../../../../client/src/index.js")),
    (
        "client.js",
        include_str!("../../../../client/src/client.js"),
    ),
    ("delta.js", include_str!("../../../../client/src/delta.js")),
    (
        "protocol.js",
        include_str!("../../../../client/src/protocol.js"),
    ),
    ("table.js", include_str!("../../../../client/src/table.js")),
];

/// The index of file `name`, for a route (which is `Copy`).
pub(crate) fn index(name: &str) -> Option<usize> {
    FILES.iter().position(|(n, _)| *n == name)
}

/// The text of file number `index`.
pub(crate) fn text(index: usize) -> &'static str {
    FILES[index].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_library_imports_is_served() {
        for (name, text) in FILES {
            for line in text.lines().filter(|l| l.contains(" from \"./")) {
                let imported = line
                    .split("from \"./")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                assert!(
                    index(imported).is_some(),
                    "{name} imports {imported}, not served"
                );
            }
        }
    }
}
