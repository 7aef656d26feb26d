//! Durable worlds: a server started with a state directory keeps each
//! world there, so that a world killed with its process resumes at the next
//! start, at its last durable frame, in the same state, with the same
//! players and tokens.
//!
//! ```text
//! DIR/worlds/ID/world.json   how the world was started (its spec)
//! DIR/worlds/ID/log.rec      its log: the world's recording (a Journal)
//! DIR/worlds/ID/seats.jsonl  its players, each with its token's digest
//! DIR/components/SHA.wasm    the components its scripts were loaded from
//! ```
//!
//! - `seat_log`: [`SeatLog`], the players' seats.
//!
//! This module only keeps the files; resuming worlds from them is done a
//! layer up, where worlds are built.
//!
//! A world whose log has an end line ended (it finished, was stopped, or
//! its scripts failed) and is not resumed; one the server shut down is
//! suspended, its log ending at its last frame, and is.

mod seat_log;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::WorldDirectory;
use game_host::GrantFile;
use game_host::files::{read_capped, write_atomic};
use game_host::record::{JournalWriter, LogMirror, Recording};
use game_host::runtime::RestartPolicy;

pub(crate) use seat_log::{HeldSeat, SeatLog, read_seats};

/// How a server keeps its worlds durable.
#[derive(Clone)]
pub struct StateConfig {
    /// The state directory.
    pub dir: PathBuf,
    /// Hand each world's log to the disk every this many frames (the most
    /// frames of input a killed process loses).
    pub flush_every: u64,
    /// The fleet this server is a node of: world ids come from it, every
    /// world's logs are copied to it, and the state directory is this
    /// node's working copy.
    pub directory: Option<Arc<dyn WorldDirectory>>,
}

impl std::fmt::Debug for StateConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateConfig")
            .field("dir", &self.dir)
            .field("flush_every", &self.flush_every)
            .field("directory", &self.directory.as_ref().map(|d| d.node()))
            .finish()
    }
}

/// A server's state directory and the thread that writes its logs.
pub(crate) struct Durable {
    pub state: StateConfig,
    pub writer: Arc<JournalWriter>,
    /// Held locked while the server runs: one server per directory.
    _lock: File,
}

impl Durable {
    /// Prepares the state directory and starts the log writer.
    pub fn open(state: StateConfig) -> Result<Durable> {
        prepare(&state.dir)?;
        let lock = lock(&state.dir)?;
        Ok(Durable {
            writer: JournalWriter::start_mirrored(&state.dir, mirror(&state))?,
            state,
            _lock: lock,
        })
    }

    /// What copies this server's logs to its fleet's Redis, if any.
    pub fn mirror(&self) -> Option<Arc<dyn LogMirror>> {
        mirror(&self.state)
    }

    /// The id after every world the state directory holds: ids are never
    /// reused.
    pub fn next_id(&self) -> Result<u64> {
        Ok(worlds(&self.state.dir)?.last().map_or(1, |id| id + 1))
    }
}

fn mirror(state: &StateConfig) -> Option<Arc<dyn LogMirror>> {
    Some(state.directory.as_ref()?.mirror())
}

/// How a world was started, as its state directory keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub id: u64,
    /// End after this many frames.
    pub frames: Option<u64>,
    pub stream_every: u32,
    /// The step of the stream's binary form (`None` in a manifest written
    /// before it was kept: the default).
    /// Left out where it is the default, so that a node of an older
    /// version reads the manifest (a fleet hands it between nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_precision: Option<f32>,
    /// Grants that narrowed the server's for this world.
    pub grants: Option<GrantFile>,
    pub max_restarts: u32,
    pub backoff_frames: u64,
    /// Started by the public join (`POST /play`) for this game, which
    /// seats players in it and stops it once empty wherever it runs next
    /// (resumed, handed over or failed over). Left out where it is not, as
    /// `stream_precision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play: Option<String>,
}

impl Manifest {
    pub fn restart(&self) -> RestartPolicy {
        RestartPolicy {
            max_restarts: self.max_restarts,
            backoff_frames: self.backoff_frames,
        }
    }
}

/// The largest manifest read back.
const MAX_MANIFEST: u64 = 16 << 20;

/// One world's files.
pub(crate) struct WorldFiles {
    pub dir: PathBuf,
}

impl WorldFiles {
    /// World `id`'s files in the state directory `state`.
    pub fn of(state: &Path, id: u64) -> WorldFiles {
        WorldFiles {
            dir: state.join("worlds").join(id.to_string()),
        }
    }

    pub fn log(&self) -> PathBuf {
        self.dir.join("log.rec")
    }

    pub fn seats(&self) -> PathBuf {
        self.dir.join("seats.jsonl")
    }

    pub fn manifest(&self) -> PathBuf {
        self.dir.join("world.json")
    }

    /// Makes the world's folder and writes its manifest (a world id is
    /// never reused: a folder already there is an error): the manifest's
    /// bytes, as written.
    pub fn create(&self, manifest: &Manifest) -> Result<Vec<u8>> {
        std::fs::create_dir_all(self.dir.parent().unwrap_or(&self.dir))
            .and_then(|()| std::fs::create_dir(&self.dir))
            .with_context(|| format!("failed to make `{}`", self.dir.display()))?;
        let bytes = serde_json::to_vec_pretty(manifest)?;
        write_atomic(&self.manifest(), &bytes)?;
        Ok(bytes)
    }

    /// Removes the folder of a world that could not start (best effort).
    pub fn remove(&self) {
        if let Err(error) = std::fs::remove_dir_all(&self.dir) {
            tracing::warn!("could not remove `{}`: {error}", self.dir.display());
        }
    }

