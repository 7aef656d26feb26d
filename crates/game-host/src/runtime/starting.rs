//! How an instance comes to life: [`Runtime::spawn`] in one call, or in
//! three parts, so that an embedder can do the costly middle one away from
//! its frame (a Bevy game's step): [`Starts::prepare`](super::Starts::prepare) takes what must
//! come from the runtime, in the order its scripts start; on any thread,
//! [`Preparing::build`] instantiates the component and has a live Python or
//! JavaScript runtime compile the script's sources (`game:live/loader.
//! prepare`); [`Starts::start`](super::Starts::start) then runs its `entrypoint`,
//! which must see the scene of a frame boundary. A hot swap comes in the
//! same parts (`swap`).

use std::sync::Arc;

use anyhow::{Result, bail};
use uuid::Uuid;

use super::{Failed, Runtime};
use crate::guest::RuntimeShared;
use crate::guest::engine::ScriptComponent;
use crate::guest::instance::ScriptInstance;

/// A script about to start, with all it takes from its runtime: made by
/// [`Starts::prepare`](super::Starts::prepare), built by [`Preparing::build`] on any thread.
pub struct Preparing {
    /// The component, with its grants.
    component: ScriptComponent,
    shared: RuntimeShared,
    id: Option<Uuid>,
    ordinal: u64,
    times_index: u32,
}

/// A script instantiated and ready for its `entrypoint`
/// ([`Starts::start`](super::Starts::start)).
pub struct Prepared {
    pub(super) instance: ScriptInstance,
    /// What its runtime shares: the runtime it must start in.
    shared: RuntimeShared,
    /// Whether it is the new version of a running instance (its id kept),
    /// for [`Starts::swap`](super::Starts::swap), not a start.
    pub(super) swap: bool,
}

impl Preparing {
    /// Instantiates the component and, for a live script, compiles its
    /// sources (see [`ScriptInstance::prepare`]): the part of starting a
    /// script that needs neither the runtime nor its scene, and takes
    /// milliseconds for Python and JavaScript.
    pub fn build(self) -> Result<Prepared> {
        let (shared, swap) = (self.shared.clone(), self.id.is_some());
        let mut instance = self.instantiate()?;
        instance.prepare()?;
        Ok(Prepared {
            instance,
            shared,
            swap,
        })
    }

    fn instantiate(self) -> Result<ScriptInstance> {
        let mut instance =
            ScriptInstance::new(&self.component, &self.shared, self.id, self.ordinal)?;
        instance.set_times_index(self.times_index);
        Ok(instance)
    }
}

impl Runtime {
    /// Instantiates `component`, runs its `entrypoint` and returns the new
    /// instance's id. Subscriptions made in `entrypoint` start with the next
    /// frame. If `entrypoint` traps, the instance is discarded and the
    /// [`ScriptError`](crate::ScriptError) is both recorded and returned.
    pub fn spawn(&mut self, component: &ScriptComponent) -> Result<Uuid> {
        let prepared = self.prepare(component)?.build()?;
        self.start_prepared(prepared)
    }

    /// The first part of starting `component` as [`Runtime::spawn`] does:
    /// its grants, its engine's job kinds, and its place among this
    /// runtime's instances (its random numbers come from it), taken now.
    /// Scripts prepared in some order get the random numbers they would
    /// have got spawned in that order.
    pub(super) fn prepare(&mut self, component: &ScriptComponent) -> Result<Preparing> {
        self.reserve(component, None)
    }

    /// The last part of starting a script: runs the `entrypoint` of an
    /// instance built from this runtime's [`Starts::prepare`](super::Starts::prepare), as
    /// [`Runtime::spawn`] does.
    pub(super) fn start_prepared(&mut self, prepared: Prepared) -> Result<Uuid> {
        let instance = self.take_prepared(prepared, false)?;
        let id = instance.id();
        if let Err(failed) = self.start(instance) {
            return Err(failed.1.into());
        }
        Ok(id)
    }

    /// The instance of `prepared`, if it was prepared by this runtime for a
    /// swap (`swap`) or a start.
    pub(super) fn take_prepared(&self, prepared: Prepared, swap: bool) -> Result<ScriptInstance> {
        let name = prepared.instance.component().name();
        if !prepared.shared.same_runtime(&self.shared) {
            bail!("script `{name}` was prepared for another runtime");
        }
        match (prepared.swap, swap) {
            (true, false) => bail!("script `{name}` was prepared for a swap, not a start"),
            (false, true) => bail!("script `{name}` was prepared for a start, not a swap"),
            _ => Ok(prepared.instance),
        }
    }

    /// Instantiates `component` (`id` kept by a swap or a restart) on this
    /// thread.
    pub(super) fn instantiate(
        &mut self,
        component: &ScriptComponent,
        id: Option<Uuid>,
    ) -> Result<ScriptInstance> {
        self.reserve(component, id)?.instantiate()
    }

    /// What an instance of `component` takes from the runtime, after
    /// registering the job kinds of its engine's extensions the first time
    /// this runtime starts a script of that engine (kinds it has already
    /// are kept): every way an instance comes to life goes through here.
    pub(super) fn reserve(
        &mut self,
        component: &ScriptComponent,
        id: Option<Uuid>,
    ) -> Result<Preparing> {
        let component = self.granting.apply(component)?;
        let extensions = component.extensions();
        if !self
            .extensions_added
            .iter()
            .any(|added| Arc::ptr_eq(added, extensions))
        {
            for extension in extensions.iter() {
                extension.add_jobs(&mut self.jobs)?;
            }
            self.extensions_added.push(extensions.clone());
        }
        let times_index = self.times.index_of(&component.shared_name());
        Ok(Preparing {
            component,
            shared: self.shared.clone(),
            id,
            ordinal: self.shared.next_ordinal(),
            times_index,
        })
    }

    /// Runs a new instance's `entrypoint`; if it returns, the instance takes
    /// a slot and the commands it left apply. A trap is recorded and
    /// returned with the instance (which a restart policy may start again).
    pub(super) fn start(&mut self, mut instance: ScriptInstance) -> Result<u32, Failed> {
        if let Err(error) = instance.start() {
            self.record(*error.clone());
            return Err(Box::new((instance, *error)));
        }
        instance.end_frame();
        let slot = self.slots.insert(instance);
        self.apply_commands_of(slot);
        Ok(slot)
    }
}

// Both go to another thread and back.
const _: () = {
    const fn send<T: Send>() {}
    send::<Preparing>();
    send::<Prepared>();
};
