//! The scene shared by every script: named entities, each kept through a
//! [`TransformComponent`]. Vectors and quaternions are glam's
//! ([`Vec3`], [`Quat`]); the WIT records convert to and from them.

use crate::bindings::game::engine::lifetime;
use crate::bindings::game::engine::relative;
use crate::bindings::game::engine::scene as wit_scene;
use crate::bindings::game::engine::scene::TransformComponent as Handle;
use crate::entities::{self, EntityId};
pub use glam::{Quat, Vec3};

/// One entity's transform, as a script keeps it.
///
/// It carries the entity's id and reads and writes position and rotation
/// by id through the flat WIT `entity` interface, the cheapest way to
/// reach one entity (no resource is borrowed per call). Its position and
/// rotation writes are buffered with the [`entities`] writes, in order, and
/// reach the host in one call at the end of the call into the script (a
/// lone write goes by the flat single-entity call). Its reads, its other
/// writes, [`handle`](Self::handle), despawns, queries and game-data
/// inserts send them first; a raw resource kept from `handle()` does not.
/// A buffered write the host refuses (an unknown id, or one the script's
/// grants do not allow) stops the script when the buffer is sent, and none
/// of the writes sent with it lands.
/// It also keeps the entity's WIT `transform-component` resource, used for
/// the scale, for [`set_trs`](Self::set_trs) and by APIs that take the
/// resource ([`handle`](Self::handle)). Dropping it frees that resource on
/// the host; the entity stays.
pub struct TransformComponent {
    id: EntityId,
    handle: wit_scene::TransformComponent,
}

impl TransformComponent {
    /// Wraps a WIT resource handle (one host call asks its entity's id).
    pub fn from_handle(handle: wit_scene::TransformComponent) -> Self {
        TransformComponent {
            id: handle.id(),
            handle,
        }
    }

    /// The entity's id, for the [`entities`] functions.
    pub fn id(&self) -> EntityId {
        self.id
    }

    /// The WIT resource behind it, for interfaces that take one (buffered
    /// writes are sent first, so what the resource reaches sees them).
    pub fn handle(&self) -> &wit_scene::TransformComponent {
        entities::flush();
        &self.handle
    }

    /// Name of the entity.
    pub fn name(&self) -> String {
        self.handle.name()
    }

    /// Position in world units.
    #[inline]
    pub fn position(&self) -> Vec3 {
        entities::position(self.id)
    }

    /// Sets the position (buffered with the [`entities`] writes: sent at
    /// the end of the call, or before the next read).
    #[inline]
    pub fn set_position(&self, position: Vec3) {
        entities::set_position(self.id, position);
    }

    /// Rotation (a unit quaternion).
    #[inline]
    pub fn rotation(&self) -> Quat {
        entities::rotation(self.id)
    }

    /// Sets the rotation (buffered, as [`set_position`](Self::set_position)).
    #[inline]
    pub fn set_rotation(&self, rotation: Quat) {
        entities::set_rotation(self.id, rotation);
    }

    /// Per-axis scale.
    pub fn scale(&self) -> Vec3 {
        entities::flush();
        self.handle.scale().into()
    }

    /// Sets the scale.
    pub fn set_scale(&self, scale: Vec3) {
        entities::flush();
        self.handle.set_scale(scale.into());
    }

    /// Sets position, rotation and scale in one call.
    pub fn set_trs(&self, position: Vec3, rotation: Quat, scale: Vec3) {
        entities::flush();
        self.handle
            .set_trs(position.into(), rotation.into(), scale.into());
    }

    /// Applies `delta` on top of the current rotation (world axes):
    /// `rotation = delta * rotation`, normalised. A relative write: where
    /// several scripts turn one entity in a frame, every turn counts (see
    /// [`relative`](crate::bindings::game::engine::relative)), where
    /// [`set_rotation`](Self::set_rotation) keeps only the last.
    #[inline]
    pub fn rotate(&self, delta: Quat) {
        entities::flush();
        relative::rotate(self.id, delta.into());
    }

    /// Moves the position by `offset`. A relative write: where several
    /// scripts move one entity in a frame, every move counts.
    #[inline]
    pub fn translate(&self, offset: Vec3) {
        entities::flush();
        relative::translate(self.id, offset.into());
    }
}

