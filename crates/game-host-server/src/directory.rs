//! [`WorldDirectory`]: where a server's worlds are known beyond its own
//! process. A server alone has none: it numbers its worlds itself and
//! keeps them in its state directory. A node of a fleet has the fleet's:
//! world ids come from it, a world started here is entered there (and its
//! logs copied there, so that any node resumes it), and a request for a
//! world another node holds, or a new world another node has more room
//! for, is sent there.
//!
//! The server asks only this trait; the Redis fleet implements it in its
//! own crate (`game-host-fleet`), as the core's [`LogMirror`] is asked by
//! the journal and implemented by the fleet's mirror. Every method but
//! [`WorldDirectory::node`] and [`WorldDirectory::unready`] may block on the
//! network: the server calls them off its loop threads and off the control
//! surface's event loop.

use std::sync::Arc;

use anyhow::Result;
use game_host::record::LogMirror;

/// What a fleet tells a server about its worlds (see the module's
/// documentation).
pub trait WorldDirectory: Send + Sync + 'static {
    /// This server's name in the directory (for logs).
    fn node(&self) -> &str;

    /// The id of a new world: unique across the fleet, never reused.
    fn next_world_id(&self) -> Result<u64>;

    /// World `id`, started on this server, entered in the directory with
    /// its manifest (`world.json`'s bytes), as held here.
    fn create(&self, id: u64, manifest: &[u8]) -> Result<()>;

    /// World `id`, entered but not kept after all (its files could not be
    /// written): taken out again.
    fn abandon(&self, id: u64);

    /// What copies every world's log lines to the directory as they are
    /// written.
    fn mirror(&self) -> Arc<dyn LogMirror>;

    /// The address (`HOST:PORT`) of the live server that holds world `id`,
    /// when that is another one; `None` when no server holds it, or this
    /// one does.
    fn locate(&self, id: u64) -> Option<String>;

    /// The address of the server a new world should start on instead of
    /// this one (which has `free_here` slots free, `None` for no bound):
    /// one with more room, if any.
    fn place_elsewhere(&self, free_here: Option<usize>) -> Option<String>;

    /// The addresses of the fleet's other live nodes that are not
    /// draining, those with the most room for worlds first: where a player
    /// this server has no room for may find a seat (a node with no room
    /// for another world may still have seats in its worlds).
    fn others(&self) -> Vec<String>;

    /// Why this server takes no new worlds from the directory's side, as
    /// `/readyz` says it (draining, or the directory cannot be reached);
    /// `None` when it does.
    fn unready(&self) -> Option<&'static str>;

    /// Brings the fleet's gauges of `metrics` up to date (before `/metrics`
    /// answers).
    fn publish(&self, metrics: &crate::FleetMetrics);
}
