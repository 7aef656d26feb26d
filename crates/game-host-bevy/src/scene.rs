//! [`BevyScene`]: the core's [`GameScene`] over a Bevy `World`, so scripts
//! act on Bevy entities in place: `spawn` makes an entity with `Name`,
//! `Transform` and [`ScriptEntity`], `find` looks up `Name`, and the
//! transform calls read and write Bevy's `Transform` directly.
//!
//! The scene owns a `World` only while scripts run: for each fixed step
//! the plugin swaps the app's world into it ([`BevyScene::lend`]) and back
//! out, a move of the `World` value and no copy of any entity (the same
//! swap Bevy's render app makes with the main world). Outside a step the
//! scene holds an empty placeholder world, and every call finds nothing.
//!
//! Script ids are the scene's own, given in order and never reused (as in
//! the core's scene): each is kept on its entity as [`ScriptEntity`], and
//! a despawned entity's id names nothing.
//!
//! Which of the game's entities exist for scripts is the game's choice
//! ([`ScriptReach`]): by default those it marks [`ScriptVisible`], or
//! every entity with a `Name` and a `Transform`. Such an entity gets an id
//! at the next step, in `Entity` order, so scripts find, query, read and
//! write it; any other has no id, and scripts cannot name it. Entities
//! scripts spawn are marked.

use std::any::Any;
use std::collections::HashMap;

use bevy::ecs::component::ComponentId;
use bevy::ecs::query::QueryState;
use bevy::ecs::reflect::ReflectComponent;
use bevy::ecs::world::WorldId;
use bevy::prelude::ReflectDefault;
use bevy::prelude::{
    Component, Entity, Name, Quat as BevyQuat, Reflect, Resource, Transform as BevyTransform,
    Vec3 as BevyVec3, With, Without, World,
};
use game_host::scene::{EntityId, GameData, GameScene, Transform};

use crate::registry::ComponentAccess;

/// The script id of a Bevy entity scripts can reach (its `entity-id`).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub struct ScriptEntity(pub(crate) u32);

/// Marks an entity that scripts may reach (with [`ScriptReach::Marked`],
/// the default): the game adds it to the entities it offers scripts.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default)]
pub struct ScriptVisible;

/// Which of the game's entities exist for scripts (a setting of the
/// plugin, kept as a resource).
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ScriptReach {
    /// Those the game marks [`ScriptVisible`] (and those scripts spawn):
    /// the camera, the UI and the player's avatar stay the game's own.
    #[default]
    Marked,
    /// Every entity with a `Name` and a `Transform`.
    Named,
}

impl ScriptEntity {
    /// The id scripts know the entity by.
    pub fn id(self) -> u32 {
        self.0
    }
}

/// Bevy entities not known to scripts yet that scripts can reach, by
/// [`ScriptReach`].
type UnadoptedNamed = (With<Name>, With<BevyTransform>, Without<ScriptEntity>);
type UnadoptedMarked = (With<ScriptVisible>, Without<ScriptEntity>);

