//! Many entities per call, by [`EntityId`]: the fast path for a script that
//! moves thousands of entities.
//!
//! Writes ([`set_position`], [`set_rotation`], [`set_transform`]) are
//! buffered in the script and sent to the host in one call per run of
//! same-kind writes, at the end of the current call into the script (the
//! export macro flushes), or earlier with [`flush`]. A run of one write
//! goes by the single-entity call of WIT `entity`, which copies no
//! list. Reads ([`transforms`], [`transform`], [`position`], [`rotation`])
//! flush first, so a script always reads what it wrote. A buffered write is
//! inlined into the script's own loop (a kind check and two pushes into a
//! `const` thread-local): about 55 instructions per entity in the script,
//! against 215 when each write was a call of the SDK (callgrind, 10,000
//! positions).
//!
//! The SDK's [`TransformComponent`](super::scene::TransformComponent)
//! carries its entity's id (`id()`): its reads are [`position`] and
//! [`rotation`], and its position and rotation writes are buffered here
//! too, so a loop of `set_position` over kept components is one call to
//! the host.
//!
//! An id that names no entity, or one the script's grants do not let it
//! write, makes the host stop the script with an error naming the id, when
//! the buffer is sent (at the end of the call at the latest): none of the
//! writes sent in that call lands.

use std::cell::RefCell;

use crate::bindings::game::engine::entities as wit;
use crate::bindings::game::engine::entity as single;

/// An entity's id: its index in the scene's creation order.
pub type EntityId = wit::EntityId;

/// Translation, rotation and scale of an entity, in glam types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Position in world units.
    pub position: glam::Vec3,
    /// Unit quaternion.
    pub rotation: glam::Quat,
    /// Per-axis scale.
    pub scale: glam::Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            position: glam::Vec3::ZERO,
            rotation: glam::Quat::IDENTITY,
            scale: glam::Vec3::ONE,
        }
    }
}

impl Transform {
    /// Floats per transform in the host's packed lists.
    pub const FLOATS: usize = 10;

    /// The transform packed as the host sends it (see the WIT `entities`).
    pub fn from_floats(v: &[f32; 10]) -> Self {
        Transform {
            position: glam::Vec3::new(v[0], v[1], v[2]),
            rotation: glam::Quat::from_xyzw(v[3], v[4], v[5], v[6]),
            scale: glam::Vec3::new(v[7], v[8], v[9]),
        }
    }

    /// The transform packed as the host takes it.
    pub fn to_floats(&self) -> [f32; 10] {
        let (p, r, s) = (self.position, self.rotation, self.scale);
        [p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]
    }
}

/// The buffered writes: ids and their packed values, one kind at a time,
/// in the order they were made.
struct Writes {
    kind: Kind,
    ids: Vec<EntityId>,
    values: Vec<f32>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Positions,
    Rotations,
    Transforms,
}

impl Writes {
    /// No writes, nothing allocated (`const`, so the thread-local needs no
    /// lazy initialisation check on each write).
    const EMPTY: Writes = Writes {
        kind: Kind::Positions,
        ids: Vec::new(),
        values: Vec::new(),
    };

    /// Buffers one write (switching kind sends the other kind first, which
    /// keeps the writes in order). Inlined into the caller's loop: a write
    /// is a compare and two pushes.
    #[inline]
    fn push<const N: usize>(&mut self, kind: Kind, id: EntityId, values: [f32; N]) {
        if kind != self.kind {
            self.switch(kind);
        }
        self.ids.push(id);
        self.values.extend_from_slice(&values);
    }

    /// Sends the writes of the current kind, then buffers `kind`.
    #[cold]
    #[inline(never)]
    fn switch(&mut self, kind: Kind) {
        self.flush();
        self.kind = kind;
    }

    /// Sends the buffered writes to the host and empties the buffer (its
    /// allocations are kept for the next frame's writes). One position or
    /// rotation goes by the single-entity call, which copies no list.
    #[inline(never)]
    fn flush(&mut self) {
        match (self.kind, self.ids.as_slice(), self.values.as_slice()) {
            (_, [], _) => return,
            (Kind::Positions, &[id], &[x, y, z]) => {
                single::set_position(id, glam::Vec3::new(x, y, z).into())
            }
            (Kind::Rotations, &[id], &[x, y, z, w]) => {
                single::set_rotation(id, glam::Quat::from_xyzw(x, y, z, w).into())
            }
            (Kind::Positions, ..) => wit::set_positions(&self.ids, &self.values),
            (Kind::Rotations, ..) => wit::set_rotations(&self.ids, &self.values),
            (Kind::Transforms, ..) => wit::set_transforms(&self.ids, &self.values),
        }
        self.ids.clear();
        self.values.clear();
    }
}

thread_local! {
    static WRITES: RefCell<Writes> = const { RefCell::new(Writes::EMPTY) };
}

/// Sets `id`'s position (buffered; see the module docs).
#[inline]
pub fn set_position(id: EntityId, position: glam::Vec3) {
    WRITES.with_borrow_mut(|w| w.push(Kind::Positions, id, position.to_array()));
}

/// Sets `id`'s rotation (buffered; see the module docs).
#[inline]
pub fn set_rotation(id: EntityId, rotation: glam::Quat) {
    WRITES.with_borrow_mut(|w| w.push(Kind::Rotations, id, rotation.to_array()));
}

/// Sets `id`'s whole transform (buffered; see the module docs).
#[inline]
pub fn set_transform(id: EntityId, transform: Transform) {
    WRITES.with_borrow_mut(|w| w.push(Kind::Transforms, id, transform.to_floats()));
}

/// Sends the buffered writes to the host now. The export macro calls it at
/// the end of every call into the script.
#[inline]
pub fn flush() {
    WRITES.with_borrow_mut(|w| {
        if !w.ids.is_empty() {
            w.flush();
        }
    });
}

/// The transforms of `ids`, in order (one call; buffered writes go first).
pub fn transforms(ids: &[EntityId]) -> Vec<Transform> {
    packed_transforms(ids)
        .as_chunks::<10>()
        .0
        .iter()
        .map(Transform::from_floats)
        .collect()
}

/// The transforms of `ids` packed as the host sends them (10 floats each),
/// for code that passes them back with [`set_packed_transforms`] (one
/// call; buffered writes go first).
pub fn packed_transforms(ids: &[EntityId]) -> Vec<f32> {
    flush();
    wit::transforms(ids)
}

/// Sets the transforms of `ids` now, packed 10 floats each, in one call
/// (buffered writes go first).
pub fn set_packed_transforms(ids: &[EntityId], values: &[f32]) {
    flush();
    wit::set_transforms(ids, values);
}

/// The transform of one entity (one call; buffered writes go first).
pub fn transform(id: EntityId) -> Transform {
    transforms(&[id])[0]
}

/// The position of one entity (one call with flat values; buffered writes
/// go first).
pub fn position(id: EntityId) -> glam::Vec3 {
    flush();
    single::position(id).into()
}

/// The rotation of one entity (one call with flat values; buffered writes
/// go first).
pub fn rotation(id: EntityId) -> glam::Quat {
    flush();
    single::rotation(id).into()
}

/// Creates `count` entities named `name` in one call and returns their ids.
pub fn spawn_many(name: &str, count: u32) -> Vec<EntityId> {
    wit::spawn_many(name, count)
}
