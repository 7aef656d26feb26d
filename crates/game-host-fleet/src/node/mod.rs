//! This server as a node of a fleet ([`Node`]), and the
//! [`WorldDirectory`](game_host_server::WorldDirectory) the server asks.
//!
//! - `beat`: the node's thread: renews its lease, takes the worlds handed to
//!   it, stops copies fenced off, and hands out the worlds of dead nodes.
//! - `claim`: one world handed to this node, put back together from Redis
//!   and resumed.
//! - `drain`: on SIGTERM, every world handed to other nodes live.
//! - `route`: where a world is, for any node to relay a request there,
//!   and where a new world goes.
//! - `directory`: the [`WorldDirectory`](game_host_server::WorldDirectory)
//!   the server asks: ids, worlds entered and abandoned, their logs'
//!   mirror, where a world is.

mod beat;
mod claim;
mod directory;
mod drain;
mod route;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::coordinator::{Conn, Link};
use game_host::ScriptComponent;
use game_host::record::RecordedScript;
use game_host_server::Server;

pub use drain::DrainReport;

/// Loads the scripts a world's log names (see
/// [`RecordedLoader`](game_host_server::resume::RecordedLoader)), from any
/// thread, for as long as the node runs.
pub type SharedLoader =
    Arc<dyn Fn(&RecordedScript) -> Result<ScriptComponent> + Send + Sync + 'static>;

/// This server as a node of a fleet: made before the server starts (it is
/// the server's [`WorldDirectory`](game_host_server::WorldDirectory)), then
/// joined once the server listens.
pub struct Node {
    link: Arc<Link>,
    /// Set once the node joined.
    joined: OnceLock<Joined>,
    draining: AtomicBool,
    /// Set once a drain left the fleet: the lease is no longer renewed.
    left: AtomicBool,
    /// Worlds being resumed here now.
    claiming: Mutex<HashSet<u64>>,
    /// When the lease was last renewed.
    lease_renewed: Mutex<Instant>,
    /// Owners' addresses of worlds asked for lately, for relayed requests.
    routes: Mutex<HashMap<u64, (Option<String>, Instant)>>,
    /// Connections to Redis for lookups, kept between them.
    conns: Mutex<Vec<Conn>>,
}

/// What a node knows once it joined.
struct Joined {
    server: Weak<Server>,
    /// Where this node's control surface is reached (`HOST:PORT`).
    addr: String,
    /// How: `http` or `https`.
    scheme: &'static str,
    loader: SharedLoader,
}

impl Node {
    /// A node of the fleet of `link`, not joined yet: the directory a
    /// server keeps its worlds in (give it to the server's
    /// [`StateConfig`](game_host_server::durable::StateConfig)).
    pub fn new(link: Arc<Link>) -> Arc<Node> {
        Arc::new(Node {
            link,
            joined: OnceLock::new(),
            draining: AtomicBool::new(false),
            left: AtomicBool::new(false),
            claiming: Mutex::default(),
            lease_renewed: Mutex::new(Instant::now()),
            routes: Mutex::default(),
            conns: Mutex::default(),
        })
    }

    /// Joins the fleet as the node reached at `addr` over `scheme` (`http`,
    /// or `https` where the nodes serve TLS), serving `server` (whose
    /// directory this node is); worlds handed to it are loaded with
    /// `loader`. Its threads run until the process ends.
    pub fn join(
        self: &Arc<Self>,
        server: &Arc<Server>,
        addr: String,
        scheme: &'static str,
        loader: SharedLoader,
    ) -> Result<()> {
        let joined = Joined {
            server: Arc::downgrade(server),
            addr,
            scheme,
            loader,
        };
        if self.joined.get().is_some() {
            anyhow::bail!("this node joined its fleet already");
        }
        // Joined once its first lease is taken: a node whose join failed
        // is not taken for one.
        let mut lease = self.link.lease_conn();
        self.renew_at(&mut lease, server, &joined.addr)
            .context("cannot join the fleet: its Redis did not take this node's lease")?;
        if self.joined.set(joined).is_err() {
            anyhow::bail!("this node joined its fleet already");
        }
        std::thread::Builder::new()
            .name("fleet-lease".into())
            .spawn({
                let node = self.clone();
                move || node.keep_lease(lease)
            })
            .context("failed to start the fleet's lease thread")?;
        let conn = self.link.conn();
        std::thread::Builder::new()
            .name("fleet".into())
            .spawn({
                let node = self.clone();
                move || node.run(conn)
            })
            .context("failed to start the fleet's thread")?;
        tracing::info!(
            node = %self.link.node,
            "joined the fleet as {}://{} (lease {} ms)",
            self.scheme(),
            self.addr(),
            self.link.lease.as_millis()
        );
        Ok(())
    }

    /// Where this node's control surface is reached (`HOST:PORT`); empty
    /// until it joined.
    fn addr(&self) -> &str {
        self.joined.get().map_or("", |joined| joined.addr.as_str())
    }

    /// How the nodes are reached: `http`, or `https` (a fleet's nodes all
    /// serve TLS, or none).
    pub(super) fn scheme(&self) -> &'static str {
        self.joined.get().map_or("http", |joined| joined.scheme)
    }

    /// The server this node serves, while it runs (and once joined).
    fn server(&self) -> Option<Arc<Server>> {
        self.joined.get()?.server.upgrade()
    }

    /// This node's id in the fleet.
    pub fn id(&self) -> &str {
        &self.link.node
    }

    /// Whether Redis answered the last time this node asked it.
    pub fn redis_up(&self) -> bool {
        self.link.mirror.up.load(Ordering::Relaxed)
    }

    /// Why this node takes no new worlds, as `/readyz` says it; `None`
    /// when it does.
    pub fn unready(&self) -> Option<&'static str> {
        if self.draining.load(Ordering::Relaxed) {
            Some("draining: its worlds move to other nodes")
        } else if !self.redis_up() {
            Some("the fleet's Redis cannot be reached: worlds play on, their logs wait here")
        } else {
            None
        }
    }
}
