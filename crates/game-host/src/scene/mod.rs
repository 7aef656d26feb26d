//! The scene shared by every script: named entities, each with a transform.
//!
//! Entities live in creation order in one flat vector and are addressed by
//! index ([`EntityId`]). Scripts reach them through `transform-component`
//! handles; the renderer and `--dump-scene` read them directly.

mod digest;
mod dump;
mod handle;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use glam::{Quat, Vec3};

pub use dump::SceneDump;
pub use handle::TransformHandle;

/// The scene as shared between the runtime and every script instance. Lock
/// it with [`LockExt::lock_unpoisoned`](crate::sync::LockExt): a panic
/// elsewhere while it was locked does not stop the game.
pub type SharedScene = Arc<Mutex<Scene>>;

/// Name of the entity the default scene starts with.
pub const CUBE: &str = "cube";

/// Translation, rotation and scale of an entity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Position in world units.
    pub position: Vec3,
    /// Unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }
}

/// One named object in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// Name given at spawn; need not be unique.
    pub name: String,
    /// Where it is.
    pub transform: Transform,
}

/// Index of an entity in creation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntityId(u32);

impl EntityId {
    /// Position of the entity in creation order.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl From<u32> for EntityId {
    fn from(index: u32) -> Self {
        EntityId(index)
    }
}

/// All entities, in creation order.
#[derive(Debug, Default)]
pub struct Scene {
    entities: Vec<Entity>,
    /// First entity (in creation order) of each name.
    first_by_name: HashMap<String, EntityId>,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Scene::default()
    }

    /// The default scene: one cube named `cube` at the origin.
    pub fn with_default_cube() -> Self {
        let mut scene = Scene::new();
        scene.spawn(CUBE);
        scene
    }

    /// Wraps the scene for sharing with scripts.
    pub fn shared(self) -> SharedScene {
        Arc::new(Mutex::new(self))
    }

    /// Adds an entity with the default transform and returns its id.
    pub fn spawn(&mut self, name: &str) -> EntityId {
        self.spawn_with(name, Transform::default())
    }

    /// Adds an entity with the given transform and returns its id.
    pub fn spawn_with(&mut self, name: &str, transform: Transform) -> EntityId {
        let index = u32::try_from(self.entities.len()).expect("more than u32::MAX entities");
        let id = EntityId(index);
        self.entities.push(Entity {
            name: name.to_owned(),
            transform,
        });
        self.first_by_name.entry(name.to_owned()).or_insert(id);
        id
    }

    /// The first entity (in creation order) named `name`.
    pub fn find(&self, name: &str) -> Option<EntityId> {
        self.first_by_name.get(name).copied()
    }

    /// The entity with this id, if it exists.
    pub fn entity(&self, id: EntityId) -> Option<&Entity> {
        self.entities.get(id.index())
    }

    /// The transform of an entity, if it exists.
    pub fn transform(&self, id: EntityId) -> Option<&Transform> {
        self.entity(id).map(|entity| &entity.transform)
    }

    /// Mutable access to the transform of an entity, if it exists.
    pub fn transform_mut(&mut self, id: EntityId) -> Option<&mut Transform> {
        self.entities
            .get_mut(id.index())
            .map(|entity| &mut entity.transform)
    }

    /// All entities in creation order.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the scene has no entities.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scene_has_one_cube_at_origin() {
        let scene = Scene::with_default_cube();
        let cube = scene.find(CUBE).expect("cube");
        assert_eq!(cube.index(), 0);
        assert_eq!(scene.transform(cube), Some(&Transform::default()));
    }

    #[test]
    fn find_returns_first_of_a_name() {
        let mut scene = Scene::new();
        let first = scene.spawn("enemy");
        scene.spawn("enemy");
        assert_eq!(scene.find("enemy"), Some(first));
        assert_eq!(scene.find("nobody"), None);
        assert_eq!(scene.len(), 2);
    }
}
