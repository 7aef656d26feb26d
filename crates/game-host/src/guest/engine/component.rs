//! A loaded script component, ready to instantiate many times.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::Store;
use wasmtime::component::{ComponentExportIndex, InstancePre};

use super::Extension;
use crate::guest::LiveSources;
use crate::guest::bindings::live::LiveIndices;
use crate::guest::exports::ExportIndices;
use crate::guest::{RuntimeShared, ScriptLimiter, ScriptState};
use crate::hex::hex;
use crate::limits::ScriptLimits;

/// The optional `stateful-script` exports a component has: the state
/// hand-over of a hot-swap.
#[derive(Clone, Default)]
pub(crate) struct HandoverExports {
    pub save: Option<ComponentExportIndex>,
    pub restore: Option<ComponentExportIndex>,
}

/// A compiled, linked script component. Cloning is cheap; each
/// instantiation gets its own store, memory and id.
#[derive(Clone)]
pub struct ScriptComponent {
    name: Arc<str>,
    pre: InstancePre<ScriptState>,
    /// The script world's exports (the newest world's, or 0.1's), looked
    /// up once at load time.
    indices: ExportIndices,
    size: usize,
    handover: HandoverExports,
    limits: ScriptLimits,
    /// The engine's limits, which bound what `with_limits` may give.
    engine_limits: ScriptLimits,
    /// SHA-256 of the component's bytes: which code this is, for recordings.
    digest: [u8; 32],
    /// Where the script was loaded from, when it came from a path.
    source: Option<Arc<Path>>,
    /// Its engine's extensions, whose job kinds a runtime registers before
    /// starting an instance.
    extensions: Arc<[Extension]>,
    /// For a live Python or JavaScript script (a language's runtime
    /// component), the sources every instance runs.
    live: Option<Arc<LiveSources>>,
}

impl ScriptComponent {
    /// Checks that the component exports a script world (the newest, or
    /// 0.1's) and finds its optional state exports.
    pub(crate) fn new(
        name: &str,
        pre: InstancePre<ScriptState>,
        size: usize,
        digest: [u8; 32],
        limits: ScriptLimits,
    ) -> wasmtime::Result<Self> {
        let indices = ExportIndices::new(&pre)?;
        let component = pre.component();
        let handover = HandoverExports {
            save: component.get_export_index(None, "save-state"),
            restore: component.get_export_index(None, "restore-state"),
        };
        Ok(ScriptComponent {
            name: name.into(),
            pre,
            indices,
            size,
            handover,
            limits,
            engine_limits: limits,
            digest,
            source: None,
            live: None,
            extensions: Arc::new([]),
        })
    }

    /// The same component, made by an engine with `extensions`.
    pub(crate) fn with_extensions(self, extensions: Arc<[Extension]>) -> Self {
        ScriptComponent { extensions, ..self }
    }

    /// The extensions of the engine that made it (shared by every component
    /// of that engine).
    pub(crate) fn extensions(&self) -> &Arc<[Extension]> {
        &self.extensions
    }

    /// Whether the component exports `save-state` and `restore-state`, so it
    /// can hand its state over on a hot-swap.
    pub fn is_stateful(&self) -> bool {
        self.handover.save.is_some() && self.handover.restore.is_some()
    }

    /// This runtime component running `sources` as script `name`: every
    /// instance made from it reads them (`game:live/sources`). Its digest
    /// covers the runtime and the sources.
    pub fn with_live_sources(&self, name: &str, sources: LiveSources) -> ScriptComponent {
        ScriptComponent {
            name: name.into(),
            digest: sources.digest(&self.digest),
            live: Some(Arc::new(sources)),
            ..self.clone()
        }
    }