/// The scripts' queries made so far (`queries`), by the components they
/// require and exclude.
pub(crate) type QueryCache =
    HashMap<(Vec<ComponentId>, Vec<ComponentId>), QueryState<(Entity, &'static ScriptEntity)>>;

/// The Bevy world as scripts see it (see the module's docs).
pub struct BevyScene {
    /// The app's world during a step; a placeholder outside one.
    pub(crate) world: World,
    /// The Bevy entity of each script id, `None` once despawned.
    ids: Vec<Option<Entity>>,
    /// Game data by name, for `game-data`.
    pub(crate) access: ComponentAccess,
    /// The queries over the app's world, made on the first lend and kept
    /// (a query made per call costs microseconds).
    queries: Option<Queries>,
    /// The scripts' queries, for `queries`.
    pub(crate) cache: QueryCache,
    /// Which entities exist for scripts, read from the world at each lend.
    pub(crate) reach: ScriptReach,
}

/// The scene's queries over the app's world.
struct Queries {
    /// The world they were made for.
    world: WorldId,
    named_new: QueryState<Entity, UnadoptedNamed>,
    marked_new: QueryState<Entity, UnadoptedMarked>,
    named: QueryState<(&'static ScriptEntity, &'static Name)>,
}

impl Default for BevyScene {
    fn default() -> Self {
        BevyScene::new()
    }
}

impl BevyScene {
    /// A scene that has seen no entity yet.
    pub fn new() -> Self {
        BevyScene {
            world: World::new(),
            ids: Vec::new(),
            access: ComponentAccess::default(),
            queries: None,
            cache: QueryCache::default(),
            reach: ScriptReach::default(),
        }
    }

    /// Takes the app's `world` (leaving the scene's placeholder in its
    /// place) for scripts to act on, until [`BevyScene::give_back`]. Gives
    /// script ids to the named, transformed entities the game spawned
    /// since the last step.
    pub fn lend(&mut self, world: &mut World) {
        std::mem::swap(&mut self.world, world);
        self.access = ComponentAccess::of(&self.world);
        let reach = self.world.get_resource::<ScriptReach>().copied();
        if reach.unwrap_or_default() != self.reach {
            self.reach = reach.unwrap_or_default();
            self.cache.clear();
        }
        if self
            .queries
            .as_ref()
            .is_none_or(|q| q.world != self.world.id())
        {
            self.queries = Some(Queries {
                world: self.world.id(),
                named_new: QueryState::new(&mut self.world),
                marked_new: QueryState::new(&mut self.world),
                named: QueryState::new(&mut self.world),
            });
            self.cache.clear();
        }
        self.adopt();
    }

    /// Gives the app's world back into `world` (which holds the
    /// placeholder [`BevyScene::lend`] left).
    pub fn give_back(&mut self, world: &mut World) {
        std::mem::swap(&mut self.world, world);
    }

    /// The Bevy entity behind script id `id`, while scripts may reach it:
    /// with [`ScriptReach::Marked`], while it is marked [`ScriptVisible`]
    /// (an entity the game unmarks is gone for scripts).
    pub fn entity(&self, id: EntityId) -> Option<Entity> {
        let entity = (*self.ids.get(id.index())?)?;
        match self.reach {
            ScriptReach::Marked => self
                .world
                .get_entity(entity)
                .ok()
                .filter(|e| e.contains::<ScriptVisible>())
                .map(|_| entity),
            ScriptReach::Named => Some(entity),
        }
    }

    /// Whether script id `id` names `entity` (and not a copy of its
    /// `ScriptEntity` on another entity).
    pub(crate) fn names(&self, id: u32, entity: Entity) -> bool {
        self.ids.get(id as usize) == Some(&Some(entity))
    }

    /// Gives ids to the entities the game offers scripts since the last
    /// step ([`ScriptReach`]).
    fn adopt(&mut self) {
        let Some(queries) = &mut self.queries else {
            return;
        };
        let mut new: Vec<Entity> = match self.reach {
            ScriptReach::Marked => queries.marked_new.iter(&self.world).collect(),
            ScriptReach::Named => queries.named_new.iter(&self.world).collect(),
        };
        if new.is_empty() {
            return;
        }
        new.sort();
        for entity in new {
            let id = self.next_id();
            self.world.entity_mut(entity).insert(ScriptEntity(id));
            self.ids.push(Some(entity));
        }
    }

    fn next_id(&self) -> u32 {
        u32::try_from(self.ids.len()).expect("fewer than u32::MAX script entities")
    }

    fn bevy_transform(&self, id: EntityId) -> Option<&BevyTransform> {
        self.world.get::<BevyTransform>(self.entity(id)?)
    }

    fn bevy_transform_mut(
        &mut self,
        id: EntityId,
    ) -> Option<bevy::prelude::Mut<'_, BevyTransform>> {
        let entity = self.entity(id)?;
        self.world.get_mut::<BevyTransform>(entity)
    }
}

/// Bevy's glam and the core's are different versions: values cross as
/// arrays.
fn vec3(v: BevyVec3) -> glam::Vec3 {
    glam::Vec3::from_array(v.to_array())
}

