//! Lost writes, said out loud: where two calls of one frame set the same
//! field of one entity, the later call's value stands and the earlier one
//! is lost (see `docs/parallel-frames.md`). [`Overwrites`] finds each such
//! pair while the frame's writes are made in task order; [`LostWrites`]
//! keeps the count, and which pairs of scripts and entities were already
//! warned about, so each is said once (a thousand instances of one script
//! that all set one entity are one pair).

use std::hash::{Hash, Hasher};

use fnv::{FnvHashMap, FnvHashSet, FnvHasher};

use crate::guest::SceneWrite;
use crate::guest::instance::ScriptInstance;
use crate::guest::pending::{POSITION, ROTATE, ROTATION, SCALE, TRANSLATE};
use crate::scene::EntityId;

/// No task has written the field yet.
const NONE: u32 = u32::MAX;

/// Pairs of scripts and entities warned about at most: past that, lost
/// writes are still counted but no longer said (a game that loses writes
/// on every entity says so thousands of times already).
const WARNED: usize = 4096;

/// One field of one entity set by two tasks of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Overwrite {
    /// The task whose write was lost.
    pub earlier: u32,
    /// The task whose write stands.
    pub later: u32,
    pub entity: EntityId,
    /// The field's name: "position", "rotation" or "scale".
    pub field: &'static str,
}

/// The frame's writers of each field of each entity (scratch kept between
/// frames).
#[derive(Default)]
pub(super) struct Overwrites {
    /// Per entity written this frame: the task that last set its position,
    /// rotation and scale.
    last: FnvHashMap<EntityId, [u32; 3]>,
    found: Vec<Overwrite>,
}

impl Overwrites {
    /// Starts a frame.
    pub fn begin(&mut self) {
        self.last.clear();
        self.found.clear();
    }

    /// Sees `write`, made after every write of earlier tasks.
    pub fn saw(&mut self, write: &SceneWrite) {
        let entity = write.entity();
        if write.despawns() {
            self.last.remove(&entity);
            return;
        }
        let last = self.last.entry(entity).or_insert([NONE; 3]);
        let fields = write.fields();
        for (at, (set, relative, name)) in [
            (POSITION, TRANSLATE, "position"),
            (ROTATION, ROTATE, "rotation"),
            (SCALE, 0, "scale"),
        ]
        .into_iter()
        .enumerate()
        {
            // A set replaces what an earlier task set or changed; a
            // relative change combines with it, and loses nothing.
            if fields & set != 0 && last[at] != NONE && last[at] != write.task {
                self.found.push(Overwrite {
                    earlier: last[at],
                    later: write.task,
                    entity,
                    field: name,
                });
            }
            if fields & (set | relative) != 0 {
                last[at] = write.task;
            }
        }
    }

    /// The frame's lost writes, in task order of the write that stands.
    pub fn found(&self) -> &[Overwrite] {
        &self.found
    }
}

/// Lost writes over a run: how many, and which were said.
#[derive(Default)]
pub(super) struct LostWrites {
    count: u64,
    /// Hashes of the (script, script, entity) said.
    warned: FnvHashSet<u64>,
    /// The last pair looked up: instances of one script that all set one
    /// entity lose a write each, every frame, to the same pair, which is
    /// then compared, not hashed again (its names kept in buffers reused
    /// when the pair changes).
    last: (String, String, Option<EntityId>),
}

impl LostWrites {
    /// Counts one lost write, of script `earlier` to `entity` under script
    /// `later`'s; true the first time for that pair and entity (while fewer
    /// than [`WARNED`] were said).
    pub fn lost(&mut self, earlier: &str, later: &str, entity: EntityId) -> bool {
        self.count += 1;
        let (e, l, at) = &mut self.last;
        if *at == Some(entity) && e == earlier && l == later {
            return false;
        }
        *at = Some(entity);
        for (kept, name) in [(e, earlier), (l, later)] {
            if kept != name {
                kept.clear();
                kept.push_str(name);
            }
        }
        let mut hasher = FnvHasher::default();
        (earlier, later, entity).hash(&mut hasher);
        self.warned.len() < WARNED && self.warned.insert(hasher.finish())
    }

    /// Writes lost so far.
    pub fn count(&self) -> u64 {
        self.count
    }
}

impl LostWrites {
    /// Counts `found`, the lost writes of frame `frame`, and says each pair
    /// of scripts and entity once, in the log of the instance whose write
    /// stood. `instance` gives the instance of a task, `name` an entity's
    /// name.
    pub fn say<'a>(
        &mut self,
        found: &[Overwrite],
        frame: u64,
        instance: impl Fn(u32) -> Option<&'a ScriptInstance>,
        mut name: impl FnMut(EntityId) -> String,
    ) {
        for lost in found {
            let (Some(earlier), Some(later)) = (instance(lost.earlier), instance(lost.later))
            else {
                continue;
            };
            if !self.lost(earlier.name(), later.name(), lost.entity) {
                continue;
            }
            later.warn(format!(
                "scripts `{}` ({}) and `{}` ({}) both set the {} of entity `{}` ({}) in frame \
                 {frame}: the later call's value stands and the other is lost (said once for \
                 these scripts and this entity; see docs/parallel-frames.md)",
                earlier.name(),
                earlier.id(),
                later.name(),
                later.id(),
                lost.field,
                name(lost.entity),
                lost.entity.index(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_said_once_and_every_loss_counted() {
        let (a, b) = ("a", "b");
        let mut lost = LostWrites::default();
        let cube = EntityId::from(3);
        assert!(lost.lost(a, b, cube));
        assert!(!lost.lost(a, b, cube));
        assert!(lost.lost(b, a, cube));
        assert!(lost.lost(a, b, EntityId::from(4)));
        // Looked up again, after another pair (by its hash) and right
        // after itself (by the last pair kept).
        assert!(!lost.lost(a, b, cube));
        assert!(!lost.lost(a, b, cube));
        assert_eq!(lost.count(), 6);
    }
}
