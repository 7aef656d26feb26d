//! [`Scene`]: the core's own [`GameScene`], for `host run`, `host serve`
//! and embedders without a world of their own.

use std::any::Any;
use std::collections::{BTreeSet, HashMap};

use glam::{Quat, Vec3};

use super::data::{GameData, no_entity};
use super::entity::{CUBE, Entity, EntityId, Transform};
use super::game_scene::{GameScene, QUAT, TRANSFORM, VEC3, floats_of, transform_of};
use super::query::{Query, Rows};
use super::table::DataTable;
use super::value::{Field, Value};

/// The core's own scene: entities in creation order, addressed by index.
/// A despawned entity leaves a gap, so ids are never reused.
#[derive(Debug, Default)]
pub struct Scene {
    entities: Vec<Option<Entity>>,
    /// Entities not despawned.
    live: usize,
    /// The living entities of each name, by id: the first is what `find`
    /// answers.
    by_name: HashMap<String, BTreeSet<u32>>,
    /// The components scripts inserted (`game-data`).
    data: DataTable,
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

    /// Adds an entity with the default transform and returns its id.
    pub fn spawn(&mut self, name: &str) -> EntityId {
        self.spawn_with(name, Transform::default())
    }

    /// Adds an entity with the given transform and returns its id.
    pub fn spawn_with(&mut self, name: &str, transform: Transform) -> EntityId {
        let index = u32::try_from(self.entities.len()).expect("more than u32::MAX entities");
        self.entities.push(Some(Entity {
            name: name.to_owned(),
            transform,
        }));
        self.live += 1;
        match self.by_name.get_mut(name) {
            Some(ids) => {
                ids.insert(index);
            }
            None => {
                self.by_name
                    .insert(name.to_owned(), BTreeSet::from([index]));
            }
        }
        EntityId(index)
    }

    /// Removes an entity; false if `id` names none. Its id is not reused.
    pub fn despawn(&mut self, id: EntityId) -> bool {
        let Some(entity) = self.entities.get_mut(id.index()).and_then(Option::take) else {
            return false;
        };
        self.live -= 1;
        self.data.forget(id);
        if let Some(ids) = self.by_name.get_mut(&entity.name) {
            ids.remove(&id.0);
            if ids.is_empty() {
                self.by_name.remove(&entity.name);
            }
        }
        true
    }

    /// The first entity (in creation order) named `name`.
    pub fn find(&self, name: &str) -> Option<EntityId> {
        let first = self.by_name.get(name)?.first()?;
        Some(EntityId(*first))
    }

    /// The entity with this id, if it exists.
    pub fn entity(&self, id: EntityId) -> Option<&Entity> {
        self.entities.get(id.index())?.as_ref()
    }

    /// The transform of an entity, if it exists.
    pub fn transform(&self, id: EntityId) -> Option<&Transform> {
        self.entity(id).map(|entity| &entity.transform)
    }

    /// Mutable access to the transform of an entity, if it exists.
    pub fn transform_mut(&mut self, id: EntityId) -> Option<&mut Transform> {
        let entity = self.entities.get_mut(id.index())?.as_mut()?;
        Some(&mut entity.transform)
    }

    /// All entities in creation order, with their ids.
    pub fn entities(&self) -> impl Iterator<Item = (EntityId, &Entity)> {
        self.entities
            .iter()
            .enumerate()
            .filter_map(|(index, entity)| Some((EntityId(index as u32), entity.as_ref()?)))
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether the scene has no entities.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Runs `set` on the transform of each of `ids` with its chunk of
    /// `values`, all or nothing.
    fn write_each<const N: usize>(
        &mut self,
        ids: &[u32],
        values: &[[f32; N]],
        set: impl Fn(&mut Transform, &[f32; N]),
    ) -> Result<(), u32> {
        // With no entity despawned, an id below the count is an entity: one
        // comparison per id (the common case) instead of a look-up.
        let count = self.entities.len();
        let dense = self.live == count && ids.iter().all(|&id| (id as usize) < count);
        if !dense && let Some(&id) = ids.iter().find(|&&id| self.entity(EntityId(id)).is_none()) {
            return Err(id);
        }
        for (&id, value) in ids.iter().zip(values) {
            if let Some(Some(entity)) = self.entities.get_mut(id as usize) {
                set(&mut entity.transform, value);
            }
        }
        Ok(())
    }
}

impl GameScene for Scene {
    fn spawn(&mut self, name: &str) -> EntityId {
        Scene::spawn(self, name)
    }

    fn find(&mut self, name: &str) -> Option<EntityId> {
        Scene::find(self, name)
    }

    fn despawn(&mut self, id: EntityId) -> bool {
        Scene::despawn(self, id)
    }

    fn name(&mut self, id: EntityId) -> Option<String> {
        self.entity(id).map(|entity| entity.name.clone())
    }

    fn transform(&mut self, id: EntityId) -> Option<Transform> {
        Scene::transform(self, id).copied()
    }

    fn set_transform(&mut self, id: EntityId, transform: Transform) -> bool {
        self.transform_mut(id).map(|t| *t = transform).is_some()
    }

    fn position(&mut self, id: EntityId) -> Option<Vec3> {
        Some(Scene::transform(self, id)?.position)
    }

