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
    ("join.js", include_str!("../../../../client/src/join.js")),
    (
        "protocol.js",
        include_str!("../../../../client/src/protocol.js"),
    ),
    ("table.js", include_str!("../../../../client/src/table.js")),
];

/// The text of file `name`, if it is one of the library's.
pub(crate) fn text(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_library_imports_is_served() {
        for (name, source) in FILES {
            for line in source.lines().filter(|l| l.contains(" from \"./")) {
                let imported = line
                    .split("from \"./")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                assert!(
                    text(imported).is_some(),
                    "{name} imports {imported}, not served"
                );
            }
        }
    }
}
