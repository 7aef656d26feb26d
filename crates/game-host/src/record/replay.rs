//! Replaying a recording: the same scripts, seed, timestep and input, run
//! headless as fast as the CPU allows, checked frame by frame against the
//! recorded scene digests.

use std::fmt;

use anyhow::{Context, Result, bail};

use super::format::{RecordedEntity, RecordedInput, hex};
use super::recording::Recording;
use crate::guest::engine::ScriptComponent;
use crate::runtime::Runtime;
use crate::scene::digest;
use crate::sync::LockExt;

/// How a replay went.
#[derive(Debug)]
pub struct ReplayReport {
    /// Frames replayed.
    pub frames: u64,
    /// The scene digest after the last frame replayed.
    pub digest: u64,
    /// The first frame whose scene differs from the recording, if any.
    pub divergence: Option<Divergence>,
}

/// Where a replay left the recording.
#[derive(Debug)]
pub struct Divergence {
    /// The first frame after which the scene differs.
    pub frame: u64,
    pub recorded: u64,
    pub replayed: u64,
    /// The checkpoint the entities were compared at: the divergent frame
    /// itself, or the first checkpoint after it.
    pub compared_at: u64,
    /// The entities that differ there.
    pub entities: Vec<EntityDifference>,
}

/// One entity that differs between the recording and the replay.
#[derive(Debug)]
pub enum EntityDifference {
    Changed {
        recorded: RecordedEntity,
        replayed: RecordedEntity,
    },
    OnlyRecorded(RecordedEntity),
    OnlyReplayed(RecordedEntity),
}

/// Entities named in a divergence report; the rest are counted.
const NAMED: usize = 8;

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the replay diverges at frame {}: scene {} recorded, {} replayed",
            self.frame,
            hex(self.recorded),
            hex(self.replayed)
        )?;
        if self.entities.is_empty() {
            return match self.compared_at {
                at if at == self.frame => Ok(()),
                at => write!(f, "; every entity agrees again at checkpoint frame {at}"),
            };
        }
        let at = if self.compared_at == self.frame {
            String::new()
        } else {
            format!(" (at checkpoint frame {})", self.compared_at)
        };
        match self.entities.len() {
            1 => write!(f, "; 1 entity differs{at}:")?,
            n => write!(f, "; {n} entities differ{at}:")?,
        }
        for difference in self.entities.iter().take(NAMED) {
            match difference {
                EntityDifference::Changed { recorded, replayed } => write!(
                    f,
                    "\n  entity {} `{}`: {}",
                    recorded.id,
                    recorded.name,
                    describe(recorded, replayed)
                )?,
                EntityDifference::OnlyRecorded(e) => write!(
                    f,
                    "\n  entity {} `{}`: recorded, missing from the replay",
                    e.id, e.name
                )?,
                EntityDifference::OnlyReplayed(e) => write!(
                    f,
                    "\n  entity {} `{}`: in the replay, never recorded",
                    e.id, e.name
                )?,
            }
        }
        if self.entities.len() > NAMED {
            write!(f, "\n  and {} more", self.entities.len() - NAMED)?;
        }
        Ok(())
    }
}

/// What differs between two versions of an entity, for a report.
fn describe(recorded: &RecordedEntity, replayed: &RecordedEntity) -> String {
    let mut parts = Vec::new();
    if recorded.name != replayed.name {
        parts.push(format!(
            "named `{}` recorded, `{}` replayed",
            recorded.name, replayed.name
        ));
    }
    let mut field = |what: &str, a: &[f32], b: &[f32]| {
        if a.iter()
            .map(|v| v.to_bits())
            .ne(b.iter().map(|v| v.to_bits()))
        {
            parts.push(format!("{what} {a:?} recorded, {b:?} replayed"));
        }
    };
    field("position", &recorded.position, &replayed.position);
    field("rotation", &recorded.rotation, &replayed.rotation);
    field("scale", &recorded.scale, &replayed.scale);
    parts.join("; ")
}

/// The entities that differ between two lists in id order.
fn differences(recorded: &[RecordedEntity], replayed: &[RecordedEntity]) -> Vec<EntityDifference> {
    let mut out = Vec::new();
    for index in 0..recorded.len().max(replayed.len()) {
        match (recorded.get(index), replayed.get(index)) {
            (Some(a), Some(b)) if a.digest != b.digest => out.push(EntityDifference::Changed {
                recorded: a.clone(),
                replayed: b.clone(),
            }),
            (Some(a), None) => out.push(EntityDifference::OnlyRecorded(a.clone())),
            (None, Some(b)) => out.push(EntityDifference::OnlyReplayed(b.clone())),
            _ => {}
        }
    }
    out
}

/// Replays `recording` on `runtime` (fresh, at the recording's rate and
/// seed, with lockstep jobs), starting the instances of `scripts` (the
/// recording's scripts, in its order) and delivering its input at the
/// recorded frames. Checks every recorded frame's scene digest; at the first
/// that differs, runs on to the next checkpoint to name the entities that
/// differ, and stops.
pub fn replay(
    recording: &Recording,
    runtime: &mut Runtime,
    scripts: &[ScriptComponent],
) -> Result<ReplayReport> {
    if scripts.len() != recording.header.scripts.len() {
        bail!(
            "the recording has {} script(s), but {} were given",
            recording.header.scripts.len(),
            scripts.len()
        );
    }
    for (script, recorded) in scripts.iter().zip(&recording.header.scripts) {
        for _ in 0..recorded.instances {
            runtime
                .spawn(script)
                .with_context(|| format!("script `{}` failed to start", script.name()))?;
        }
    }
    for (frame, input) in &recording.inputs {
        match input {
            RecordedInput::Event(event) => runtime.input().event_at(*frame, event.clone()),
            RecordedInput::Player(event) => runtime.input().player_at(*frame, event.clone()),
        }
    }
    let frames = recording.frames();
    let mut divergence: Option<Divergence> = None;
    while runtime.frame() < frames {
        let frame = runtime.step().frame;
        // A replay has no clients: the scripts' messages to players go
        // nowhere.
        runtime.take_player_messages();
        let mut scene = runtime.scene().lock_unpoisoned();
        if divergence.is_none()
            && let Some(&recorded) = recording.scenes.get(&frame)
        {
            let replayed = digest(&mut *scene);
            if recorded != replayed {
                divergence = Some(Divergence {
                    frame,
                    recorded,
                    replayed,
                    compared_at: frame,
                    entities: Vec::new(),
                });
            }
        }
        if let Some(found) = &mut divergence
            && let Some(entities) = recording.checkpoints.get(&frame)
        {
            found.compared_at = frame;
            found.entities = differences(entities, &RecordedEntity::all(&mut *scene));
            break;
        }
    }
    let digest = digest(&mut *runtime.scene().lock_unpoisoned());
    Ok(ReplayReport {
        frames: runtime.frame(),
        digest,
        divergence,
    })
}
