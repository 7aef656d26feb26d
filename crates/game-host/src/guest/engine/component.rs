//! A loaded script component, ready to instantiate many times.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use wasmtime::Store;
use wasmtime::component::{ComponentExportIndex, InstancePre, Linker};

use super::Extension;
use super::grant::{Import, deny, imports_of, live_imports};
use crate::grants::{GrantSpec, Grants};
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
    /// The linker that made `pre`, for grants that link a live script's
    /// runtime again without some interfaces.
    linker: Option<Arc<Linker<ScriptState>>>,
    /// The interfaces it imports that grants cover.
    imports: Arc<[Import]>,
    /// What it declares it needs (`host build` embeds it).
    needs: Option<Arc<GrantSpec>>,
    /// What its instances may do.
    grants: Arc<Grants>,
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
        let imports = imports_of(component, pre.engine()).into();
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
            linker: None,
            imports,
            needs: None,
            grants: Arc::new(Grants::all()),
        })
    }

    /// The same component, made by an engine with `extensions` and
    /// `linker`.
    pub(crate) fn linked(
        self,
        extensions: Arc<[Extension]>,
        linker: Arc<Linker<ScriptState>>,
    ) -> Self {
        ScriptComponent {
            extensions,
            linker: Some(linker),
            ..self
        }
    }

    /// The same script, declaring that it needs `needs` (what `host build`
    /// embeds in a component; a live script's builder reads it from the
    /// project). Logged when it is given grants, and its `imports` checked.
    pub fn with_needs(mut self, needs: Option<GrantSpec>) -> Self {
        self.needs = needs.map(Arc::new);
        self
    }

    /// What the script declares it needs, if it declares anything.
    pub fn needs(&self) -> Option<&GrantSpec> {
        self.needs.as_deref()
    }

    /// What its instances may do.
    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// The interfaces it uses, by grant name: a compiled script's imports
    /// (those that declare functions), or what a live script's sources
    /// import (and the extensions its runtime was built with for them).
    pub fn uses(&self) -> Vec<String> {
        match &self.live {
            Some(sources) => {
                // A game's typed interfaces are the runtime's imports
                // (`spin-demo:game/game-components`): those the sources
                // import, from Python by interface, from JavaScript by
                // specifier.
                let game_import = |interface: &str| {
                    let suffix = format!(":game/{interface}");
                    (self.imports.iter()).find(|import| import.grant.ends_with(&suffix))
                };
                // An extension's interfaces (`game:terrain/terrain`) are
                // the runtime's imports only when the sources import them
                // (the builder reads them for that): each is used, and a
                // Python import of it (`terrain`) is that, not 0.1's
                // `game:engine/terrain`.
                let extension = |grant: &str| grant.contains(':') && !grant.contains(":game/");
                let extensions = || self.imports.iter().filter(|i| extension(&i.grant));
                let mut names: std::collections::BTreeSet<String> =
                    extensions().map(|import| import.grant.clone()).collect();
                for name in live_imports(sources) {
                    let suffix = format!("/{name}");
                    if extensions().any(|import| import.grant.ends_with(&suffix)) {
                        continue;
                    }
                    match game_import(&name) {
                        Some(import) => names.insert(import.grant.clone()),
                        None => names.insert(name),
                    };
                }
                for import in self.imports.iter().filter(|i| i.grant.contains(":game/")) {
                    let specifier = |quote: char| format!("{quote}{}{quote}", import.grant);
                    let imported = (sources.files.iter()).any(|(_, text)| {
                        text.contains(&specifier('"')) || text.contains(&specifier('\''))
                    });
                    if imported {
                        names.insert(import.grant.clone());
                    }
                }
                names.into_iter().collect()
            }
            None => {
                let names: std::collections::BTreeSet<String> =
                    self.imports.iter().map(|i| i.grant.clone()).collect();
                names.into_iter().collect()
            }
        }
    }

    /// This component, its instances allowed only what both its grants so
    /// far and `grants` allow ([`crate::grants`] says where each is
    /// enforced). Fails, naming the interface and the grant, when the
    /// script imports (or declares it needs) an interface left out: nothing
    /// of it runs. Logs what the script asks for and what it gets.
    pub fn with_grants(&self, grants: &Grants) -> anyhow::Result<ScriptComponent> {
        let grants = self.grants.and(grants);
        let name = &self.name;
        let granted_imports = || match &grants.imports {
            Some(names) => format!(
                "imports = [{}]",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "every interface".to_owned(),
        };
        // A live script's are read from its sources: once.
        let uses = self.uses();
        let missing: Vec<String> = uses
            .iter()
            .filter(|i| !grants.imports(i))
            .map(|i| format!("`{i}`"))
            .collect();
        if !missing.is_empty() {
            anyhow::bail!(
                "script `{name}` imports {}, which its grants do not include ({})",
                missing.join(", "),
                granted_imports()
            );
        }
        if let Some(needs) = &self.needs
            && let Some(missing) = needs.imports.iter().flatten().find(|i| !grants.imports(i))
        {
            anyhow::bail!(
                "script `{name}` declares it needs `{missing}`, which its grants do not \
                 include ({})",
                granted_imports()
            );
        }
        let limits = grants.limit(self.limits);
        let mut granted = if limits == self.limits {
            self.clone()
        } else {
            self.with_limits(limits)?
        };
        if self.live.is_some() {
            let denied: Vec<Import> = self
                .imports
                .iter()
                .filter(|import| !grants.imports(&import.grant))
                .cloned()
                .collect();
            if !denied.is_empty() {
                let linker = self
                    .linker
                    .as_ref()
                    .context("this component was not made by an engine")?;
                let component = self.pre.component();
                let linker = deny(linker, component, self.pre.engine(), &denied, name)?;
                granted.pre = linker
                    .instantiate_pre(component)
                    .map_err(anyhow::Error::from)
                    .context("failed to link the script's runtime without the interfaces its grants leave out")?;
            }
        }
        self.log_grants(&grants, &uses);
        granted.grants = Arc::new(grants);
        Ok(granted)
    }

    /// Logs what the script declared and what it was granted, when either
    /// is not "everything"; warns of each declared need left out.
    fn log_grants(&self, grants: &Grants, uses: &[String]) {
        let name = &self.name;
        let asks = match &self.needs {
            Some(needs) => serde_json::to_string(&**needs).unwrap_or_default(),
            None => "nothing declared".to_owned(),
        };
        if self.needs.is_none() && grants.is_all() {
            return;
        }
        tracing::info!(
            target: "host",
            "grants: `{name}` uses [{}], asks for {asks}; gets {}",
            uses.join(", "),
            grants.summary()
        );
        let Some(needs) = &self.needs else { return };
        let left_out = |key: &str, names: &Option<Vec<String>>, rule: &crate::grants::NameRule| {
            for wanted in names.iter().flatten() {
                if !wanted.contains('*') && !rule.allows(wanted) {
                    tracing::warn!(
                        target: "host",
                        "grants: `{name}` declares it {key} `{wanted}`, which its grants do not \
                         allow: it will be refused"
                    );
                }
            }
        };
        left_out("writes", &needs.writes, &grants.writes);
        left_out("sends on", &needs.send, &grants.send);
        left_out("listens to", &needs.listen, &grants.listen);
        if needs.keys == Some(true) && !grants.keys {
            tracing::warn!(
                target: "host",
                "grants: `{name}` declares it reads keys, which its grants do not allow"
            );
        }
        for kind in needs.jobs.iter().flatten() {
            if !grants.starts_job(kind) {
                tracing::warn!(
                    target: "host",
                    "grants: `{name}` declares it starts `{kind}` jobs, which its grants do not allow"
                );
            }
        }
    }

    /// The extensions of the engine that made it (shared by every component
    /// of that engine).
    pub(crate) fn extensions(&self) -> &Arc<[Extension]> {
        &self.extensions
    }

    /// Why it cannot run in the players' browsers as a predictor (world
    /// `predictor` of `game:engine`), if it cannot.
    pub fn predictor_mismatch(&self) -> Option<String> {
        let component = self.pre.component();
        super::predictor_check::predictor_mismatch(component, component.engine())
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
            needs: None,
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
        arm_deadline(&mut store, self.limits.start_deadline, &self.limits, false);
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
        let shared = RuntimeShared::detached();
        let state = ScriptState::new(self.shared_name(), None, &shared, shared.next_ordinal());
        self.new_store(state)
    }

    /// A store for an instance of this component: its memory and table
    /// limits installed, and a start deadline for instantiation.
    pub(crate) fn new_store(&self, mut state: ScriptState) -> Store<ScriptState> {
        state.limiter = ScriptLimiter::new(&self.limits);
        state.live = self.live.clone();
        state.grant(&self.grants);
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|state| &mut state.limiter);
        if self.limits.update_deadline.is_some() {
            store.epoch_deadline_callback(|mut store| store.data_mut().deadline.on_tick());
            arm_deadline(&mut store, self.limits.start_deadline, &self.limits, false);
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
    /// memory than the engine's limit (its pool reserves no more). Limits
    /// past what its grants allow are lowered to them.
    pub fn with_limits(&self, limits: ScriptLimits) -> anyhow::Result<ScriptComponent> {
        // Never past what its grants allow.
        let limits = self.grants.limit(limits);
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

    /// Whether `other` is this component in every way grants depend on:
    /// its name, code, source, engine (its extensions), limits and grants
    /// so far.
    /// (Both hold what they point to, so no address is reused while they
    /// are compared.)
    pub(crate) fn same_as(&self, other: &ScriptComponent) -> bool {
        self.name == other.name
            && self.digest == other.digest
            && self.source == other.source
            && self.limits == other.limits
            && Arc::ptr_eq(&self.grants, &other.grants)
            && Arc::ptr_eq(&self.extensions, &other.extensions)
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

/// Starts a call's CPU budget of `cpu` in `store`, which may spend the
/// instance's credit if `spends` (see `crate::guest::deadline`): the
/// deadline looks at the call from the next epoch tick on.
pub(crate) fn arm_deadline(
    store: &mut Store<ScriptState>,
    cpu: Duration,
    limits: &ScriptLimits,
    spends: bool,
) {
    store.data_mut().deadline.arm(cpu, limits, spends);
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
