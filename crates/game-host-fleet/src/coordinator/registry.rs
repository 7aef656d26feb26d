//! What the nodes of a fleet share in Redis: who is alive (leases),
//! how much room each has, which worlds each holds, the worlds handed to
//! each, and each world's manifest, logs and components.

use anyhow::{Context, Result};
use redis::{RedisResult, Value};
use serde::{Deserialize, Serialize};

use super::keys::{
    Kind, NEXT_WORLD, NODES, claims_key, component_key, lease_key, log_key, world_key, worlds_key,
};
use super::records::{Assembled, RawRecord, assemble};
use super::scripts::{ASSIGN, CREATE, END};
use super::{Conn, Link};

/// Records read from a log's stream at a time.
const PAGE: usize = 128;

/// What a node says of itself in `fleet:nodes`.
#[derive(Serialize, Deserialize)]
struct NodeInfo {
    addr: String,
    /// The worlds it holds at most (`None`: no limit).
    capacity: Option<usize>,
    draining: bool,
}

/// A node of the fleet, as Redis has it.
#[derive(Debug, Clone)]
pub(crate) struct NodeEntry {
    pub id: String,
    /// Where its control surface listens (`HOST:PORT`).
    pub addr: String,
    /// How many more worlds it takes (`None`: no limit): its capacity less
    /// the worlds Redis says it holds, so that a world placed or
    /// handed to it counts at once.
    pub free: Option<usize>,
    pub draining: bool,
    /// Whether its lease is held.
    pub live: bool,
}

impl NodeEntry {
    /// Whether new or moved worlds may go to it.
    pub fn takes_worlds(&self) -> bool {
        self.live && !self.draining && self.free != Some(0)
    }

    /// Its room, for choosing the node with the most.
    pub fn room(&self) -> usize {
        self.free.unwrap_or(usize::MAX)
    }
}

/// A world, as Redis has it.
#[derive(Debug, Clone)]
pub(crate) struct WorldEntry {
    /// The node that holds it (empty once it ended).
    pub owner: String,
    pub epoch: u64,
    /// Its `world.json`.
    pub manifest: Vec<u8>,
}

impl Link {
    /// Renews this node's lease and says how many worlds it holds at most.
    pub(crate) fn renew(
        &self,
        conn: &mut Conn,
        addr: &str,
        capacity: Option<usize>,
        draining: bool,
    ) -> RedisResult<()> {
        let info = serde_json::to_string(&NodeInfo {
            addr: addr.to_owned(),
            capacity,
            draining,
        })
        .unwrap_or_default();
        let lease = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        conn.run(|con| {
            redis::pipe()
                .cmd("SET")
                .arg(lease_key(&self.node))
                .arg(1)
                .arg("PX")
                .arg(lease)
                .ignore()
                .hset(NODES, &self.node, info)
                .ignore()
                .query(con)
        })
    }

    /// Every node the fleet knows, alive or not.
    pub(crate) fn nodes(&self, conn: &mut Conn) -> RedisResult<Vec<NodeEntry>> {
        let listed: Vec<(String, Vec<u8>)> =
            conn.run(|con| redis::cmd("HGETALL").arg(NODES).query(con))?;
        if listed.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for (id, _) in &listed {
            pipe.exists(lease_key(id)).scard(worlds_key(id));
        }
        let answers: Vec<(bool, usize)> = conn.run(|con| pipe.query(con))?;
        Ok(listed
            .into_iter()
            .zip(answers)
            .map(|((id, info), (live, held))| {
                // What another node wrote is not trusted: one that cannot
                // be read takes no worlds.
                let info: NodeInfo = serde_json::from_slice(&info).unwrap_or(NodeInfo {
                    addr: String::new(),
                    capacity: Some(0),
                    draining: true,
                });
                NodeEntry {
                    id,
                    addr: info.addr,
                    free: info.capacity.map(|capacity| capacity.saturating_sub(held)),
                    draining: info.draining,
                    live,
                }
            })
            .collect())
    }