    /// For a live script: compiles its sources in a throwaway instance of
    /// its runtime, running none of them, and returns the error (in the
    /// language's words, with file and line) if they do not compile.
    pub fn check_live(&self) -> anyhow::Result<Option<String>> {
        let indices = LiveIndices::new(&self.pre).map_err(|_| {
            anyhow::anyhow!("it is not a live-script runtime (no `game:live/loader` export)")
        })?;
        let mut store = self.throwaway_store();
        let instance = self.pre.instantiate(&mut store)?;
        let live = indices.load(&mut store, &instance)?;
        arm_deadline(&mut store, self.limits.start_deadline, &self.limits);
        Ok(live.game_live_loader().call_check(&mut store)?)
    }

    /// Instantiates the component once in a throwaway store (running no
    /// export), so one-time setup such as building its memory image happens
    /// now, on this thread, and not in the next instantiation, which may be
    /// a hot-swap on the frame thread.
    pub fn warm_up(&self) -> anyhow::Result<()> {
        if self.live.is_some() {
            return Ok(()); // its runtime was warmed up when the engine kept it
        }
        let mut store = self.throwaway_store();
        self.pre
            .instantiate(&mut store)
            .map_err(anyhow::Error::from)
            .map(drop)
    }

    /// A store for an instance that belongs to no runtime (a check or a
    /// warm-up).
    fn throwaway_store(&self) -> Store<ScriptState> {
        let state = ScriptState::new(self.shared_name(), None, &RuntimeShared::detached());
        self.new_store(state)
    }

    /// A store for an instance of this component: its memory and table
    /// limits installed, and a start deadline for instantiation.
    pub(crate) fn new_store(&self, mut state: ScriptState) -> Store<ScriptState> {
        state.limiter = ScriptLimiter::new(&self.limits);
        state.live = self.live.clone();
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|state| &mut state.limiter);
        if self.limits.update_deadline.is_some() {
            store.epoch_deadline_callback(|mut store| store.data_mut().deadline.on_tick());
            arm_deadline(&mut store, self.limits.start_deadline, &self.limits);
        }
        store
    }

    /// The limits every instance of this component runs under.
    pub fn limits(&self) -> &ScriptLimits {
        &self.limits
    }

    /// This component with other limits for the instances made from it: a
    /// game may give its own scripts longer deadlines or more memory than a
    /// mod's. Fails when the engine cannot enforce them: CPU deadlines on
    /// an engine made without them (it compiled no epoch checks), or more
    /// memory than the engine's limit (its pool reserves no more).
    pub fn with_limits(&self, limits: ScriptLimits) -> anyhow::Result<ScriptComponent> {
        if limits.update_deadline.is_some() && self.engine_limits.update_deadline.is_none() {
            anyhow::bail!(
                "`{}` cannot get CPU deadlines: its engine was made without them",
                self.name
            );
        }
        if limits.memory > self.engine_limits.memory {
            anyhow::bail!(
                "`{}` cannot get {} MiB of memory: its engine allows {} MiB per instance",
                self.name,
                limits.memory >> 20,
                self.engine_limits.memory >> 20
            );
        }
        Ok(ScriptComponent {
            limits,
            ..self.clone()
        })
    }

    pub(crate) fn handover(&self) -> &HandoverExports {
        &self.handover
    }

    /// The script's name (file stem or crate name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Size of the component binary in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// SHA-256 of the component's bytes, in hex: which code this is.
    pub fn digest_hex(&self) -> String {
        hex(&self.digest)
    }

    /// Where the script was loaded from (a file, a crate directory, a
    /// Python or JavaScript source), if it came from a path.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The same script, noting `path` as where it came from.
    pub fn with_source(mut self, path: &Path) -> Self {
        self.source = Some(path.into());
        self
    }

    pub(crate) fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    pub(crate) fn pre(&self) -> &InstancePre<ScriptState> {
        &self.pre
    }

    pub(crate) fn indices(&self) -> &ExportIndices {
        &self.indices
    }
}

/// Starts a call's CPU budget of `cpu` in `store`: the deadline looks at
/// the call from the next epoch tick on (see `crate::guest::deadline`).
pub(crate) fn arm_deadline(store: &mut Store<ScriptState>, cpu: Duration, limits: &ScriptLimits) {
    store.data_mut().deadline.arm(cpu, limits);
    store.set_epoch_deadline(1);
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
