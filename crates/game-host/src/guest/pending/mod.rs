//! [`PendingWrites`]: the scene writes one instance makes during a frame's
//! dispatch, kept until the dispatch ends and then applied in the frame's
//! fixed call order, so the scene a frame leaves does not depend on how
//! many threads ran it or on their timing (see `docs/parallel-frames.md`).
//!
//! While writes are pending the instance reads the scene as it was when
//! the dispatch began, with its own writes on top: a script sees what it
//! wrote at once, and what other scripts write from the next frame on.
//! Writes are kept per entity and per field (position, rotation, scale),
//! so two scripts that change different fields of one entity both take
//! effect; where two set the same field, the later call wins. Relative
//! writes (`relative.translate`, `relative.rotate`) combine instead: each
//! is kept as a change, and applied in task order on what the earlier tasks
//! left, so every script's nudge counts, on any number of threads.

use std::collections::hash_map::Entry;

use glam::{Quat, Vec3};
use rustc_hash::FxHashMap;

use crate::scene::{EntityId, Transform};

mod write;

use write::Pending;
pub(crate) use write::{
    ALL, Fields, POSITION, ROTATE, ROTATION, SCALE, SceneWrite, TRANSLATE, turn, write_fields,
};

/// Entries looked up by a scan before an index is kept.
const SCANNED: usize = 8;

/// One instance's writes of the frame being dispatched.
#[derive(Default)]
pub(crate) struct PendingWrites {
    /// Whether writes are kept (during a frame's dispatch) rather than made
    /// at once (entrypoints, hand-overs: calls made one at a time).
    deferring: bool,
    entries: Vec<Pending>,
    /// Entry by entity, once there are more than [`SCANNED`]. Fx hashes an
    /// id in one multiply (FNV takes a round per byte), and a lookup is on
    /// every write of a frame.
    index: FxHashMap<EntityId, u32>,
    /// The last entity read while deferring: it exists until the dispatch
    /// ends (despawns wait for its end), so a write to it needs no look.
    seen: Option<EntityId>,
    /// The ids the last query answered while deferring: they exist until
    /// the dispatch ends, as [`Self::seen`] does, so a column write to the
    /// same ids (a query's read-modify-write) needs no look at each.
    answered: Vec<u32>,
}

impl PendingWrites {
    /// Whether writes are kept until the dispatch ends.
    #[inline]
    pub fn deferring(&self) -> bool {
        self.deferring
    }

    /// Starts keeping writes (the frame's dispatch begins).
    #[inline]
    pub fn defer(&mut self) {
        self.deferring = true;
    }

    /// Entity `id` was read while deferring: it exists.
    #[inline]
    pub fn saw(&mut self, id: EntityId) {
        if self.deferring {
            self.seen = Some(id);
        }
    }

    /// A query answered `ids` while deferring.
    pub fn answer(&mut self, ids: &[u32]) {
        if self.deferring {
            self.answered.clear();
            self.answered.extend_from_slice(ids);
        }
    }

    /// Whether `ids` are those the last query of this dispatch answered
    /// (each exists, unless the instance despawned it since).
    pub fn answered(&self, ids: &[u32]) -> bool {
        self.deferring && !ids.is_empty() && self.answered == ids
    }