    fn rotation(&mut self, id: EntityId) -> Option<Quat> {
        Some(Scene::transform(self, id)?.rotation)
    }

    fn set_position(&mut self, id: EntityId, position: Vec3) -> bool {
        self.transform_mut(id)
            .map(|t| t.position = position)
            .is_some()
    }

    fn set_rotation(&mut self, id: EntityId, rotation: Quat) -> bool {
        self.transform_mut(id)
            .map(|t| t.rotation = rotation)
            .is_some()
    }

    fn contains(&mut self, id: EntityId) -> bool {
        self.entity(id).is_some()
    }

    fn for_each(&mut self, visit: &mut dyn FnMut(EntityId, &str, &Transform)) {
        for (id, entity) in self.entities() {
            visit(id, &entity.name, &entity.transform);
        }
    }

    fn len(&mut self) -> usize {
        self.live
    }

    // Kept beside the trait's default: the default, instantiated for
    // `Scene`, cost 1.7% more on 10,000 behaviours (callgrind, 6,482,198
    // against 6,372,219 instructions a frame).
    fn transforms(&mut self, ids: &[u32], out: &mut Vec<f32>) -> Result<(), u32> {
        out.reserve(ids.len() * TRANSFORM);
        for &id in ids {
            let t = Scene::transform(self, EntityId(id)).ok_or(id)?;
            // One whole transform per push: 70% of the instructions of
            // pushing its three parts (callgrind, 10,000 behaviours).
            out.extend_from_slice(&floats_of(t));
        }
        Ok(())
    }

    fn set_transforms(&mut self, ids: &[u32], values: &[[f32; TRANSFORM]]) -> Result<(), u32> {
        self.write_each(ids, values, |t, v| *t = transform_of(v))
    }

    fn set_positions(&mut self, ids: &[u32], values: &[[f32; VEC3]]) -> Result<(), u32> {
        self.write_each(ids, values, |t, v| t.position = Vec3::from_array(*v))
    }

    fn set_rotations(&mut self, ids: &[u32], values: &[[f32; QUAT]]) -> Result<(), u32> {
        self.write_each(ids, values, |t, v| t.rotation = Quat::from_array(*v))
    }

    fn game_data(&mut self) -> Option<&mut dyn GameData> {
        Some(self)
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Scene {
    /// `Ok` if entity `id` lives, else `game-data`'s error naming it.
    fn living(&self, id: EntityId) -> Result<(), String> {
        self.entity(id).map(drop).ok_or_else(|| no_entity(id))
    }
}

/// The components scripts insert, checked against the entities first.
impl GameData for Scene {
    fn has(&mut self, id: EntityId, component: &str) -> bool {
        self.data.has(id, component)
    }

    fn get(&mut self, id: EntityId, component: &str) -> Result<Vec<Field>, String> {
        self.living(id)?;
        self.data.get(id, component)
    }

    fn set_field(
        &mut self,
        id: EntityId,
        component: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String> {
        self.living(id)?;
        self.data.set_field(id, component, field, value)
    }

    fn insert(&mut self, id: EntityId, component: &str, fields: Vec<Field>) -> Result<(), String> {
        self.living(id)?;
        self.data.insert(id, component, fields)
    }

    fn remove(&mut self, id: EntityId, component: &str) -> Result<bool, String> {
        self.living(id)?;
        Ok(self.data.remove(id, component))
    }

    fn get_fields(
        &mut self,
        id: EntityId,
        component: &str,
        names: &[String],
    ) -> Result<Vec<Value>, String> {
        self.living(id)?;
        self.data.get_fields(id, component, names)
    }

    fn set_fields(
        &mut self,
        id: EntityId,
        component: &str,
        names: &[String],
        values: Vec<Value>,
    ) -> Result<(), String> {
        self.living(id)?;
        if !self.data.has(id, component) {
            return (self.data).insert(id, component, Field::named(names, values));
        }
        self.data.set_fields(id, component, names, values)
    }

    fn query(&mut self, query: &Query) -> Result<Rows, String> {
        let living = (self.entities.iter().enumerate())
            .filter(|(_, entity)| entity.is_some())
            .map(|(id, _)| id as u32);
        self.data.query(living, query)
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

    #[test]
    fn despawned_ids_name_nothing_and_are_not_reused() {
        let mut scene = Scene::new();
        let first = scene.spawn("enemy");
        let second = scene.spawn("enemy");
        assert!(scene.despawn(first));
        assert!(!scene.despawn(first), "twice");
        assert_eq!(scene.find("enemy"), Some(second));
        assert_eq!(scene.entity(first), None);
        let third = scene.spawn("enemy");
        assert_ne!(third, first);
        assert_eq!(scene.len(), 2);
        let ids: Vec<EntityId> = scene.entities().map(|(id, _)| id).collect();
        assert_eq!(ids, [second, third]);
        let shared: &mut dyn GameScene = &mut scene;
        assert_eq!(shared.set_positions(&[1, 0], &[[1.0; 3], [2.0; 3]]), Err(0));
        assert_eq!(
            shared.transform(second),
            Some(Transform::default()),
            "all or nothing"
        );
        assert!(shared.despawn(second));
        assert_eq!(shared.find("enemy"), Some(third));
        assert!(shared.despawn(third));
        assert_eq!(shared.find("enemy"), None);
        assert!(shared.is_empty());
    }
}
