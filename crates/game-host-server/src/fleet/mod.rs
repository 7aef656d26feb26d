//! A fleet: servers on many machines, coordinated through one engine
//! (Redis; see [`engine`](crate::engine)). Each server is a node: it holds
//! a lease, says how much room it has, and keeps its worlds' logs in the
//! engine as they run, so that any node can resume any world.
//!
//! - `beat`: the node's thread: renews its lease, takes the worlds handed to
//!   it, stops copies fenced off, and hands out the worlds of dead nodes.
//! - `claim`: one world handed to this node, put back together from the
//!   engine and resumed.
//! - `drain`: on SIGTERM, every world handed to other nodes live.
//! - `route`: where a world is, for any node to redirect a request there,
//!   and where a new world goes.

mod beat;
mod claim;
mod drain;
mod route;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::Server;
use crate::engine::Link;
use game_host::ScriptComponent;
use game_host::record::RecordedScript;

pub use drain::DrainReport;

/// Loads the scripts a world's log names (see
/// [`ScriptLoader`](crate::resume::ScriptLoader)), from any
/// thread, for as long as the node runs.
pub type SharedLoader =
    Arc<dyn Fn(&RecordedScript) -> Result<ScriptComponent> + Send + Sync + 'static>;

/// This server as a node of a fleet.
pub struct Node {
    link: Arc<Link>,
    server: Weak<Server>,
    /// Where this node's control surface is reached (`HOST:PORT`).
    addr: String,
    loader: SharedLoader,
    draining: AtomicBool,
    /// Set once a drain left the fleet: the lease is no longer renewed.
    left: AtomicBool,
    /// Worlds being resumed here now.
    claiming: Mutex<HashSet<u64>>,
    /// When the lease was last renewed.
    lease_renewed: Mutex<Instant>,
    /// Owners' addresses of worlds asked for lately, for redirects.
    routes: Mutex<HashMap<u64, (Option<String>, Instant)>>,
    /// Connections to the engine for lookups, kept between them.
    conns: Mutex<Vec<crate::engine::Conn>>,
}

impl Node {
    /// Joins the fleet of `link` as the node reached at `addr`, serving
    /// `server`, whose worlds it keeps in the engine; worlds handed to it
    /// are loaded with `loader`. Its thread runs until the process ends.
    pub fn join(
        link: Arc<Link>,
        server: &Arc<Server>,
        addr: String,
        loader: SharedLoader,
    ) -> Result<Arc<Node>> {
        let node = Arc::new(Node {
            link,
            server: Arc::downgrade(server),
            addr,
            loader,
            draining: AtomicBool::new(false),
            left: AtomicBool::new(false),
            claiming: Mutex::default(),
            lease_renewed: Mutex::new(Instant::now()),
            routes: Mutex::default(),
            conns: Mutex::default(),
        });
        let mut lease = node.link.lease_conn();
        node.renew(&mut lease, server)
            .context("cannot join the fleet: its engine did not take this node's lease")?;
        std::thread::Builder::new()
            .name("fleet-lease".into())
            .spawn({
                let node = node.clone();
                move || node.keep_lease(lease)
            })
            .context("failed to start the fleet's lease thread")?;
        let conn = node.link.conn();
        std::thread::Builder::new()
            .name("fleet".into())
            .spawn({
                let node = node.clone();
                move || node.run(conn)
            })
            .context("failed to start the fleet's thread")?;
        tracing::info!(
            node = %node.link.node,
            "joined the fleet as http://{} (lease {} ms)",
            node.addr,
            node.link.lease.as_millis()
        );
        Ok(node)
    }

    /// This node's id in the fleet.
    pub fn id(&self) -> &str {
        &self.link.node
    }

    /// Whether the engine answered the last time this node asked it.
    pub fn engine_up(&self) -> bool {
        self.link.mirror.up.load(Ordering::Relaxed)
    }

    /// Why this node takes no new worlds, as `/readyz` says it; `None`
    /// when it does.
    pub fn unready(&self) -> Option<&'static str> {
        if self.draining.load(Ordering::Relaxed) {
            Some("draining: its worlds move to other nodes")
        } else if !self.engine_up() {
            Some("the fleet's engine cannot be reached: worlds play on, their logs wait here")
        } else {
            None
        }
    }
}
