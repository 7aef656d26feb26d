//! Host bindings for the `game:engine/terrain` interface alone, generated
//! by `bindgen!` from the workspace's WIT. The implementation is in
//! `super::host`.

wasmtime::component::bindgen!({
    path: "../../wit",
    interfaces: "import game:engine/terrain@0.1.5;",
    imports: { default: trappable },
});

pub use game::engine::terrain::*;
