//! [`Extension`]: what a game adds to the engine from outside the core, as
//! one value: a WIT interface scripts may import, and the background job
//! kinds behind it.

use std::fmt;
use std::sync::Arc;

use anyhow::Result;
use wasmtime::component::Linker;

use crate::guest::ScriptState;
use crate::jobs::{Job, Jobs};

/// Links an extension's WIT interface into the engine's linker.
pub type LinkFn = fn(&mut Linker<ScriptState>) -> wasmtime::Result<()>;

/// Registers one job kind with a runtime's jobs.
type AddJob = Arc<dyn Fn(&mut Jobs) -> Result<()> + Send + Sync>;

/// A host extension, given to the engine in
/// [`EngineOptions::extensions`](super::EngineOptions::extensions).
///
/// The engine links its interface, so scripts that import it load; every
/// runtime that starts an instance of such a script registers its job kinds
/// first (once per runtime), so a request never finds its kind missing.
///
/// ```ignore
/// Extension::new("terrain", link).with_job(Terrain)
/// ```
#[derive(Clone)]
pub struct Extension {
    name: &'static str,
    link: LinkFn,
    jobs: Vec<AddJob>,
}

impl Extension {
    /// An extension named `name` whose interface `link` adds.
    pub fn new(name: &'static str, link: LinkFn) -> Self {
        Extension {
            name,
            link,
            jobs: Vec::new(),
        }
    }

    /// Adds job kind `J`, run by `job`, to every runtime that runs a
    /// script of this engine (unless the runtime has that kind already).
    pub fn with_job<J: Job + Clone>(mut self, job: J) -> Self {
        self.jobs.push(Arc::new(move |jobs: &mut Jobs| {
            if jobs.registry().kind_of::<J>().is_some() {
                return Ok(());
            }
            jobs.register(job.clone())
        }));
        self
    }

    /// The extension's name (for errors and listings).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Links the interface.
    pub(crate) fn link(&self, linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
        (self.link)(linker)
    }

    /// Registers the job kinds with a runtime's jobs.
    pub(crate) fn add_jobs(&self, jobs: &mut Jobs) -> Result<()> {
        self.jobs.iter().try_for_each(|add| add(jobs))
    }
}

impl fmt::Debug for Extension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.name)
            .field("jobs", &self.jobs.len())
            .finish()
    }
}
