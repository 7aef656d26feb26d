//! Queries over the Bevy world (the `queries` interface): the script
//! entities that have a set of the game's registered components (and
//! `Transform`, `Name`), found with a Bevy query made for that set and
//! kept, and the fields asked for read by reflection into columns.
//! Column writes resolve each component once and check every entity
//! before changing any.

use std::collections::HashMap;
use std::ops::Range;

use bevy::ecs::component::ComponentId;
use bevy::ecs::query::QueryBuilder;
use bevy::ecs::reflect::ReflectComponent;
use bevy::prelude::{Entity, Name, Transform};
use bevy::reflect::{PartialReflect, Reflect, ReflectRef};
use game_host::scene::{
    Column, EntityId, FieldPath, NAME_COMPONENT, Query, Rows, TRANSFORM_COMPONENT, Value,
    floats_of, no_component, transform_floats, wrong_column,
};

use crate::reflect::{check_range, field_at, field_mut, read_leaf, write_leaf};
use crate::scene::{BevyScene, ScriptEntity, ScriptReach, ScriptVisible, transform_of};

/// The most Bevy queries kept for scripts' queries at once.
const MAX_QUERIES: usize = 256;

/// A component a query names, resolved.
enum Resolved {
    /// In the world: its id, and its reflection for a game component.
    Present(ComponentId, Option<ReflectComponent>),
    /// No entity ever had it: nothing matches a query requiring it.
    Absent,
}

impl BevyScene {
    /// `component` (a registered one, `Transform` or `Name`) in this
    /// world, or why scripts cannot name it.
    fn resolve(&self, component: &str, write: bool) -> Result<Resolved, String> {
        let (type_id, reflect) = match component {
            TRANSFORM_COMPONENT => (std::any::TypeId::of::<Transform>(), None),
            NAME_COMPONENT => (std::any::TypeId::of::<Name>(), None),
            _ => {
                let (reflect, _) = self
                    .registered(component, write)
                    .map_err(|e| e.replacen("game-data", "queries", 1))?;
                let type_id = self
                    .access
                    .components
                    .get(component)
                    .expect("registered")
                    .type_id;
                (type_id, Some(reflect))
            }
        };
        Ok(match self.world.components().get_id(type_id) {
            Some(id) => Resolved::Present(id, reflect),
            None => Resolved::Absent,
        })
    }

