//! Replacing the code of a running instance at a frame boundary.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use uuid::Uuid;

use super::{Prepared, Preparing, Runtime};
use crate::error::ScriptError;
use crate::guest::engine::ScriptComponent;

/// What a successful [`Runtime::hot_swap`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapReport {
    /// The script's name.
    pub script: String,
    /// The instance, whose id the new code keeps.
    pub instance: Uuid,
    /// Size of the old component, in bytes.
    pub old_size: usize,
    /// Size of the new component, in bytes.
    pub new_size: usize,
    /// Whether state was handed over (`save-state` then `restore-state`);
    /// otherwise the new code started with `entrypoint`.
    pub restored: bool,
    /// Time the frame thread spent on the swap (instantiation, unless it
    /// was prepared elsewhere, and the hand-over calls; compiling happens
    /// before, elsewhere).
    pub pause: Duration,
}

impl Runtime {
    /// Swaps the instance `id` over to `component`, keeping its id and the
    /// world state. Call it between frames.
    ///
    /// The new code is instantiated; if the old instance exports
    /// `save-state` and the new one `restore-state`, the state is handed over,
    /// else the new code starts with `entrypoint`. Only when that succeeded
    /// are the old instance's subscriptions and waits withdrawn and the old
    /// instance dropped; the new one's requests then take effect from the
    /// next frame. On any failure (instantiation, a trap in the hand-over or
    /// in `entrypoint`) the old instance keeps running unchanged and the
    /// error is returned.
    pub fn hot_swap(&mut self, id: Uuid, component: &ScriptComponent) -> Result<SwapReport> {
        let started = Instant::now();
        let failed = || failed(component.name());
        let prepared = self.prepare_swap(id, component)?;
        let prepared = prepared.build().with_context(failed)?;
        let mut report = self.swap_prepared(prepared)?;
        report.pause = started.elapsed();
        Ok(report)
    }

    /// The first part of [`Runtime::hot_swap`] in parts, as a start comes
    /// (see [`Starts::prepare`](super::Starts::prepare)): the new version's grants (no more than
    /// the old one was given), its engine's job kinds and its place among
    /// this runtime's instances, taken now. [`Preparing::build`] makes it,
    /// on any thread, and [`Starts::swap`](super::Starts::swap) swaps it in.
    pub(super) fn prepare_swap(
        &mut self,
        id: Uuid,
        component: &ScriptComponent,
    ) -> Result<Preparing> {
        let slot = self
            .slots
            .slot_of(id)
            .with_context(|| format!("no running script instance {id}"))?;
        // The new version gets no more than the old one was given (by the
        // game's component, on top of the runtime's policy).
        let granted = self
            .slots
            .get_mut(slot)
            .expect("slot_of found it")
            .component()
            .grants()
            .clone();
        let failed = || failed(component.name());
        let component = component.with_grants(&granted).with_context(failed)?;
        self.reserve(&component, Some(id)).with_context(failed)
    }

    /// The last part of a hot swap in parts: hands the running instance's
    /// state over to `prepared` (from this runtime's
    /// [`Starts::prepare_swap`](super::Starts::prepare_swap)) as [`Runtime::hot_swap`] does, if that
    /// instance still runs.
    pub(super) fn swap_prepared(&mut self, prepared: Prepared) -> Result<SwapReport> {
        let started = Instant::now();
        let mut new = self.take_prepared(prepared, true)?;
        let component = new.component().clone();
        let id = new.id();
        let failed = || failed(component.name());
        let Some(slot) = self.slots.slot_of(id) else {
            anyhow::bail!(
                "hot-swap of script `{}` failed: instance {id} stopped before its new version \
                 was ready",
                component.name()
            );
        };
        let trapped = |error: Box<ScriptError>| anyhow::Error::new(*error).context(failed());
        let old = self.slots.get_mut(slot).expect("slot_of found it");
        // What the old version spawned is the new one's, from its hand-over on.
        new.adopt(&old.spawned_entities());
        let saved = if component.is_stateful() {
            old.save_state().map_err(trapped)?
        } else {
            None
        };
        let restored = saved.is_some();
        match saved {
            Some(state) => new.restore_state(state),
            None => new.start(),
        }
        .map_err(trapped)?;

        // Commit: the old instance and everything it held on the host go.
        new.succeed(old);
        let old_size = old.component().size();
        self.release_host_state(slot);
        if let Some(mut old) = self.slots.replace(slot, new) {
            self.keep_profile(&mut old);
        } // drops the old instance
        self.apply_commands_of(slot);
        Ok(SwapReport {
            script: component.name().to_owned(),
            instance: id,
            old_size,
            new_size: component.size(),
            restored,
            pause: started.elapsed(),
        })
    }
}

/// What a failed swap of script `name` says.
fn failed(name: &str) -> String {
    format!("hot-swap of script `{name}` failed; the old version keeps running")
}