impl std::fmt::Debug for TransformComponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransformComponent")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The default scene's cube (the entity named `cube`).
pub fn cube() -> TransformComponent {
    TransformComponent::from_handle(wit_scene::cube_transform())
}

/// Creates an entity named `name` at the origin (identity rotation, unit
/// scale). Names need not be unique.
pub fn spawn(name: &str) -> TransformComponent {
    TransformComponent::from_handle(wit_scene::spawn(name))
}

/// The first entity (in creation order) named `name`, if any.
pub fn find(name: &str) -> Option<TransformComponent> {
    wit_scene::find(name).map(TransformComponent::from_handle)
}

/// Despawns the entity with this id, with its transform and game data;
/// false if no entity has it (never did, or was despawned already). Ids
/// are never reused: calls with this one fail from now on. Buffered
/// [`entities`] writes go first.
pub fn despawn(id: EntityId) -> bool {
    entities::flush();
    lifetime::despawn(id)
}

/// Whether an entity has this id (it was not despawned).
pub fn exists(id: EntityId) -> bool {
    lifetime::exists(id)
}

/// The glam-typed transform methods under the names earlier SDKs gave
/// them, for the SDK's [`TransformComponent`] and for the raw WIT resource.
pub trait TransformExt {
    /// Position as a [`glam::Vec3`].
    fn translation(&self) -> glam::Vec3;
    /// Sets the position.
    fn set_translation(&self, position: glam::Vec3);
    /// Rotation as a [`glam::Quat`].
    fn orientation(&self) -> glam::Quat;
    /// Sets the rotation.
    fn set_orientation(&self, rotation: glam::Quat);
    /// Scale as a [`glam::Vec3`].
    fn scaling(&self) -> glam::Vec3;
    /// Sets the scale.
    fn set_scaling(&self, scale: glam::Vec3);
    /// Applies `delta` on top of the current rotation (world axes):
    /// `rotation = delta * rotation`.
    fn rotate(&self, delta: glam::Quat);
    /// Moves the position by `offset`.
    fn translate(&self, offset: glam::Vec3);
}

impl TransformExt for TransformComponent {
    #[inline]
    fn translation(&self) -> glam::Vec3 {
        self.position()
    }

    #[inline]
    fn set_translation(&self, position: glam::Vec3) {
        self.set_position(position);
    }

    #[inline]
    fn orientation(&self) -> glam::Quat {
        self.rotation()
    }

    #[inline]
    fn set_orientation(&self, rotation: glam::Quat) {
        self.set_rotation(rotation);
    }

    fn scaling(&self) -> glam::Vec3 {
        self.scale()
    }

    fn set_scaling(&self, scale: glam::Vec3) {
        self.set_scale(scale);
    }

    #[inline]
    fn rotate(&self, delta: glam::Quat) {
        TransformComponent::rotate(self, delta);
    }

    #[inline]
    fn translate(&self, offset: glam::Vec3) {
        TransformComponent::translate(self, offset);
    }
}

/// The raw resource: each method borrows it for one host call, after
/// sending the buffered [`entities`] writes.
impl TransformExt for Handle {
    fn translation(&self) -> glam::Vec3 {
        entities::flush();
        self.position().into()
    }

    fn set_translation(&self, position: glam::Vec3) {
        entities::flush();
        self.set_position(position.into());
    }

    fn orientation(&self) -> glam::Quat {
        entities::flush();
        self.rotation().into()
    }

    fn set_orientation(&self, rotation: glam::Quat) {
        entities::flush();
        self.set_rotation(rotation.into());
    }

    fn scaling(&self) -> glam::Vec3 {
        entities::flush();
        self.scale().into()
    }

    fn set_scaling(&self, scale: glam::Vec3) {
        entities::flush();
        self.set_scale(scale.into());
    }

    fn rotate(&self, delta: glam::Quat) {
        entities::flush();
        relative::rotate(self.id(), delta.into());
    }

    fn translate(&self, offset: glam::Vec3) {
        entities::flush();
        relative::translate(self.id(), offset.into());
    }
}