    /// Answers a query (see the module's docs).
    pub(crate) fn run_query(&mut self, query: &Query) -> Result<Rows, String> {
        let mut rows = Rows {
            ids: Vec::new(),
            columns: vec![None; query.fields.len()],
        };
        let mut with = Vec::new();
        let mut reflects: HashMap<&str, ReflectComponent> = HashMap::new();
        let mut absent = false;
        let named = (query.fields.iter().map(|f| f.component.as_str()))
            .chain(query.with.iter().map(String::as_str));
        for component in named {
            match self.resolve(component, false)? {
                Resolved::Present(id, reflect) => {
                    with.push(id);
                    if let Some(reflect) = reflect {
                        reflects.insert(component, reflect);
                    }
                }
                Resolved::Absent => absent = true,
            }
        }
        let mut without = Vec::new();
        for component in &query.without {
            if let Resolved::Present(id, _) = self.resolve(component, false)? {
                without.push(id);
            }
        }
        if absent {
            return Ok(rows);
        }
        if self.reach == ScriptReach::Marked
            && let Some(marked) = self
                .world
                .components()
                .get_id(std::any::TypeId::of::<ScriptVisible>())
        {
            with.push(marked);
        }
        with.sort_unstable();
        with.dedup();
        without.sort_unstable();
        // Each set of components a script queries keeps its Bevy query; a
        // script cycling through sets cannot grow them without bound.
        if self.cache.len() >= MAX_QUERIES
            && !self.cache.contains_key(&(with.clone(), without.clone()))
        {
            self.cache.clear();
        }
        let world = &mut self.world;
        let state = self
            .cache
            .entry((with.clone(), without.clone()))
            .or_insert_with(|| {
                let mut builder = QueryBuilder::<(Entity, &ScriptEntity)>::new(world);
                for &id in &with {
                    builder.with_id(id);
                }
                for &id in &without {
                    builder.without_id(id);
                }
                builder.build()
            });
        let mut found: Vec<(u32, Entity)> = state
            .iter(world)
            .map(|(entity, id)| (id.id(), entity))
            .collect();
        // An id copied onto another entity (a clone, a loaded scene) names
        // only the entity it was given to.
        found.retain(|&(id, entity)| self.names(id, entity));
        found.sort_unstable_by_key(|(id, _)| *id);
        // Each game field: its component's reflection, and the path to it
        // as field indices, found on the first entity (every entity of a
        // type has the same fields), so that no entity pays a lookup by
        // name.
        let mut readers: Vec<(usize, &ReflectComponent, Vec<usize>)> = Vec::new();
        // `Transform` fields are read in the same pass (each entity is at
        // hand here; a look-up by id per entity would find it again).
        let mut transforms: Vec<(usize, Range<usize>)> = Vec::new();
        if let Some(&(id, entity)) = found.first() {
            let entity = self.world.entity(entity);
            for (at, path) in query.fields.iter().enumerate() {
                if path.component == TRANSFORM_COMPONENT {
                    let floats = transform_floats(&path.field);
                    rows.columns[at] = Some(Column::for_transform(&floats, found.len()));
                    transforms.push((at, floats));
                    continue;
                }
                if path.is_entity_field() {
                    continue;
                }
                let reflect = &reflects[path.component.as_str()];
                let value = reflect.reflect(entity).ok_or_else(|| {
                    no_component(EntityId::from(id), &path.component).replacen(
                        "game-data",
                        "queries",
                        1,
                    )
                })?;
                let indices = indices_of(value.as_partial_reflect(), &path.field)
                    .ok_or_else(|| no_such_field(path))?;
                let leaf = leaf_at(value.as_partial_reflect(), &indices).expect("found above");
                let first = read_leaf(leaf).ok_or_else(|| unreachable(path))?;
                rows.columns[at] = Some(Column::of_kind(&first, found.len()).ok_or_else(|| {
                    format!("queries: `{path}` holds a list of numbers, which no column holds")
                })?);
                readers.push((at, reflect, indices));
            }
        }
        rows.ids.reserve(found.len());
        for (id, entity) in found {
            let entity = self.world.entity(entity);
            if !transforms.is_empty() {
                let transform = entity.get::<Transform>().ok_or_else(|| {
                    no_component(EntityId::from(id), TRANSFORM_COMPONENT).replacen(
                        "game-data",
                        "queries",
                        1,
                    )
                })?;
                let flat = floats_of(&transform_of(transform));
                for (at, floats) in &transforms {
                    let column = rows.columns[*at].as_mut().and_then(Column::floats_mut);
                    let column = column.expect("made above for a transform");
                    column.extend_from_slice(&flat[floats.clone()]);
                }
            }
            for (at, reflect, indices) in &readers {
                let path = &query.fields[*at];
                let value = reflect.reflect(entity).ok_or_else(|| {
                    no_component(EntityId::from(id), &path.component).replacen(
                        "game-data",
                        "queries",
                        1,
                    )
                })?;
                let leaf = leaf_at(value.as_partial_reflect(), indices)
                    .ok_or_else(|| no_such_field(path))?;
                let column = rows.columns[*at].as_mut().expect("made above");
                // Floats, the common case, without the detour through a
                // `Value`.
                if let (Column::Numbers(values), Some(x)) =
                    (&mut *column, leaf.try_downcast_ref::<f32>())
                {
                    values.push(f64::from(*x));
                    continue;
                }
                let value = read_leaf(leaf).ok_or_else(|| unreachable(path))?;
                column.push(value).map_err(|kind| {
                    format!("queries: `{path}` holds values of two kinds ({kind} and another)")
                })?;
            }
            rows.ids.push(id);
        }
        Ok(rows)
    }

