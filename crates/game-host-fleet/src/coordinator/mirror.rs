//! [`Mirror`]: every line a node writes to a world's log or seat log,
//! copied to the fleet's Redis by one thread, in order, each batch as one
//! checked record (see `records`) appended through the fencing script.
//!
//! The loop threads never wait on it: the log writer hands it what it
//! wrote and returns. While Redis cannot be reached, records wait, up
//! to [`MAX_BUFFER`] bytes in all; past that, the world whose batch does
//! not fit stops being copied (it plays on, durable on this node's disk
//! alone), said once and counted. A write refused as fenced means another
//! node holds the world now: its copy here is told to stop.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::conn::{Conn, unreachable};
use super::keys::{Kind, end_field, log_key, world_key, worlds_key};
use super::records::digest;
use super::scripts::{APPEND, END, FENCED, GAP, GONE};
use game_host::record::LogMirror;
use game_host::sync::LockExt;

/// The most bytes waiting for Redis, over every world.
pub(crate) const MAX_BUFFER: usize = 64 << 20;

/// How long an ended world's keys stay in Redis (for `host replay`).
const KEEP_ENDED_SECONDS: u64 = 24 * 3600;

/// The longest wait between two tries while Redis is unreachable.
const MAX_BACKOFF: Duration = Duration::from_secs(1);

pub(super) struct Record {
    pub(super) world: u64,
    /// The epoch the world was held at when the bytes were written: a
    /// stale copy's late lines never go out at a newer epoch.
    pub(super) epoch: u64,
    pub(super) kind: Kind,
    pub(super) offset: u64,
    pub(super) bytes: Vec<u8>,
    /// A log batch whose last line is the world's end line.
    pub(super) ends: bool,
}

#[derive(Default)]
pub(super) struct State {
    queue: VecDeque<Record>,
    bytes: usize,
    /// The worlds this node holds, each at its epoch.
    held: HashMap<u64, u64>,
    /// Worlds no longer copied (their records did not fit).
    lost: HashSet<u64>,
    /// Worlds fenced off since the node last asked.
    fenced: Vec<u64>,
    /// The world whose record is on its way.
    sending: Option<u64>,
    /// Each held world's folder in the node's working copy, where what the
    /// Redis lost is read back from.
    pub(super) dirs: HashMap<u64, PathBuf>,
}

/// What the mirror did, for metrics.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MirrorStats {
    pub up: bool,
    pub buffered_bytes: u64,
    pub lost_worlds: u64,
}

/// The copy of a node's logs in Redis.
pub(crate) struct Mirror {
    pub(super) node: String,
    pub(super) state: Mutex<State>,
    wake: Condvar,
    /// Whether Redis answered the last time anything asked it.
    pub(crate) up: AtomicBool,
    lost: AtomicU64,
}

impl Mirror {
    /// Starts the thread that copies what node `node` writes, on `conn`.
    pub fn start(conn: Conn, node: String) -> Result<Arc<Mirror>> {
        let mirror = Arc::new(Mirror {
            node,
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            up: AtomicBool::new(true),
            lost: AtomicU64::new(0),
        });
        std::thread::Builder::new()
            .name("fleet-mirror".into())
            .spawn({
                let mirror = mirror.clone();
                move || mirror.run(conn)
            })
            .context("failed to start the fleet's mirror thread")?;
        Ok(mirror)
    }

    /// Notes that this node holds world `world` at `epoch`: its writes go
    /// to Redis from now on.
    pub fn hold(&self, world: u64, epoch: u64) {
        let mut state = self.state.lock_unpoisoned();
        state.held.insert(world, epoch);
        state.lost.remove(&world);
    }

    /// The worlds this node holds.
    pub fn held_worlds(&self) -> HashSet<u64> {
        self.state.lock_unpoisoned().held.keys().copied().collect()
    }

    /// The worlds fenced off since the last call: another node holds them.
    pub fn take_fenced(&self) -> Vec<u64> {
        std::mem::take(&mut self.state.lock_unpoisoned().fenced)
    }

    /// Stops copying world `world` (it left this node), dropping what waits.
    pub fn release(&self, world: u64) {
        let mut state = self.state.lock_unpoisoned();
        state.held.remove(&world);
        state.dirs.remove(&world);
        drop_records(&mut state, world);
    }

