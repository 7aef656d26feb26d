//! A loaded script component, ready to instantiate many times.

use std::sync::Arc;

use crate::bindings::ScriptPre;
use crate::state::ScriptState;

/// A compiled, linked script component. Cloning is cheap; each
/// instantiation gets its own store, memory and id.
#[derive(Clone)]
pub struct ScriptComponent {
    name: Arc<str>,
    pre: ScriptPre<ScriptState>,
    size: usize,
}

impl ScriptComponent {
    pub(crate) fn new(name: &str, pre: ScriptPre<ScriptState>, size: usize) -> Self {
        ScriptComponent {
            name: name.into(),
            pre,
            size,
        }
    }

    /// The script's name (file stem or crate name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Size of the component binary in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    pub(crate) fn pre(&self) -> &ScriptPre<ScriptState> {
        &self.pre
    }
}

/// What a byte string claims to be, from its header.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WasmKind {
    Component,
    CoreModule,
    NotWasm,
}

/// Reads the 8-byte header: `\0asm`, then a version/layer word that is
/// `01 00 00 00` for a core module and `0d 00 01 00` for a component.
pub(crate) fn wasm_kind(bytes: &[u8]) -> WasmKind {
    match bytes {
        [0, b'a', b's', b'm', 1, 0, 0, 0, ..] => WasmKind::CoreModule,
        [0, b'a', b's', b'm', _, _, 1, 0, ..] => WasmKind::Component,
        _ => WasmKind::NotWasm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_told_apart() {
        assert_eq!(wasm_kind(b"\0asm\x01\0\0\0"), WasmKind::CoreModule);
        assert_eq!(wasm_kind(b"\0asm\x0d\0\x01\0"), WasmKind::Component);
        assert_eq!(wasm_kind(b"hello world"), WasmKind::NotWasm);
        assert_eq!(wasm_kind(b""), WasmKind::NotWasm);
    }
}