    pub fn read_manifest(&self) -> Result<Manifest> {
        let path = self.manifest();
        let bytes = read_capped(&path, MAX_MANIFEST)
            .with_context(|| format!("failed to read `{}`", path.display()))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| anyhow::anyhow!("`{}` is not a world's manifest: {e}", path.display()))
    }

    /// Whether the world's log ends with an end line (it ended, and is
    /// not resumed): only its last line is read.
    pub fn ended(&self) -> Result<bool> {
        Ok(last_line(&self.log())?.starts_with(br#"{"end":"#))
    }
}

/// The worlds a state directory holds, by id (folders not named by a
/// number are ignored).
pub(crate) fn worlds(state: &Path) -> Result<Vec<u64>> {
    let dir = state.join("worlds");
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<u64> = std::fs::read_dir(&dir)
        .with_context(|| format!("failed to list `{}`", dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|id| *id > 0)
        .collect();
    ids.sort();
    Ok(ids)
}

/// The script instances of the worlds `state` would resume (those that
/// had not ended), by their logs' headers: what the instance pool must
/// hold. Each header's values are bounded as a recording's are; a world
/// whose header is refused counts none (its resume fails alone, and says
/// why).
pub fn instances_to_resume(state: &Path) -> usize {
    let Ok(ids) = worlds(state) else {
        return 0;
    };
    ids.into_iter()
        .map(|id| WorldFiles::of(state, id))
        .filter(|files| files.ended().is_ok_and(|ended| !ended))
        .filter_map(|files| Recording::read_header(&files.log()).ok())
        .map(|header| header.instances())
        .fold(0, usize::saturating_add)
}

/// Checks that `state` is a folder this server can keep worlds in (made
/// if missing).
fn prepare(state: &Path) -> Result<()> {
    std::fs::create_dir_all(state.join("worlds"))
        .and_then(|()| std::fs::create_dir_all(state.join("components")))
        .with_context(|| format!("cannot keep worlds in `{}`", state.display()))?;
    let probe = state.join(".probe");
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .with_context(|| format!("cannot write in `{}`", state.display()))
}

/// Locks the state directory `state` for this process (released when the
/// file is closed, or the process ends however it ends): two servers
/// appending to the same logs would spoil them.
fn lock(state: &Path) -> Result<File> {
    let path = state.join("lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("failed to open `{}`", path.display()))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(
        |_| {
            anyhow::anyhow!(
                "another server keeps its worlds in `{}` (it holds `{}`)",
                state.display(),
                path.display()
            )
        },
    )?;
    Ok(file)
}

/// The first bytes (up to 16) of a file's last line that has any text,
/// read back from the file's end: one backward scan, each byte read once,
/// however long the last line is (a checkpoint of a large world, cut by a
/// crash, can be megabytes).
fn last_line(path: &Path) -> Result<Vec<u8>> {
    const CHUNK: u64 = 64 << 10;
    // Looked at before it is opened: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        bail!("`{}` is not a regular file", path.display());
    }
    let mut file =
        File::open(path).with_context(|| format!("failed to open `{}`", path.display()))?;
    let mut end = file.metadata()?.len();
    // Where the last line's text ends (past trailing blank space), and
    // where that line starts.
    let mut text_end = None;
    let mut line_start = 0;
    let mut chunk = vec![0; CHUNK as usize];
    'scan: while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let bytes = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(bytes)?;
        for (at, byte) in bytes.iter().enumerate().rev() {
            let offset = start + at as u64;
            match text_end {
                None if !byte.is_ascii_whitespace() => text_end = Some(offset + 1),
                Some(_) if *byte == b'\n' => {
                    line_start = offset + 1;
                    break 'scan;
                }
                _ => {}
            }
        }
        end = start;
    }
    let Some(text_end) = text_end else {
        bail!("`{}` is empty", path.display());
    };
    let mut first = vec![0; (text_end - line_start).min(16) as usize];
    file.seek(SeekFrom::Start(line_start))?;
    file.read_exact(&mut first)?;
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_log_is_told_by_its_last_line_alone() {
        let dir = tempfile::tempdir().unwrap();
        let files = WorldFiles {
            dir: dir.path().to_owned(),
        };
        let long = "x".repeat(10_000);
        std::fs::write(files.log(), "{\"format\":1}\n{\"frame\":6}\n").unwrap();
        assert!(!files.ended().unwrap());
        std::fs::write(
            files.log(),
            format!("{{\"format\":1}}\n{{\"end\":6,\"e\":\"{long}\"}}\n\n"),
        )
        .unwrap();
        assert!(files.ended().unwrap());
        std::fs::write(files.log(), format!("{{\"end\":6,\"e\":\"{long}\"}}")).unwrap();
        assert!(files.ended().unwrap());
        // A last line longer than a chunk, cut (no line end), and one
        // ending just past a chunk's edge.
        let huge = "y".repeat(200_000);
        std::fs::write(
            files.log(),
            format!("{{\"format\":1}}\n{{\"frame\":7,\"entities\":\"{huge}"),
        )
        .unwrap();
        assert!(!files.ended().unwrap());
        assert_eq!(last_line(&files.log()).unwrap(), b"{\"frame\":7,\"enti");
        let edge = format!("{}\n{{\"end\":1}}\n", "z".repeat((64 << 10) - 1));
        std::fs::write(files.log(), edge).unwrap();
        assert!(files.ended().unwrap());
        std::fs::write(files.log(), " \n\n\t").unwrap();
        assert!(files.ended().is_err());
    }
}
