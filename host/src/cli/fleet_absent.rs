//! A host built without the fleet (the CLI's `fleet` feature off): its
//! membership has no value, and `--fleet` is refused in one line saying
//! how to build a host that joins one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use game_host::ScriptComponent;
use game_host_server::{Server, WorldDirectory};

use super::fleet::{FleetArgs, Joining};

/// A host built without the fleet has no membership (`connect` refuses
/// `--fleet` in one line): a type with no value, so that `serve` reads the
/// same either way.
pub enum Membership {}

impl Membership {
    /// Refuses `--fleet`, saying how to build a host that joins one.
    pub fn connect(args: &FleetArgs) -> Result<Option<Membership>> {
        if args.fleet.is_none() {
            return Ok(None);
        }
        anyhow::bail!(
            "--fleet: this host was built without the fleet (Redis): build it with the `fleet` \
             feature (`cargo install --path host --features fleet`)"
        )
    }

    // None of these can be called: there is no membership to call them on.

    pub fn working_dir(&self, _: Option<&Path>) -> Result<PathBuf> {
        match *self {}
    }

    pub fn share_components(&self, _: &Path, _: &[ScriptComponent]) -> Result<()> {
        match *self {}
    }

    pub fn directory(&self) -> Arc<dyn WorldDirectory> {
        match *self {}
    }

    pub fn join(&self, _: Joining<'_>) -> Result<()> {
        match *self {}
    }

    pub fn drain(&self, _: &Server) {
        match *self {}
    }

    pub fn leave(&self, _: &Server) {
        match *self {}
    }
}
