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

use fnv::FnvHashMap;
use glam::{Quat, Vec3};

use crate::scene::{EntityId, GameScene, Transform};

/// Which fields of a transform a write changes.
pub(crate) type Fields = u8;
pub(crate) const POSITION: Fields = 1;
pub(crate) const ROTATION: Fields = 2;
pub(crate) const SCALE: Fields = 4;
pub(crate) const ALL: Fields = POSITION | ROTATION | SCALE;
/// Relative changes: a move of the position, a turn of the rotation,
/// applied on what the scene holds when the write is made.
pub(crate) const TRANSLATE: Fields = POSITION << 3;
pub(crate) const ROTATE: Fields = ROTATION << 3;

/// Entries looked up by a scan before an index is kept.
const SCANNED: usize = 8;

#[derive(Debug, Clone, Copy)]
struct Pending {
    id: EntityId,
    /// The fields written, with their values in `transform`. A relative
    /// change (`TRANSLATE`, `ROTATE`) keeps its amount in the same field of
    /// `transform`: a field is either set or changed, never both.
    fields: Fields,
    transform: Transform,
    /// The instance despawned the entity (its writes are dropped).
    despawned: bool,
}

/// One instance's writes of the frame being dispatched.
#[derive(Default)]
pub(crate) struct PendingWrites {
    /// Whether writes are kept (during a frame's dispatch) rather than made
    /// at once (entrypoints, hand-overs: calls made one at a time).
    deferring: bool,
    entries: Vec<Pending>,
    /// Entry by entity, once there are more than [`SCANNED`].
    index: FnvHashMap<EntityId, u32>,
    /// The last entity read while deferring: it exists until the dispatch
    /// ends (despawns wait for its end), so a write to it needs no look.
    seen: Option<EntityId>,
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

    /// Whether `id` is known to exist without a look at the scene: read,
    /// or written, in this dispatch, and not despawned by the instance.
    #[inline]
    pub fn known(&self, id: EntityId) -> bool {
        match self.find(id) {
            Some(at) => !self.entries[at].despawned,
            None => self.seen == Some(id),
        }
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
        let at = match self.find(id) {
            Some(at) => at,
            None => {
                let at = self.entries.len();
                self.entries.push(Pending {
                    id,
                    fields: 0,
                    transform: Transform::default(),
                    despawned: false,
                });
                if at == SCANNED {
                    let entries = self.entries.iter().enumerate();
                    self.index
                        .extend(entries.map(|(at, entry)| (entry.id, at as u32)));
                } else if at > SCANNED {
                    self.index.insert(id, at as u32);
                }
                at
            }
        };
        &mut self.entries[at]
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

    /// Keeps a write of `fields` of `id` (values from `transform`).
    #[inline]
    pub fn write(&mut self, id: EntityId, fields: Fields, transform: Transform) {
        let entry = self.entry(id);
        // A set replaces the relative change kept for its field.
        entry.fields = (entry.fields & !((fields & (POSITION | ROTATION)) << 3)) | fields;
        entry.transform = merge(entry.transform, fields, &transform);
    }

    /// Keeps a move of `id` by `offset`: onto the position it set, if it
    /// did, else onto the scene's when the writes are made.
    pub fn translate(&mut self, id: EntityId, offset: Vec3) {
        let entry = self.entry(id);
        if entry.fields & (POSITION | TRANSLATE) == 0 {
            entry.fields |= TRANSLATE;
            entry.transform.position = Vec3::ZERO;
        }
        entry.transform.position += offset;
    }

    /// Keeps a turn of `id` by `delta` (`delta * rotation`), as
    /// [`Self::translate`] keeps a move.
    pub fn rotate(&mut self, id: EntityId, delta: Quat) {
        let entry = self.entry(id);
        if entry.fields & (ROTATION | ROTATE) == 0 {
            entry.fields |= ROTATE;
            entry.transform.rotation = Quat::IDENTITY;
        }
        entry.transform.rotation = turn(entry.transform.rotation, delta);
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

/// One entity's kept writes from one task, to be made on the scene.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SceneWrite {
    /// The task's place in the frame (writes are made in that order).
    pub task: u32,
    pending: Pending,
}

impl SceneWrite {
    /// The entity written.
    pub fn entity(&self) -> EntityId {
        self.pending.id
    }

    /// The fields set (none for a despawn).
    pub fn fields(&self) -> Fields {
        self.pending.fields
    }

    /// Whether the write despawns the entity.
    pub fn despawns(&self) -> bool {
        self.pending.despawned
    }

    /// Makes the write on `scene`. A write to an entity gone by now
    /// (another call despawned it) is dropped.
    #[inline(always)]
    pub fn apply<S: GameScene + ?Sized>(&self, scene: &mut S) {
        let pending = &self.pending;
        if pending.fields & (TRANSLATE | ROTATE) == 0 && !pending.despawned {
            write_fields(scene, pending.id, pending.fields, &pending.transform);
        } else {
            self.apply_other(scene);
        }
    }

    /// [`Self::apply`] for a despawn or a relative change.
    #[inline(never)]
    fn apply_other<S: GameScene + ?Sized>(&self, scene: &mut S) {
        let pending = &self.pending;
        if pending.despawned {
            scene.despawn(pending.id);
        } else if let Some(current) = scene.transform(pending.id) {
            scene.set_transform(pending.id, pending.on(current));
        }
    }
}

/// Writes `fields` of entity `id` on `scene` from `value` (one field by
/// its own call, all three at once, others over the current transform);
/// false if `id` names no entity.
pub(crate) fn write_fields<S: GameScene + ?Sized>(
    scene: &mut S,
    id: EntityId,
    fields: Fields,
    value: &Transform,
) -> bool {
    match fields {
        POSITION => scene.set_position(id, value.position),
        ROTATION => scene.set_rotation(id, value.rotation),
        ALL => scene.set_transform(id, *value),
        _ => match scene.transform(id) {
            Some(current) => scene.set_transform(id, merge(current, fields, value)),
            None => false,
        },
    }
}

impl Pending {
    /// `current` (the scene's) with these writes made on it.
    #[inline]
    fn on(&self, current: Transform) -> Transform {
        let mut out = merge(current, self.fields, &self.transform);
        if self.fields & TRANSLATE != 0 {
            out.position += self.transform.position;
        }
        if self.fields & ROTATE != 0 {
            out.rotation = turn(out.rotation, self.transform.rotation);
        }
        out
    }
}

/// `rotation` turned by `delta` (`delta * rotation`, normalised, as the
/// SDK's `rotate` always did).
#[inline]
pub(crate) fn turn(rotation: Quat, delta: Quat) -> Quat {
    (delta * rotation).normalize()
}

/// `current` with `fields` taken from `value`.
pub(crate) fn merge(current: Transform, fields: Fields, value: &Transform) -> Transform {
    let mut out = current;
    if fields & POSITION != 0 {
        out.position = value.position;
    }
    if fields & ROTATION != 0 {
        out.rotation = value.rotation;
    }
    if fields & SCALE != 0 {
        out.scale = value.scale;
    }
    out
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::scene::Scene;

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
            pending.rotate(cube, quarter);
            pending.translate(cube, Vec3::X);
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
        c.translate(cube, Vec3::Y);
        c.write(
            cube,
            POSITION,
            Transform {
                position: Vec3::Z,
                ..Transform::default()
            },
        );
        c.translate(cube, Vec3::Z);
        apply(&mut c, &mut scene);
        assert_eq!(
            GameScene::transform(&mut scene, cube).unwrap().position,
            Vec3::new(0.0, 0.0, 2.0)
        );
    }
}
