//! [`GameScene`]: the seam between scripts and a game's entities.
//!
//! Every script call that reaches an entity (the `scene`, `entity` and
//! `entities` interfaces), host-driven motion, recordings, dumps and the
//! renderer go through this trait, on the one scene a runtime holds
//! ([`SharedScene`](super::SharedScene)). The core's own [`Scene`](super::Scene)
//! is one implementation; an engine's world is another (an embedder
//! implements it over its own entities), so nothing is copied per frame in
//! either direction.
//!
//! Ids are the scripts' `entity-id`s: given once, never reused, so an id a
//! script kept after its entity was despawned names nothing (a call with it
//! fails naming the id) rather than another entity.
//!
//! The many-entity calls mirror the `entities` WIT interface: all or
//! nothing (every id is checked before anything changes), so an
//! implementation can answer them in one pass over its storage. Their
//! default bodies go entity by entity through the single-entity calls.

use std::any::Any;

use glam::{Quat, Vec3};

use super::data::GameData;
use super::entity::{EntityId, Transform};

/// Floats per position (or scale), rotation and transform in the
/// many-entity calls.
pub const VEC3: usize = 3;
/// See [`VEC3`].
pub const QUAT: usize = 4;
/// See [`VEC3`]: position, rotation, scale.
pub const TRANSFORM: usize = 10;

/// The entities scripts act on: each has an id, a name and a transform.
pub trait GameScene: Send + 'static {
    /// Adds an entity named `name` (names need not be unique) at the
    /// origin, with identity rotation and unit scale, and returns its id,
    /// one never given before.
    fn spawn(&mut self, name: &str) -> EntityId;

    /// The first entity (in creation order) named `name`.
    fn find(&mut self, name: &str) -> Option<EntityId>;

    /// Removes entity `id`; false if it names none. Its id is not reused.
    fn despawn(&mut self, id: EntityId) -> bool;

    /// The name of entity `id`.
    fn name(&mut self, id: EntityId) -> Option<String>;

    /// The transform of entity `id`.
    fn transform(&mut self, id: EntityId) -> Option<Transform>;

    /// Sets the transform of entity `id`; false if it names none.
    fn set_transform(&mut self, id: EntityId, transform: Transform) -> bool;

    /// The position of entity `id`.
    fn position(&mut self, id: EntityId) -> Option<Vec3> {
        Some(self.transform(id)?.position)
    }

    /// The rotation of entity `id`.
    fn rotation(&mut self, id: EntityId) -> Option<Quat> {
        Some(self.transform(id)?.rotation)
    }

    /// Sets the position of entity `id`; false if it names none.
    fn set_position(&mut self, id: EntityId, position: Vec3) -> bool {
        self.transform(id).is_some_and(|mut transform| {
            transform.position = position;
            self.set_transform(id, transform)
        })
    }

    /// Sets the rotation of entity `id`; false if it names none.
    fn set_rotation(&mut self, id: EntityId, rotation: Quat) -> bool {
        self.transform(id).is_some_and(|mut transform| {
            transform.rotation = rotation;
            self.set_transform(id, transform)
        })
    }

    /// Whether `id` names an entity.
    fn contains(&mut self, id: EntityId) -> bool {
        self.transform(id).is_some()
    }

    /// Calls `visit` on every entity, in id order.
    fn for_each(&mut self, visit: &mut dyn FnMut(EntityId, &str, &Transform));

    /// Number of entities.
    fn len(&mut self) -> usize;

    /// Whether there is no entity.
    fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// Appends the transforms of `ids` to `out` ([`TRANSFORM`] floats
    /// each), or names the first id that is no entity.
    fn transforms(&mut self, ids: &[u32], out: &mut Vec<f32>) -> Result<(), u32> {
        for &id in ids {
            let t = self.transform(EntityId::from(id)).ok_or(id)?;
            out.extend_from_slice(&floats_of(&t));
        }
        Ok(())
    }

    /// Sets the transforms of `ids`, all or nothing: on the first id that
    /// is no entity nothing has changed, and it is returned.
    fn set_transforms(&mut self, ids: &[u32], values: &[[f32; TRANSFORM]]) -> Result<(), u32> {
        self.check(ids)?;
        for (&id, v) in ids.iter().zip(values) {
            self.set_transform(EntityId::from(id), transform_of(v));
        }
        Ok(())
    }

    /// As [`GameScene::set_transforms`], for positions.
    fn set_positions(&mut self, ids: &[u32], values: &[[f32; VEC3]]) -> Result<(), u32> {
        self.check(ids)?;
        for (&id, v) in ids.iter().zip(values) {
            self.set_position(EntityId::from(id), Vec3::from_array(*v));
        }
        Ok(())
    }

    /// As [`GameScene::set_transforms`], for rotations.
    fn set_rotations(&mut self, ids: &[u32], values: &[[f32; QUAT]]) -> Result<(), u32> {
        self.check(ids)?;
        for (&id, v) in ids.iter().zip(values) {
            self.set_rotation(EntityId::from(id), Quat::from_array(*v));
        }
        Ok(())
    }

    /// The first of `ids` that is no entity, as an error.
    fn check(&mut self, ids: &[u32]) -> Result<(), u32> {
        match ids.iter().find(|&&id| !self.contains(EntityId::from(id))) {
            Some(&id) => Err(id),
            None => Ok(()),
        }
    }

    /// The game's components on these entities, for the `game-data`
    /// interface; `None` (the default) when this scene has none, and every
    /// `game-data` call then fails saying so.
    fn game_data(&mut self) -> Option<&mut dyn GameData> {
        None
    }

    /// The scene as `Any`, for an embedder to reach its own type again
    /// (`downcast_mut`).
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The [`TRANSFORM`] floats of a transform (position, rotation, scale),
/// as [`transform_of`] reads them.
#[inline]
pub fn floats_of(t: &Transform) -> [f32; TRANSFORM] {
    let (p, r, s) = (t.position, t.rotation, t.scale);
    [p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]
}

/// A transform from its [`TRANSFORM`] floats.
pub fn transform_of(v: &[f32; TRANSFORM]) -> Transform {
    Transform {
        position: Vec3::new(v[0], v[1], v[2]),
        rotation: Quat::from_xyzw(v[3], v[4], v[5], v[6]),
        scale: Vec3::new(v[7], v[8], v[9]),
    }
}
