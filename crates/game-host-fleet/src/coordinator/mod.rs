//! The fleet's coordinator: Redis, which holds what the nodes of a fleet
//! share (the "fleet's Redis" of the messages an operator reads). Nothing
//! here runs a consensus of its own: a node's lease is a key with an
//! expiry, a world's owner is a field only Redis's own scripts (`scripts`)
//! change, and the durability of a world's log is Redis's.
//!
//! ```text
//! fleet:nodes                 hash: node id -> {"addr", "free"} (JSON)
//! fleet:lease:NODE            "1", expiring: the node is alive while it is there
//! fleet:node:NODE:worlds      set: the worlds the node holds
//! fleet:node:NODE:claims      list: worlds handed to the node to resume
//! fleet:next-world            the last world id given
//! fleet:world:ID              hash: owner, epoch, manifest (its world.json)
//! fleet:world:ID:log          stream: the world's log, in checked records
//! fleet:world:ID:seats        stream: its seat log, the same way
//! fleet:component:SHA         a component's bytes, by its SHA-256
//! ```
//!
//! - [`Link`]: a node's link to Redis ([`FleetConfig`]).
//! - `keys`: where each thing is kept in Redis.
//! - `heal`: what the mirror sends again when Redis lost data.
//! - `conn`: one thread's connection, made again after it fails.
//! - `scripts`: the Redis-side scripts that fence a world's writes.
//! - `records`: a log's records read back and checked.
//! - [`Mirror`](mirror::Mirror): every log line a node writes, copied to the
//!   coordinator off the loop threads, with a bounded buffer while it
//!   cannot be reached.
//! - `registry`: nodes, leases, worlds and claims.

mod conn;
mod heal;
mod keys;
mod link;
pub(crate) mod mirror;
mod records;
mod registry;
mod scripts;

pub(crate) use conn::Conn;
pub(crate) use keys::Kind;
pub use link::{FleetConfig, Link};
pub(crate) use registry::NodeEntry;
