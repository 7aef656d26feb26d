//! # game-host-fleet — servers on many machines as one
//!
//! A fleet: `game-host-server` servers on many machines, coordinated
//! through one Redis (the coordinator). Each server is a node: it holds a
//! lease, says how much room it has, and keeps its worlds' logs in Redis
//! as they run, so that any node can resume any world. New worlds go to the
//! node with the most room, any node answers for any world (relaying its
//! requests and forwarding its players' streams there), a world whose node dies resumes on
//! another from its log, and a drain hands a node's worlds to the others
//! live.
//!
//! The server knows none of this: it asks a
//! [`WorldDirectory`](game_host_server::WorldDirectory), which [`Node`]
//! is, and hands worlds in and out through the server's own methods
//! (`game_host_server::HandedWorld`). A host is built with or without this
//! crate (the CLI's `fleet` feature).
//!
//! - [`coordinator`]: what the nodes share in Redis, and a node's
//!   [`Link`] to it ([`FleetConfig`]).
//! - `node`: this server as a node ([`Node`]): its lease, the worlds handed
//!   to it, its drain, and where a world is.

pub mod coordinator;
mod node;

pub use coordinator::{FleetConfig, Link};
pub use node::{DrainReport, Node, SharedLoader};
