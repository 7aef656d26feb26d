//! Recordings of runs, and replaying them: a run is a function of its
//! scripts, their inputs and the world's seed (see
//! [`crate::determinism`]), so a recording keeps only those, plus digests of
//! the scene to check a replay against.
//!
//! - `format`: the file format (JSON lines, versioned; `docs/determinism.md`
//!   documents it).
//! - `recording`: a [`Recording`] read back, trusting nothing in it.
//! - `lines`: the header and lines a run writes, from what it observes.
//! - `recorder`: a [`Recorder`] that writes a recording as a runtime runs.
//! - [`journal`]: a world's durable log: the same recording, handed in
//!   batches to a writer thread so the frame never waits on the disk.
//! - [`log_writer`]: that thread, one for every world of a server.
//! - `replay`: runs a recording again and names the first frame that
//!   diverges, and the entities that differ.
//! - [`kept`]: components kept by their digest, so a replay loads what a
//!   recording names without building it.

mod format;
pub mod journal;
pub mod kept;
mod lines;
pub mod log_writer;
mod recorder;
mod recording;
mod replay;

pub use format::{
    FORMAT, Header, PARALLEL_FRAMES, RecordedInput, RecordedScript, RunSettings, VERSION,
};
pub use journal::{Journal, Suspender};
pub use log_writer::{JournalWriter, LogMirror};
pub use recorder::Recorder;
pub use recording::Recording;
pub use replay::{Divergence, EntityDifference, ReplayReport, replay};
