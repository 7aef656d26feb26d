//! One entity's kept writes ([`Pending`]), the fields a write changes, and
//! how kept writes are made on a scene ([`SceneWrite`]).

use glam::Quat;

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

#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) id: EntityId,
    /// The fields written, with their values in `transform`. A relative
    /// change (`TRANSLATE`, `ROTATE`) keeps its amount in the same field of
    /// `transform`: a field is either set or changed, never both.
    pub(super) fields: Fields,
    pub(super) transform: Transform,
    /// The instance despawned the entity (its writes are dropped).
    pub(super) despawned: bool,
}

/// One entity's kept writes from one task, to be made on the scene.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SceneWrite {
    /// The task's place in the frame (writes are made in that order).
    pub task: u32,
    pub(super) pending: Pending,
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
    pub(super) fn new(id: EntityId) -> Self {
        Pending {
            id,
            fields: 0,
            transform: Transform::default(),
            despawned: false,
        }
    }

    /// Sets `fields` from `value`; a set replaces the relative change kept
    /// for its field.
    #[inline]
    pub(super) fn set(&mut self, fields: Fields, value: &Transform) {
        self.fields = (self.fields & !((fields & (POSITION | ROTATION)) << 3)) | fields;
        self.transform = merge(self.transform, fields, value);
    }

    /// `current` (the scene's) with these writes made on it.
    #[inline]
    pub(super) fn on(&self, current: Transform) -> Transform {
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
fn merge(current: Transform, fields: Fields, value: &Transform) -> Transform {
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
