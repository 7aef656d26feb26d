//! One world handed to this node: its manifest, log and seat log read
//! back from Redis and checked (see [`coordinator`](crate::coordinator)),
//! laid out in this node's state directory as a durable world's files, the
//! components its log names fetched by digest, and the world resumed from
//! them as a server's start resumes one.

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use super::Node;
use crate::coordinator::mirror::MAX_BUFFER;
use crate::coordinator::{Conn, Kind};
use game_host::ScriptComponent;
use game_host::hex::hex;
use game_host::record::{RecordedScript, kept};
use game_host_server::{HandedWorld, Server, WorldId};

/// The largest log read back (as from a state directory).
const MAX_LOG: u64 = 1 << 30;

/// The largest seat log read back.
const MAX_SEATS: u64 = MAX_BUFFER as u64;

impl Node {
    /// Resumes world `id`, handed to this node: the frame it resumed after.
    pub(super) fn claim(&self, server: &Server, conn: &mut Conn, id: u64) -> Result<u64> {
        let link = &self.link;
        let entry = link
            .world(conn, id)
            .context("the fleet's Redis could not be read")?
            .context("the fleet has no such world")?;
        if entry.owner != link.node {
            bail!("it is held by node `{}` now", entry.owner);
        }
        let loader = &self
            .joined
            .get()
            .context("this node has not joined its fleet")?
            .loader;
        let components = server
            .state_dir()
            .context("this node keeps no worlds")?
            .to_owned();
        // An older copy of this world still here (from before it moved away)
        // stops, and its last lines are written, before its folder goes: it
        // is released first, so none of them is copied, and written before
        // the world is held again, so none goes out at the new epoch.
        link.mirror.release(id);
        server.clear_world(WorldId(id))?;
        let log = link.read_log(conn, id, Kind::Log, MAX_LOG)?;
        if let Some(damage) = &log.damage {
            tracing::warn!(
                "world {id}: its log in the fleet's Redis is damaged ({damage}); it resumes from \
                 the last whole frame before the damage"
            );
        }
        if log.bytes.is_empty() {
            bail!("its log in the fleet's Redis is empty");
        }
        let seats = link.read_log(conn, id, Kind::Seats, MAX_SEATS)?;
        if let Some(damage) = &seats.damage {
            tracing::warn!("world {id}: its seat log in the fleet's Redis is damaged ({damage})");
        }
        let world = HandedWorld {
            manifest: entry.manifest,
            log: log.bytes,
            seats: seats.bytes,
        };
        // Its writes go to Redis at its new epoch from here on.
        link.mirror.hold(id, entry.epoch);
        let load = |recorded: &RecordedScript| -> Result<ScriptComponent> {
            self.fetch_component(&components, &recorded.sha256);
            loader(recorded)
        };
        server
            .resume_handed(WorldId(id), &world, &load)
            .inspect_err(|_| link.mirror.release(id))
    }

    /// Puts the component of digest `sha256` in the state directory `dir`
    /// from Redis, if it is kept there and not here yet (a loader
    /// that finds none says so).
    fn fetch_component(&self, dir: &std::path::Path, sha256: &str) {
        let path = dir.join("components").join(format!("{sha256}.wasm"));
        if path.exists() || sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return;
        }
        let fetched = self.link.component(&mut self.link.conn(), sha256);
        match fetched {
            Ok(Some(bytes)) if hex(&Sha256::digest(&bytes)).eq_ignore_ascii_case(sha256) => {
                if let Err(error) = kept::store(dir, &bytes) {
                    tracing::warn!("component {sha256} could not be kept here: {error:#}");
                }
            }
            Ok(Some(_)) => {
                tracing::warn!("the fleet's Redis holds component {sha256} with other bytes")
            }
            Ok(None) => {}
            Err(error) => tracing::warn!("component {sha256} could not be fetched: {error}"),
        }
    }
}
