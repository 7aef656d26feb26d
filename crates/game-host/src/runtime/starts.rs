//! [`Starts`]: a script started, or swapped in, in parts
//! (`runtime.starts()`), so that what is slow (making the instance) runs
//! on any thread while the runtime's own thread only takes its place and
//! runs its `entrypoint` or hand-over. [`Runtime::spawn`] and
//! [`Runtime::hot_swap`] are the parts in a row.

use anyhow::Result;
use uuid::Uuid;

use super::Runtime;
use super::starting::{Prepared, Preparing};
use super::swap::SwapReport;
use crate::guest::engine::ScriptComponent;

impl Runtime {
    /// Starts and swaps in parts.
    pub fn starts(&mut self) -> Starts<'_> {
        Starts { runtime: self }
    }
}

/// A [`Runtime`]'s starts and swaps in parts (see [`Runtime::starts`]).
pub struct Starts<'a> {
    runtime: &'a mut Runtime,
}

impl Starts<'_> {
    /// The first part of starting `component` as [`Runtime::spawn`] does:
    /// its grants, its engine's job kinds, and its place among the
    /// runtime's instances (its random numbers come from it), taken now.
    /// Scripts prepared in some order get the random numbers they would
    /// have got spawned in that order. [`Preparing::build`] makes the
    /// instance, on any thread.
    pub fn prepare(self, component: &ScriptComponent) -> Result<Preparing> {
        self.runtime.prepare(component)
    }

    /// The last part of starting a script: runs the `entrypoint` of an
    /// instance built from this runtime's [`Starts::prepare`].
    pub fn start(self, prepared: Prepared) -> Result<Uuid> {
        self.runtime.start_prepared(prepared)
    }

    /// The first part of [`Runtime::hot_swap`]: the new version's grants
    /// (no more than the old one was given), its engine's job kinds and
    /// its place among the runtime's instances, taken now.
    pub fn prepare_swap(self, id: Uuid, component: &ScriptComponent) -> Result<Preparing> {
        self.runtime.prepare_swap(id, component)
    }

    /// The last part of a swap: hands over to an instance built from
    /// [`Starts::prepare_swap`], as [`Runtime::hot_swap`] does.
    pub fn swap(self, prepared: Prepared) -> Result<SwapReport> {
        self.runtime.swap_prepared(prepared)
    }
}