    /// Whether any write is pending.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, id: EntityId) -> Option<usize> {
        if self.entries.len() <= SCANNED {
            self.entries.iter().position(|entry| entry.id == id)
        } else {
            self.index.get(&id).map(|&at| at as usize)
        }
    }

    fn entry(&mut self, id: EntityId) -> &mut Pending {
        let at = (self.place(id, true, || true)).expect("an entry is made where it may be");
        &mut self.entries[at]
    }

    /// Appends a new entry for `id` (none is kept) and returns its place.
    fn push(&mut self, id: EntityId) -> usize {
        let at = self.entries.len();
        self.entries.push(Pending::new(id));
        if at == SCANNED {
            let entries = self.entries.iter().enumerate();
            self.index
                .extend(entries.map(|(at, entry)| (entry.id, at as u32)));
        } else if at > SCANNED {
            self.index.insert(id, at as u32);
        }
        at
    }

    /// The place of `id`'s entry, found with one look-up, or made if there
    /// is none and the entity is known to exist (`known`) or `exists()`
    /// says so (`None` if not). Inlined into each write, where it is most
    /// of the host's own work.
    #[inline(always)]
    fn place(&mut self, id: EntityId, known: bool, exists: impl FnOnce() -> bool) -> Option<usize> {
        if self.entries.len() <= SCANNED {
            return match self.entries.iter().position(|entry| entry.id == id) {
                Some(at) => Some(at),
                None if known || exists() => Some(self.push(id)),
                None => None,
            };
        }
        match self.index.entry(id) {
            Entry::Occupied(kept) => Some(*kept.get() as usize),
            Entry::Vacant(place) => {
                if !known && !exists() {
                    return None;
                }
                let at = self.entries.len();
                place.insert(at as u32);
                self.entries.push(Pending::new(id));
                Some(at)
            }
        }
    }

    /// The entry of `id` to write, made if there is none and the entity
    /// exists (read before in this dispatch, or `exists()` says so): one
    /// look-up for the common case of a first write. `None` if the entity
    /// is gone or the instance despawned it.
    #[inline(always)]
    fn live_entry(&mut self, id: EntityId, exists: impl FnOnce() -> bool) -> Option<&mut Pending> {
        let at = self.place(id, self.seen == Some(id), exists)?;
        let entry = &mut self.entries[at];
        (!entry.despawned).then_some(entry)
    }

    /// Whether the instance despawned `id` in this dispatch.
    #[inline]
    pub fn despawned(&self, id: EntityId) -> bool {
        !self.entries.is_empty() && self.find(id).is_some_and(|at| self.entries[at].despawned)
    }

    /// `transform` (the scene's) with the instance's own pending writes of
    /// `id` on top.
    #[inline]
    pub fn overlay(&self, id: EntityId, transform: Transform) -> Transform {
        if self.entries.is_empty() {
            return transform;
        }
        match self.find(id) {
            Some(at) => self.entries[at].on(transform),
            None => transform,
        }
    }

    /// Keeps a write of `fields` of `id` (values from `transform`), an
    /// entity known to exist.
    #[inline]
    pub fn write(&mut self, id: EntityId, fields: Fields, transform: Transform) {
        self.entry(id).set(fields, &transform);
    }

    /// [`Self::write`] to an entity that may be gone: false, and nothing
    /// kept, if the instance despawned it or `exists()` says it is gone
    /// (asked only where this dispatch has not seen it yet).
    #[inline]
    pub fn write_if(
        &mut self,
        id: EntityId,
        fields: Fields,
        transform: Transform,
        exists: impl FnOnce() -> bool,
    ) -> bool {
        match self.live_entry(id, exists) {
            Some(entry) => {
                entry.set(fields, &transform);
                true
            }
            None => false,
        }
    }

    /// Keeps a move of `id` by `offset`: onto the position it set, if it
    /// did, else onto the scene's when the writes are made. False, as
    /// [`Self::write_if`], for an entity gone.
    pub fn translate(&mut self, id: EntityId, offset: Vec3, exists: impl FnOnce() -> bool) -> bool {
        let Some(entry) = self.live_entry(id, exists) else {
            return false;
        };
        if entry.fields & (POSITION | TRANSLATE) == 0 {
            entry.fields |= TRANSLATE;
            entry.transform.position = Vec3::ZERO;
        }
        entry.transform.position += offset;
        true
    }

    /// Keeps a turn of `id` by `delta` (`delta * rotation`), as
    /// [`Self::translate`] keeps a move.
    pub fn rotate(&mut self, id: EntityId, delta: Quat, exists: impl FnOnce() -> bool) -> bool {
        let Some(entry) = self.live_entry(id, exists) else {
            return false;
        };
        if entry.fields & (ROTATION | ROTATE) == 0 {
            entry.fields |= ROTATE;
            entry.transform.rotation = Quat::IDENTITY;
        }
        entry.transform.rotation = turn(entry.transform.rotation, delta);
        true
    }

    /// Keeps the despawn of `id`: its pending writes are dropped.
    pub fn despawn(&mut self, id: EntityId) {
        let entry = self.entry(id);
        entry.fields = 0;
        entry.despawned = true;
    }

    /// Moves the pending writes to `out`, each marked with `task`, in the
    /// order their entities were first written, and stops deferring.
    pub fn take(&mut self, task: u32, out: &mut Vec<SceneWrite>) {
        self.deferring = false;
        self.seen = None;
        self.answered.clear();
        if self.entries.is_empty() {
            return;
        }
        for &pending in &self.entries {
            out.push(SceneWrite { task, pending });
        }
        self.entries.clear();
        self.index.clear();
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::scene::{GameScene, Scene};

    fn apply(pending: &mut PendingWrites, scene: &mut Scene) {
        let mut writes = Vec::new();
        pending.take(0, &mut writes);
        for write in &writes {
            write.apply(scene);
        }
    }

    #[test]
    fn own_writes_are_seen_at_once_and_reach_the_scene_on_apply() {
        let mut scene = Scene::new();
        let a = GameScene::spawn(&mut scene, "a");
        let mut pending = PendingWrites::default();
        pending.defer();
        let moved = Transform {
            position: Vec3::X,
            ..Transform::default()
        };
        pending.write(a, POSITION, moved);
        let seen = pending.overlay(a, GameScene::transform(&mut scene, a).unwrap());
        assert_eq!(seen.position, Vec3::X);
        assert_eq!(
            GameScene::transform(&mut scene, a).unwrap().position,
            Vec3::ZERO
        );
        apply(&mut pending, &mut scene);
        assert_eq!(
            GameScene::transform(&mut scene, a).unwrap().position,
            Vec3::X
        );
        assert!(!pending.deferring() && pending.is_empty());
    }

    #[test]
    fn a_write_to_an_entity_gone_keeps_nothing_scanned_or_indexed() {
        let moved = Transform {
            position: Vec3::X,
            ..Transform::default()
        };
        // Below and above the count where entries get an index.
        for count in [3u32, 20] {
            let mut pending = PendingWrites::default();
            pending.defer();
            for id in 0..count {
                assert!(pending.write_if(EntityId::from(id), POSITION, moved, || true));
            }
            let gone = EntityId::from(1000);
            assert!(!pending.write_if(gone, POSITION, moved, || false));
            assert!(!pending.translate(gone, Vec3::X, || false));
            assert_eq!(
                pending.overlay(gone, Transform::default()).position,
                Vec3::ZERO
            );
            // A despawned entity takes no writes; `exists` is not asked for
            // an entity with kept writes, nor for the one last read.
            pending.despawn(EntityId::from(0));
            assert!(!pending.write_if(EntityId::from(0), POSITION, moved, || true));
            assert!(!pending.rotate(EntityId::from(0), Quat::IDENTITY, || true));
            assert!(pending.write_if(EntityId::from(2), SCALE, moved, || panic!("asked")));
            pending.saw(EntityId::from(500));
            assert!(pending.write_if(EntityId::from(500), POSITION, moved, || panic!("asked")));
            let mut writes = Vec::new();
            pending.take(0, &mut writes);
            assert_eq!(writes.len(), count as usize + 1);
            assert!(writes[0].despawns());
            assert!(writes.iter().all(|write| write.entity() != gone));
        }
    }

    #[test]
    fn fields_merge_and_many_entities_are_indexed() {
        let mut scene = Scene::new();
        let ids: Vec<_> = (0..40)
            .map(|i| GameScene::spawn(&mut scene, &format!("e{i}")))
            .collect();
        let mut pending = PendingWrites::default();
        pending.defer();
        for (i, &id) in ids.iter().enumerate() {
            let value = Transform {
                position: Vec3::splat(i as f32),
                rotation: Quat::from_rotation_y(0.5),
                scale: Vec3::splat(2.0),
            };
            pending.write(id, POSITION, value);
            pending.write(id, SCALE, value);
        }
        pending.despawn(ids[3]);
        assert!(pending.despawned(ids[3]) && !pending.despawned(ids[4]));
        let seen = pending.overlay(ids[30], Transform::default());
        assert_eq!(seen.position, Vec3::splat(30.0));
        assert_eq!(seen.rotation, Quat::IDENTITY);
        assert_eq!(seen.scale, Vec3::splat(2.0));
        apply(&mut pending, &mut scene);
        assert!(!GameScene::contains(&mut scene, ids[3]));
        let t = GameScene::transform(&mut scene, ids[30]).unwrap();
        assert_eq!(
            (t.position, t.rotation, t.scale),
            (Vec3::splat(30.0), Quat::IDENTITY, Vec3::splat(2.0))
        );
    }

    #[test]
    fn relative_writes_of_two_tasks_combine_in_task_order() {
        let mut scene = Scene::with_default_cube();
        let cube = GameScene::find(&mut scene, "cube").unwrap();
        let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
        let (mut a, mut b) = (PendingWrites::default(), PendingWrites::default());
        for pending in [&mut a, &mut b] {
            pending.defer();
            pending.rotate(cube, quarter, || true);
            pending.translate(cube, Vec3::X, || true);
            // Each sees its own change on top of the scene.
            let seen = pending.overlay(cube, GameScene::transform(&mut scene, cube).unwrap());
            assert_eq!(seen.position, Vec3::X);
        }
        let mut writes = Vec::new();
        a.take(0, &mut writes);
        b.take(1, &mut writes);
        for write in &writes {
            write.apply(&mut scene);
        }
        let t = GameScene::transform(&mut scene, cube).unwrap();
        assert_eq!(t.position, Vec3::new(2.0, 0.0, 0.0));
        let half = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        assert!(t.rotation.abs_diff_eq(half, 1e-6), "{:?}", t.rotation);
        // A set after a move replaces it; a move after a set adds to it.
        let mut c = PendingWrites::default();
        c.defer();
        c.translate(cube, Vec3::Y, || true);
        c.write(
            cube,
            POSITION,
            Transform {
                position: Vec3::Z,
                ..Transform::default()
            },
        );
        c.translate(cube, Vec3::Z, || true);
        apply(&mut c, &mut scene);
        assert_eq!(
            GameScene::transform(&mut scene, cube).unwrap().position,
            Vec3::new(0.0, 0.0, 2.0)
        );
    }
}
