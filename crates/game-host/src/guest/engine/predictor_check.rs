//! Whether a component may run in the players' browsers as a predictor
//! (`host build --predictor`): it calls nothing of `game:engine` beyond
//! what world `predictor` imports (the types of other interfaces it may
//! use), and nothing of WASI beyond what the client library provides in
//! the browser ([`BROWSER_WASI`]).

use wasmtime::Engine;
use wasmtime::component::Component;
use wasmtime::component::types::ComponentItem;

/// The `game:engine` interfaces world `predictor` imports (read from
/// `wit/worlds.wit` at build time).
pub const PREDICTOR_IMPORTS: &[&str] = include!(concat!(env!("OUT_DIR"), "/predictor_imports.rs"));

/// The WASI interfaces the client library provides to a predictor in the
/// browser (`client/src/predictor_imports.js`): what a Rust script's
/// standard library imports (its stdio, environment, exit, clock waits and
/// hash seeds). Its stdout and stderr go to the console; the environment
/// is empty; the clock and seed are fixed, as the host's own are
/// deterministic.
pub const BROWSER_WASI: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stderr",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stderr",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:clocks/monotonic-clock",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/insecure-seed",
];

/// Why `component` cannot run as a predictor, if it cannot: the first
/// import that calls what a browser does not provide.
pub(super) fn predictor_mismatch(component: &Component, engine: &Engine) -> Option<String> {
    let allowed = PREDICTOR_IMPORTS.join(", ");
    for (name, item) in component.component_type().imports(engine) {
        let unversioned = name.split('@').next().unwrap_or(name);
        if let Some(interface) = unversioned.strip_prefix("game:engine/") {
            if PREDICTOR_IMPORTS.contains(&interface) {
                continue;
            }
            let ComponentItem::ComponentInstance(instance) = item.ty else {
                return Some(format!("it imports `{name}`, which is not an interface"));
            };
            // Types alone (`tasks`' `wake`) need nothing in the browser.
            if let Some((function, _)) = instance
                .exports(engine)
                .find(|(_, item)| !matches!(item.ty, ComponentItem::Type(_)))
            {
                return Some(format!(
                    "it calls `{interface}.{function}`, which a browser does not provide: \
                     a predictor may call only {allowed} (world `predictor`)"
                ));
            }
        } else if !BROWSER_WASI.contains(&unversioned) {
            return Some(format!(
                "it imports `{name}`, which a browser does not provide to a predictor \
                 (of WASI, only {})",
                BROWSER_WASI.join(", ")
            ));
        }
    }
    None
}
