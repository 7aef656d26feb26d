//! Resuming a durable server's worlds (see [`durable`](crate::durable)
//! for what its state directory holds).
//!
//! - `world`: one world made again from its files: its log replayed to its
//!   last whole frame, its players seated again.
//! - `startup`: [`Server::resume`](crate::Server::resume), every world of
//!   the directory that had not ended, resumed at a server's start.

mod startup;
mod world;

use anyhow::Result;
use serde::Serialize;

use crate::world::WorldId;
use game_host::ScriptComponent;
use game_host::record::RecordedScript;

/// Gives the component a log names (checked against its digest), without
/// building anything: a log is data.
pub type RecordedLoader<'a> = dyn Fn(&RecordedScript) -> Result<ScriptComponent> + Sync + 'a;

/// What a server's start resumed from its state directory.
#[derive(Debug, Default, Clone, Serialize)]
pub struct ResumeReport {
    /// Worlds resumed, each with the frame it resumed after.
    pub resumed: Vec<(WorldId, u64)>,
    /// Worlds that could not be resumed, each with one line saying why.
    pub failed: Vec<(WorldId, String)>,
    /// Worlds whose logs ended (they finished or were stopped): not
    /// resumed.
    pub ended: usize,
    /// Seconds the whole resume took.
    pub seconds: f64,
}
