//! Why a component does not fit the host's `game:engine` API, when the
//! cause is known: a release of it this host does not provide, a network
//! import (scripts get no network), or an extension's interface the host
//! was not given.

use wasmtime::component::Component;

use crate::guest::v0_1;

/// The version of the newest `game:engine` WIT package this host provides
/// (read from `wit/` at build time). It also links the last 0.1 release,
/// [`v0_1::VERSION`].
pub const API_VERSION: &str = env!("GAME_ENGINE_VERSION");

/// Why a component failed to link with `error`, when the cause is known:
/// the first `game:engine` import whose version this host cannot provide;
/// else the import the linker's error names, if it is a network interface
/// (scripts get no network) or another package's (an extension's, such as
/// `game:terrain/terrain`, which this host was not given).
pub(super) fn api_mismatch(
    component: &Component,
    engine: &wasmtime::Engine,
    error: &str,
) -> Option<String> {
    let imports: Vec<String> = component
        .component_type()
        .imports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    imports
        .iter()
        .find_map(|name| {
            let version = name.strip_prefix("game:engine/")?.split_once('@')?.1;
            version_mismatch(version)
        })
        .or_else(|| {
            let missing = imports.iter().find(|name| error.contains(name.as_str()))?;
            if missing.starts_with("wasi:http/") || missing.starts_with("wasi:sockets/") {
                Some(network_import(missing))
            } else if !missing.starts_with("wasi:") && !missing.starts_with("game:engine/") {
                Some(format!(
                    "it imports `{missing}`, an extension's interface this host does not provide \
                     (or provides at another version): a host links it when given that extension"
                ))
            } else {
                None
            }
        })
}

/// Why a component importing `name` (a WASI network interface) cannot load.
fn network_import(name: &str) -> String {
    format!(
        "it imports `{name}`, and scripts get no network; a componentize-js build must \
         leave it out with `--disable http fetch-event` (`host run app.js` does)"
    )
}

/// Why a script built against `game:engine@version` cannot load here, if
/// it cannot: no release this host provides is in its semver range, or it
/// is a newer release of one.
fn version_mismatch(version: &str) -> Option<String> {
    let built = parse_version(version)?;
    let provided = [API_VERSION, v0_1::VERSION].map(|v| parse_version(v).expect("a version"));
    let same_range = |host: &(u64, u64, u64)| match (built.0, host.0) {
        (0, 0) => built.1 == host.1,
        (a, b) => a == b,
    };
    let why = match provided.iter().find(|host| same_range(host)) {
        None => "which is not compatible with it",
        Some(host) if built > *host => "which is newer: update the host",
        Some(_) => return None,
    };
    let newest = provided[0];
    Some(format!(
        "it was built against game:engine@{version}, but this host provides \
         game:engine@{API_VERSION}, {why} (scripts built against {}.{}.x or 0.1.x load)",
        newest.0, newest.1
    ))
}

fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split(['.', '-', '+']).map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version(API_VERSION).map(|v| v.0), Some(0));
        assert_eq!(parse_version("0.2.0"), Some((0, 2, 0)));
        assert_eq!(parse_version("1.0.0-rc1"), Some((1, 0, 0)));
    }

    #[test]
    fn versions_outside_the_hosts_ranges_are_explained() {
        let v1 = version_mismatch("1.0.0").unwrap();
        assert!(
            v1.starts_with(&format!(
                "it was built against game:engine@1.0.0, but this host provides \
                 game:engine@{API_VERSION}"
            )),
            "{v1}"
        );
        assert!(v1.contains("not compatible"), "{v1}");
        assert!(v1.contains("or 0.1.x load"), "{v1}");
        assert!(
            version_mismatch("0.99.0")
                .unwrap()
                .contains("not compatible")
        );
        assert!(
            version_mismatch("0.1.99")
                .unwrap()
                .contains("newer: update the host")
        );
        assert_eq!(version_mismatch("0.1.0"), None);
        assert_eq!(version_mismatch(v0_1::VERSION), None);
        assert_eq!(version_mismatch(API_VERSION), None);
    }
}