    /// A world id no node of the fleet ever gave.
    pub(crate) fn next_world_id(&self, conn: &mut Conn) -> RedisResult<u64> {
        conn.run(|con| redis::cmd("INCR").arg(NEXT_WORLD).query(con))
    }

    /// Enters a new world, held by this node at epoch 1.
    pub(crate) fn create_world(
        &self,
        conn: &mut Conn,
        id: u64,
        manifest: &[u8],
    ) -> RedisResult<()> {
        let _: i64 = conn.run(|con| {
            CREATE
                .key(world_key(id))
                .key(worlds_key(&self.node))
                .arg(&self.node)
                .arg(id)
                .arg(manifest)
                .invoke(con)
        })?;
        self.mirror.hold(id, 1);
        Ok(())
    }

    /// Takes world `id`, just entered by this node, out of the fleet again:
    /// it could not start (best effort; its keys expire).
    pub(crate) fn abandon(&self, id: u64) {
        self.mirror.release(id);
        let ended: RedisResult<i64> = self.conn().run(|con| {
            END.key(world_key(id))
                .key(worlds_key(&self.node))
                .key(log_key(id, Kind::Log))
                .key(log_key(id, Kind::Seats))
                .arg(&self.node)
                .arg(1)
                .arg(id)
                .arg(3600)
                .invoke(con)
        });
        if let Err(error) = ended {
            tracing::warn!("world {id} could not be taken out of the fleet: {error}");
        }
    }

    /// World `id`, if the fleet has it.
    pub(crate) fn world(&self, conn: &mut Conn, id: u64) -> RedisResult<Option<WorldEntry>> {
        let (owner, epoch, manifest): (Option<String>, Option<u64>, Option<Vec<u8>>) =
            conn.run(|con| {
                redis::cmd("HMGET")
                    .arg(world_key(id))
                    .arg("owner")
                    .arg("epoch")
                    .arg("manifest")
                    .query(con)
            })?;
        Ok(match (owner, epoch, manifest) {
            (Some(owner), Some(epoch), Some(manifest)) => Some(WorldEntry {
                owner,
                epoch,
                manifest,
            }),
            _ => None,
        })
    }

    /// Hands world `id` from node `from` to node `to`, which is told to
    /// resume it; its new epoch. Refused (`FENCED`) if `from` no longer
    /// holds it.
    pub(crate) fn assign(
        &self,
        conn: &mut Conn,
        id: u64,
        from: &str,
        to: &str,
    ) -> RedisResult<u64> {
        conn.run(|con| {
            ASSIGN
                .key(world_key(id))
                .key(worlds_key(from))
                .key(worlds_key(to))
                .key(claims_key(to))
                .arg(from)
                .arg(to)
                .arg(id)
                .invoke(con)
        })
    }

    /// The worlds handed to this node since the last call (at most 256).
    pub(crate) fn take_claims(&self, conn: &mut Conn) -> RedisResult<Vec<u64>> {
        let claims: Option<Vec<Vec<u8>>> = conn.run(|con| {
            redis::cmd("LPOP")
                .arg(claims_key(&self.node))
                .arg(256)
                .query(con)
        })?;
        Ok(claims
            .unwrap_or_default()
            .iter()
            .filter_map(|id| std::str::from_utf8(id).ok()?.parse().ok())
            .collect())
    }

    /// The worlds node `node` holds.
    pub(crate) fn worlds_of(&self, conn: &mut Conn, node: &str) -> RedisResult<Vec<u64>> {
        let ids: Vec<String> =
            conn.run(|con| redis::cmd("SMEMBERS").arg(worlds_key(node)).query(con))?;
        let mut ids: Vec<u64> = ids.iter().filter_map(|id| id.parse().ok()).collect();
        ids.sort();
        Ok(ids)
    }

    /// Takes the right to hand out dead node `node`'s worlds (one node
    /// does it), for a while.
    pub(crate) fn reap_lock(&self, conn: &mut Conn, node: &str) -> RedisResult<bool> {
        let hold = u64::try_from(self.lease.as_millis() * 5).unwrap_or(u64::MAX);
        let taken: Option<String> = conn.run(|con| {
            redis::cmd("SET")
                .arg(format!("fleet:reap:{node}"))
                .arg(&self.node)
                .arg("NX")
                .arg("PX")
                .arg(hold)
                .query(con)
        })?;
        Ok(taken.is_some())
    }