    /// Writes columns of the game's components (see the module's docs).
    pub(crate) fn write_query_columns(
        &mut self,
        ids: &[u32],
        fields: &[FieldPath],
        columns: &[Column],
    ) -> Result<(), String> {
        let mut reflects = Vec::with_capacity(fields.len());
        for (path, column) in fields.iter().zip(columns) {
            column.check_length(path, ids.len())?;
            let (reflect, _) = self
                .registered(&path.component, true)
                .map_err(|e| e.replacen("game-data", "queries", 1))?;
            reflects.push(reflect);
        }
        let mut entities = Vec::with_capacity(ids.len());
        for &id in ids {
            let entity = self
                .bevy_entity(EntityId::from(id))
                .map_err(|e| e.replacen("game-data", "queries", 1))?;
            for (path, reflect) in fields.iter().zip(&reflects) {
                if !reflect.contains(self.world.entity(entity)) {
                    return Err(no_component(EntityId::from(id), &path.component).replacen(
                        "game-data",
                        "queries",
                        1,
                    ));
                }
            }
            entities.push(entity);
        }
        // Every value must fit its field, in kind and range, before
        // anything changes.
        for (at, (&id, &entity)) in ids.iter().zip(&entities).enumerate() {
            let entity = self.world.entity(entity);
            for ((path, column), reflect) in fields.iter().zip(columns).zip(&reflects) {
                let value = reflect.reflect(entity).expect("checked above");
                let kind = leaf_of(value.as_partial_reflect(), path)?.kind();
                let fitted = column
                    .value(at)
                    .fit(kind)
                    .map_err(|why| wrong_column(path, id, &why))?;
                let leaf = field_at(value.as_partial_reflect(), &path.field)
                    .ok_or_else(|| no_such_field(path))?;
                check_range(leaf, &fitted).map_err(|why| wrong_column(path, id, &why))?;
            }
        }
        for (at, (&id, &entity)) in ids.iter().zip(&entities).enumerate() {
            let mut entity = self.world.entity_mut(entity);
            for ((path, column), reflect) in fields.iter().zip(columns).zip(&reflects) {
                let mut value = reflect.reflect_mut(&mut entity).expect("checked above");
                let target: &mut dyn Reflect = &mut *value;
                let leaf = field_mut(target.as_partial_reflect_mut(), &path.field)
                    .ok_or_else(|| no_such_field(path))?;
                let kind = read_leaf(leaf).ok_or_else(|| unreachable(path))?.kind();
                let value = column
                    .value(at)
                    .fit(kind)
                    .map_err(|why| wrong_column(path, id, &why))?;
                write_leaf(leaf, value).map_err(|why| wrong_column(path, id, &why))?;
            }
        }
        Ok(())
    }
}

/// The value of field `path` under its component's `value`.
fn leaf_of(value: &dyn PartialReflect, path: &FieldPath) -> Result<Value, String> {
    let leaf = field_at(value, &path.field).ok_or_else(|| no_such_field(path))?;
    read_leaf(leaf).ok_or_else(|| unreachable(path))
}

/// The indices of the fields along `path` (`a.b`, `0`) under `value`.
fn indices_of(value: &dyn PartialReflect, path: &str) -> Option<Vec<usize>> {
    let mut indices = Vec::new();
    let mut value = value;
    for name in path.split('.') {
        let at = match value.reflect_ref() {
            ReflectRef::Struct(s) => (0..s.field_len()).find(|&i| s.name_at(i) == Some(name))?,
            ReflectRef::TupleStruct(_) => name.parse().ok()?,
            _ => return None,
        };
        indices.push(at);
        value = leaf_at(value, &[at])?;
    }
    Some(indices)
}

/// The field at `indices` under `value`.
fn leaf_at<'a>(value: &'a dyn PartialReflect, indices: &[usize]) -> Option<&'a dyn PartialReflect> {
    let mut value = value;
    for &at in indices {
        value = match value.reflect_ref() {
            ReflectRef::Struct(s) => s.field_at(at)?,
            ReflectRef::TupleStruct(t) => t.field(at)?,
            _ => return None,
        };
    }
    Some(value)
}

fn no_such_field(path: &FieldPath) -> String {
    format!(
        "queries: component `{}` has no field `{}`",
        path.component, path.field
    )
}

fn unreachable(path: &FieldPath) -> String {
    format!("queries: field `{path}` is of a type scripts cannot reach")
}
