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
        "predict.js",
        include_str!("../../../../client/src/predict.js"),
    ),
    (
        "predictor_imports.js",
        include_str!("../../../../client/src/predictor_imports.js"),
    ),
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

    /// The browser gives a predictor what `host build --predictor` lets
    /// it import: world `predictor`'s interfaces and the host's list of
    /// WASI, no more and no less.
    #[test]
    fn the_predictors_imports_in_the_browser_are_what_its_world_allows() {
        use game_host::guest::engine::{BROWSER_WASI, PREDICTOR_IMPORTS};
        let source = text("predictor_imports.js").unwrap();
        let given: std::collections::BTreeSet<&str> = source
            .lines()
            .filter_map(|line| {
                let key = line.trim().strip_prefix('"')?.split('"').next()?;
                (key.starts_with("wasi:") || key.starts_with("game:engine/")).then_some(key)
            })
            .collect();
        let allowed: std::collections::BTreeSet<String> = (PREDICTOR_IMPORTS.iter())
            .map(|name| format!("game:engine/{name}"))
            .chain(BROWSER_WASI.iter().map(|name| name.to_string()))
            .collect();
        let given: std::collections::BTreeSet<String> =
            given.into_iter().map(str::to_owned).collect();
        assert_eq!(given, allowed);
    }

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