fn quat(q: BevyQuat) -> glam::Quat {
    glam::Quat::from_array(q.to_array())
}

/// Bevy's transform as the core's.
pub(crate) fn transform_of(t: &BevyTransform) -> Transform {
    Transform {
        position: vec3(t.translation),
        rotation: quat(t.rotation),
        scale: vec3(t.scale),
    }
}

fn bevy_vec3(v: glam::Vec3) -> BevyVec3 {
    BevyVec3::from_array(v.to_array())
}

fn bevy_quat(q: glam::Quat) -> BevyQuat {
    BevyQuat::from_array(q.to_array())
}

impl GameScene for BevyScene {
    fn spawn(&mut self, name: &str) -> EntityId {
        let id = self.next_id();
        let entity = self
            .world
            .spawn((
                Name::new(name.to_owned()),
                BevyTransform::default(),
                ScriptEntity(id),
                ScriptVisible,
            ))
            .id();
        self.ids.push(Some(entity));
        EntityId::from(id)
    }

    fn find(&mut self, name: &str) -> Option<EntityId> {
        let queries = self.queries.as_mut()?;
        if queries.world != self.world.id() {
            return None; // not lent: the placeholder has no entity
        }
        queries
            .named
            .iter(&self.world)
            .filter(|(_, n)| n.as_str() == name)
            .map(|(id, _)| id.0)
            .min()
            .map(EntityId::from)
    }

    fn despawn(&mut self, id: EntityId) -> bool {
        let Some(entity) = self.entity(id) else {
            return false;
        };
        self.ids[id.index()] = None;
        self.world.try_despawn(entity).is_ok()
    }

    fn name(&mut self, id: EntityId) -> Option<String> {
        let entity = self.entity(id)?;
        Some(self.world.get::<Name>(entity)?.as_str().to_owned())
    }

    fn transform(&mut self, id: EntityId) -> Option<Transform> {
        let t = self.bevy_transform(id)?;
        Some(transform_of(t))
    }

    fn set_transform(&mut self, id: EntityId, transform: Transform) -> bool {
        let Some(mut t) = self.bevy_transform_mut(id) else {
            return false;
        };
        t.translation = bevy_vec3(transform.position);
        t.rotation = bevy_quat(transform.rotation);
        t.scale = bevy_vec3(transform.scale);
        true
    }

    fn position(&mut self, id: EntityId) -> Option<glam::Vec3> {
        Some(vec3(self.bevy_transform(id)?.translation))
    }

    fn rotation(&mut self, id: EntityId) -> Option<glam::Quat> {
        Some(quat(self.bevy_transform(id)?.rotation))
    }

    fn set_position(&mut self, id: EntityId, position: glam::Vec3) -> bool {
        let Some(mut t) = self.bevy_transform_mut(id) else {
            return false;
        };
        t.translation = bevy_vec3(position);
        true
    }

    fn set_rotation(&mut self, id: EntityId, rotation: glam::Quat) -> bool {
        let Some(mut t) = self.bevy_transform_mut(id) else {
            return false;
        };
        t.rotation = bevy_quat(rotation);
        true
    }

    fn contains(&mut self, id: EntityId) -> bool {
        self.bevy_transform(id).is_some()
    }

    fn for_each(&mut self, visit: &mut dyn FnMut(EntityId, &str, &Transform)) {
        for id in 0..self.ids.len() {
            let Some(entity) = self.entity(EntityId::from(id as u32)) else {
                continue;
            };
            let Ok(entity) = self.world.get_entity(entity) else {
                continue;
            };
            let (Some(name), Some(t)) = (entity.get::<Name>(), entity.get::<BevyTransform>())
            else {
                continue;
            };
            let transform = transform_of(t);
            visit(EntityId::from(id as u32), name.as_str(), &transform);
        }
    }

    fn len(&mut self) -> usize {
        let mut count = 0;
        self.for_each(&mut |_, _, _| count += 1);
        count
    }

    fn game_data(&mut self) -> Option<&mut dyn GameData> {
        Some(self)
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