    /// Forgets dead node `node`, once its worlds were handed out.
    pub(crate) fn forget(&self, conn: &mut Conn, node: &str) -> RedisResult<()> {
        conn.run(|con| {
            redis::pipe()
                .hdel(NODES, node)
                .ignore()
                .del(claims_key(node))
                .ignore()
                .query(con)
        })
    }

    /// Leaves the fleet: this node's lease goes, so that the live nodes
    /// hand out whatever it still holds at once (and then forget it).
    pub(crate) fn leave(&self, conn: &mut Conn) -> RedisResult<()> {
        conn.run(|con| redis::cmd("DEL").arg(lease_key(&self.node)).query(con))
    }

    /// Keeps a component's bytes by their SHA-256 (once).
    pub(crate) fn keep_component(
        &self,
        conn: &mut Conn,
        sha256: &str,
        bytes: &[u8],
    ) -> RedisResult<()> {
        conn.run(|con| {
            redis::cmd("SET")
                .arg(component_key(sha256))
                .arg(bytes)
                .arg("NX")
                .query(con)
        })
    }

    /// A component kept by its SHA-256 (checked by whoever loads it).
    pub(crate) fn component(&self, conn: &mut Conn, sha256: &str) -> RedisResult<Option<Vec<u8>>> {
        conn.run(|con| redis::cmd("GET").arg(component_key(sha256)).query(con))
    }

    /// World `id`'s log of `kind`, put back together from its records and
    /// checked (at most `max` bytes).
    pub(crate) fn read_log(
        &self,
        conn: &mut Conn,
        id: u64,
        kind: Kind,
        max: u64,
    ) -> Result<Assembled> {
        let key = log_key(id, kind);
        let mut records: Vec<RawRecord> = Vec::new();
        let mut from = "-".to_owned();
        let mut read = 0u64;
        loop {
            let page: Value = conn
                .run(|con| {
                    redis::cmd("XRANGE")
                        .arg(&key)
                        .arg(&from)
                        .arg("+")
                        .arg("COUNT")
                        .arg(PAGE)
                        .query(con)
                })
                .with_context(|| format!("failed to read `{key}` from the fleet's Redis"))?;
            let page = parse_records(page).with_context(|| format!("`{key}` is not a log"))?;
            let Some((last, _)) = page.last() else {
                break;
            };
            from = format!("({last}");
            let done = page.len() < PAGE;
            read += page
                .iter()
                .flat_map(|(_, fields)| fields.iter().map(|(_, value)| value.len() as u64))
                .sum::<u64>();
            // Records cut back by later owners count too, up to twice the
            // bound: past it, the stream is not read on.
            if read > max.saturating_mul(2) {
                anyhow::bail!(
                    "`{key}` holds more than {} MiB",
                    max.saturating_mul(2) >> 20
                );
            }
            records.extend(page);
            if done {
                break;
            }
        }
        assemble(&records, max).with_context(|| format!("`{key}` cannot be read back"))
    }
}

/// A stream's entries as XRANGE gives them: `[[id, [field, value, ...]], ...]`.
fn parse_records(value: Value) -> Result<Vec<RawRecord>> {
    let Value::Array(entries) = value else {
        anyhow::bail!("Redis's answer is not a list");
    };
    entries
        .into_iter()
        .map(|entry| {
            let Value::Array(mut parts) = entry else {
                anyhow::bail!("an entry is not a list");
            };
            let (Some(Value::Array(fields)), Some(id)) = (parts.pop(), parts.pop()) else {
                anyhow::bail!("an entry is not an id and its fields");
            };
            let id: String = redis::from_redis_value(&id)?;
            let mut pairs = Vec::new();
            let mut fields = fields.into_iter();
            while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
                pairs.push((
                    redis::from_redis_value::<String>(&name)?,
                    redis::from_redis_value::<Vec<u8>>(&value)?,
                ));
            }
            Ok((id, pairs))
        })
        .collect()
}