    /// Waits until nothing of `worlds` waits for Redis, up to
    /// `deadline`; the worlds still waiting then, and those whose copy
    /// stopped (Redis lacks their last lines).
    pub fn wait_copied(&self, worlds: &HashSet<u64>, deadline: Instant) -> Vec<u64> {
        let mut state = self.state.lock_unpoisoned();
        loop {
            let waiting: HashSet<u64> = state
                .queue
                .iter()
                .map(|r| r.world)
                .chain(state.sending)
                .filter(|w| worlds.contains(w))
                .collect();
            // A world no longer copied never will be: Redis lacks it.
            let lost: Vec<u64> = worlds.intersection(&state.lost).copied().collect();
            let left = deadline.saturating_duration_since(Instant::now());
            if waiting.is_empty() || left.is_zero() {
                return waiting.into_iter().chain(lost).collect();
            }
            state = self
                .wake
                .wait_timeout(state, left.min(Duration::from_millis(20)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    pub fn stats(&self) -> MirrorStats {
        MirrorStats {
            up: self.up.load(Ordering::Relaxed),
            buffered_bytes: self.state.lock_unpoisoned().bytes as u64,
            lost_worlds: self.lost.load(Ordering::Relaxed),
        }
    }

    fn run(&self, mut conn: Conn) {
        let mut backoff = Duration::from_millis(50);
        loop {
            let (record, epoch) = {
                let mut state = self.state.lock_unpoisoned();
                loop {
                    if let Some(record) = state.queue.pop_front() {
                        state.bytes -= record.bytes.len();
                        // Released meanwhile, or held again at another
                        // epoch: nothing more of this copy goes out.
                        if state.held.get(&record.world) == Some(&record.epoch) {
                            state.sending = Some(record.world);
                            let epoch = record.epoch;
                            break (record, epoch);
                        }
                        continue;
                    }
                    state = self.wake.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            };
            match self.send(&mut conn, &record, epoch) {
                Ok(()) => {
                    self.answered();
                    backoff = Duration::from_millis(50);
                    let mut state = self.state.lock_unpoisoned();
                    state.sending = None;
                    if record.ends {
                        state.held.remove(&record.world);
                        state.dirs.remove(&record.world);
                    }
                }
                Err(error) if error.code() == Some(GAP) => {
                    // Redis lost the end of this log (it restarted
                    // without its last writes): what it lacks goes first.
                    let ends = error
                        .detail()
                        .and_then(|d| d.trim().parse().ok())
                        .unwrap_or(0);
                    let missing = self.missing(&record, ends);
                    let seats = self.seats_again(&record);
                    let mut state = self.state.lock_unpoisoned();
                    state.sending = None;
                    match missing {
                        Some(missing) => {
                            tracing::info!(
                                "the fleet's Redis lost the end of world {}'s log: sent again \
                                 from byte {ends}",
                                record.world
                            );
                            state.bytes += missing.bytes.len() + record.bytes.len();
                            state.queue.push_front(record);
                            state.queue.push_front(missing);
                            // It may have lost seats as well: they go again
                            // whole (a few bytes a player).
                            if let Some(seats) = seats {
                                state.bytes += seats.bytes.len();
                                state.queue.push_back(seats);
                            }
                        }
                        None => {
                            let world = record.world;
                            self.lose(
                                &mut state,
                                world,
                                "its log here does not hold what Redis lost",
                            );
                        }
                    }
                }
                Err(error) if error.code() == Some(GONE) => {
                    // Redis lost the world itself: it is entered again,
                    // and its logs sent from the start.
                    let entered = self.enter_again(&mut conn, &record, epoch);
                    let mut state = self.state.lock_unpoisoned();
                    state.sending = None;
                    match entered {
                        Ok(()) => {
                            tracing::warn!(
                                "the fleet's Redis had lost world {}: it is entered again from \
                                 this node",
                                record.world
                            );
                            state.bytes += record.bytes.len();
                            state.queue.push_front(record);
                        }
                        Err(error) => {
                            let world = record.world;
                            self.lose(
                                &mut state,
                                world,
                                &format!("it could not be entered again: {error:#}"),
                            );
                        }
                    }
                }
                Err(error) if error.code() == Some(FENCED) => {
                    tracing::warn!(
                        "world {} is held by another node now ({}): its copy here stops",
                        record.world,
                        error.detail().unwrap_or_default()
                    );
                    let mut state = self.state.lock_unpoisoned();
                    state.sending = None;
                    state.held.remove(&record.world);
                    state.dirs.remove(&record.world);
                    drop_records(&mut state, record.world);
                    state.fenced.push(record.world);
                }
                Err(error) => {
                    if unreachable(&error) {
                        self.lost(&error);
                    } else {
                        tracing::warn!("the fleet's Redis refused a log record: {error}");
                    }
                    // Tried again, in order, after a pause.
                    let mut state = self.state.lock_unpoisoned();
                    state.sending = None;
                    state.bytes += record.bytes.len();
                    state.queue.push_front(record);
                    drop(state);
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
            self.wake.notify_all();
        }
    }

    /// Notes that Redis answered (and says so, if it did not before).
    pub fn answered(&self) {
        if !self.up.swap(true, Ordering::Relaxed) {
            tracing::info!(
                "the fleet's Redis answers again: the {} bytes of log that waited are being sent",
                self.state.lock_unpoisoned().bytes
            );
        }
    }

    /// Notes that Redis could not be reached (and says so, once).
    pub fn lost(&self, error: &redis::RedisError) {
        if self.up.swap(false, Ordering::Relaxed) {
            tracing::warn!(
                "the fleet's Redis cannot be reached ({error}): worlds play on, and their logs \
                 wait here (up to {} MiB)",
                MAX_BUFFER >> 20
            );
        }
    }

    /// Stops copying `world`: what waits is dropped, said once and counted.
    fn lose(&self, state: &mut State, world: u64, why: &str) {
        drop_records(state, world);
        if state.lost.insert(world) {
            self.lost.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                "world {world}'s log is no longer copied to the fleet's Redis ({why}): it plays \
                 on, kept on this node alone"
            );
        }
    }

    /// Appends one record (and, for an end line, notes the world ended).
    fn send(&self, conn: &mut Conn, record: &Record, epoch: u64) -> redis::RedisResult<()> {
        let world = world_key(record.world);
        let _: i64 = conn.run(|con| {
            APPEND
                .key(&world)
                .key(log_key(record.world, record.kind))
                .arg(&self.node)
                .arg(epoch)
                .arg(record.offset)
                .arg(digest(&record.bytes))
                .arg(&record.bytes)
                .arg(end_field(record.kind))
                .invoke(con)
        })?;
        if record.ends {
            let _: i64 = conn.run(|con| {
                END.key(&world)
                    .key(worlds_key(&self.node))
                    .key(log_key(record.world, Kind::Log))
                    .key(log_key(record.world, Kind::Seats))
                    .arg(&self.node)
                    .arg(epoch)
                    .arg(record.world)
                    .arg(KEEP_ENDED_SECONDS)
                    .invoke(con)
            })?;
        }
        Ok(())
    }
}

impl LogMirror for Mirror {
    fn appended(&self, path: &Path, offset: u64, bytes: &[u8]) {
        let Some((world, kind)) = world_file(path) else {
            return;
        };
        let mut state = self.state.lock_unpoisoned();
        let Some(&epoch) = state.held.get(&world) else {
            return;
        };
        if state.lost.contains(&world) {
            return;
        }
        if let Some(dir) = path.parent() {
            state.dirs.entry(world).or_insert_with(|| dir.to_owned());
        }
        if state.bytes + bytes.len() > MAX_BUFFER {
            let why = format!(
                "it no longer fits in the {} MiB waiting for Redis",
                MAX_BUFFER >> 20
            );
            self.lose(&mut state, world, &why);
            return;
        }
        state.bytes += bytes.len();
        state.queue.push_back(Record {
            world,
            epoch,
            kind,
            offset,
            bytes: bytes.to_vec(),
            ends: kind == Kind::Log && ends(bytes),
        });
        drop(state);
        self.wake.notify_all();
    }
}

/// Drops what waits of `world`.
fn drop_records(state: &mut State, world: u64) {
    let before = state.queue.len();
    state.queue.retain(|r| r.world != world);
    if state.queue.len() != before {
        state.bytes = state.queue.iter().map(|r| r.bytes.len()).sum();
    }
}

/// The file a log of `kind` is in, in its world's folder.
pub(super) fn file_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Log => "log.rec",
        Kind::Seats => "seats.jsonl",
    }
}

/// The world and log a path of the state directory names
/// (`.../worlds/ID/log.rec` or `.../worlds/ID/seats.jsonl`).
fn world_file(path: &Path) -> Option<(u64, Kind)> {
    let kind = match path.file_name()?.to_str()? {
        "log.rec" => Kind::Log,
        "seats.jsonl" => Kind::Seats,
        _ => return None,
    };
    let world = path.parent()?.file_name()?.to_str()?.parse().ok()?;
    Some((world, kind))
}

/// Whether a batch's last line is an end line.
fn ends(bytes: &[u8]) -> bool {
    let text = bytes.trim_ascii_end();
    let start = text.iter().rposition(|b| *b == b'\n').map_or(0, |n| n + 1);
    text[start..].starts_with(br#"{"end":"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_world_file_is_named_by_its_folder_and_an_end_line_is_seen() {
        assert_eq!(
            world_file(Path::new("/s/worlds/12/log.rec")),
            Some((12, Kind::Log))
        );
        assert_eq!(
            world_file(Path::new("/s/worlds/3/seats.jsonl")),
            Some((3, Kind::Seats))
        );
        assert_eq!(world_file(Path::new("/s/worlds/x/log.rec")), None);
        assert_eq!(world_file(Path::new("/s/worlds/3/world.json")), None);
        assert!(ends(b"{\"frame\":3}\n{\"end\":3,\"reason\":\"x\"}\n"));
        assert!(!ends(b"{\"end\":2}\n{\"frame\":3}\n"));
    }
}
