//! Game data in Bevy: the components a game registers for scripts
//! ([`ScriptApp::register_script_component`](crate::ScriptApp)), read and
//! written by name through Bevy reflection, as the `game-data` interface
//! asks.
//!
//! A component's fields are its reflected struct (or tuple struct) fields,
//! nested ones flattened as `a.b`. Floats read as `number`, integers as
//! `integer`, `bool`, `String`, `Vec3`, `Quat` and `Vec<f32>`/`Vec<f64>`
//! as themselves; fields of other types are not reachable by scripts (a
//! write to one names it). Each failure is one line naming the entity, the
//! component and the field.

use bevy::ecs::reflect::ReflectComponent;
use bevy::prelude::{Quat as BevyQuat, ReflectDefault, Vec3 as BevyVec3};
use bevy::reflect::{PartialReflect, Reflect, ReflectMut, ReflectRef};
use game_host::scene::{
    EntityId, Field, GameData, Value, no_component, no_entity, no_field, wrong_kind,
};

use crate::registry::ScriptAccess;
use crate::scene::BevyScene;

/// A float, integer or other leaf value of a field, if scripts can reach it.
fn read_leaf(value: &dyn PartialReflect) -> Option<Value> {
    macro_rules! integers {
        ($($ty:ty),*) => {
            $(
                if let Some(n) = value.try_downcast_ref::<$ty>() {
                    return i64::try_from(*n).ok().map(Value::Integer);
                }
            )*
        };
    }
    if let Some(x) = value.try_downcast_ref::<f32>() {
        return Some(Value::Number(f64::from(*x)));
    }
    if let Some(x) = value.try_downcast_ref::<f64>() {
        return Some(Value::Number(*x));
    }
    integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
    if let Some(b) = value.try_downcast_ref::<bool>() {
        return Some(Value::Boolean(*b));
    }
    if let Some(t) = value.try_downcast_ref::<String>() {
        return Some(Value::Text(t.clone()));
    }
    if let Some(v) = value.try_downcast_ref::<BevyVec3>() {
        return Some(Value::Vec3(glam::Vec3::from_array(v.to_array())));
    }
    if let Some(q) = value.try_downcast_ref::<BevyQuat>() {
        return Some(Value::Quat(glam::Quat::from_array(q.to_array())));
    }
    if let Some(list) = value.try_downcast_ref::<Vec<f32>>() {
        return Some(Value::Numbers(list.iter().map(|&x| f64::from(x)).collect()));
    }
    if let Some(list) = value.try_downcast_ref::<Vec<f64>>() {
        return Some(Value::Numbers(list.clone()));
    }
    None
}

/// Writes `value` (already fitted to the leaf's kind) into the leaf.
fn write_leaf(leaf: &mut dyn PartialReflect, value: Value) -> Result<(), String> {
    macro_rules! integers {
        ($n:expr, $($ty:ty),*) => {
            $(
                if let Some(slot) = leaf.try_downcast_mut::<$ty>() {
                    *slot = <$ty>::try_from($n).map_err(|_| {
                        format!("{} is out of range for a {}", $n, stringify!($ty))
                    })?;
                    return Ok(());
                }
            )*
        };
    }
    match value {
        Value::Number(x) => {
            if let Some(slot) = leaf.try_downcast_mut::<f32>() {
                *slot = x as f32;
            } else if let Some(slot) = leaf.try_downcast_mut::<f64>() {
                *slot = x;
            }
        }
        Value::Integer(n) => {
            integers!(n, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
        }
        Value::Boolean(b) => set(leaf, b),
        Value::Text(t) => set(leaf, t),
        Value::Vec3(v) => set(leaf, BevyVec3::from_array(v.to_array())),
        Value::Quat(q) => set(leaf, BevyQuat::from_array(q.to_array())),
        Value::Numbers(list) => {
            if let Some(slot) = leaf.try_downcast_mut::<Vec<f32>>() {
                *slot = list.iter().map(|&x| x as f32).collect();
            } else if let Some(slot) = leaf.try_downcast_mut::<Vec<f64>>() {
                *slot = list;
            }
        }
    }
    Ok(())
}

fn set<T: Reflect>(leaf: &mut dyn PartialReflect, value: T) {
    if let Some(slot) = leaf.try_downcast_mut::<T>() {
        *slot = value;
    }
}

/// Appends the fields scripts can reach under `value` to `out`, named
/// `prefix` and the field's path.
fn flatten(value: &dyn PartialReflect, prefix: &str, out: &mut Vec<Field>) {
    if let Some(leaf) = read_leaf(value) {
        out.push(Field::new(prefix, leaf));
        return;
    }
    let path = |name: &str| match prefix.is_empty() {
        true => name.to_owned(),
        false => format!("{prefix}.{name}"),
    };
    match value.reflect_ref() {
        ReflectRef::Struct(s) => {
            for at in 0..s.field_len() {
                if let (Some(name), Some(field)) = (s.name_at(at), s.field_at(at)) {
                    flatten(field, &path(name), out);
                }
            }
        }
        ReflectRef::TupleStruct(t) => {
            for at in 0..t.field_len() {
                if let Some(field) = t.field(at) {
                    flatten(field, &path(&at.to_string()), out);
                }
            }
        }
        _ => {}
    }
}

/// The field at `path` (`a.b`, `0`) under `value`.
fn field_mut<'a>(
    value: &'a mut dyn PartialReflect,
    path: &str,
) -> Option<&'a mut dyn PartialReflect> {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let field = match value.reflect_mut() {
        ReflectMut::Struct(s) => s.field_mut(head)?,
        ReflectMut::TupleStruct(t) => t.field_mut(head.parse().ok()?)?,
        _ => return None,
    };
    match rest {
        Some(rest) => field_mut(field, rest),
        None => Some(field),
    }
}

/// Writes `fields` into `value`, each checked as `set-field` checks it.
fn write_fields(
    value: &mut dyn PartialReflect,
    id: EntityId,
    component: &str,
    fields: Vec<Field>,
) -> Result<(), String> {
    for field in fields {
        let leaf =
            field_mut(value, &field.name).ok_or_else(|| no_field(id, component, &field.name))?;
        let current =
            read_leaf(leaf).ok_or_else(|| unreachable_field(id, component, &field.name))?;
        let fitted = field
            .value
            .fit(current.kind())
            .map_err(|why| wrong_kind(id, component, &field.name, &why))?;
        write_leaf(leaf, fitted).map_err(|why| wrong_kind(id, component, &field.name, &why))?;
    }
    Ok(())
}

fn unreachable_field(id: EntityId, component: &str, field: &str) -> String {
    format!(
        "game-data: field `{field}` of component `{component}` (entity {}) is of a type \
         scripts cannot reach",
        id.index()
    )
}

impl BevyScene {
    /// The registered component named `component`, with its reflection,
    /// or why there is none. With `write`, also fails for a component the
    /// game registered as read-only.
    fn registered(
        &self,
        component: &str,
        write: bool,
    ) -> Result<(ReflectComponent, Option<ReflectDefault>), String> {
        let registered = self.access.components.get(component).ok_or_else(|| {
            let names: Vec<&str> = self.access.components.names().collect();
            format!(
                "game-data: no component named `{component}` is registered for scripts \
                 (registered: {})",
                match names.is_empty() {
                    true => "none".to_owned(),
                    false => names.join(", "),
                }
            )
        })?;
        if write && registered.access == ScriptAccess::Read {
            return Err(format!(
                "game-data: the game lets scripts read `{component}`, not write it"
            ));
        }
        let types = self
            .access
            .types
            .as_ref()
            .ok_or_else(|| "game-data: the app has no type registry".to_owned())?
            .read();
        let registration = types
            .get(registered.type_id)
            .ok_or_else(|| format!("game-data: `{component}` is not in the type registry"))?;
        let reflect = registration
            .data::<ReflectComponent>()
            .cloned()
            .ok_or_else(|| format!("game-data: `{component}` does not reflect Component"))?;
        Ok((reflect, registration.data::<ReflectDefault>().cloned()))
    }

    fn bevy_entity(&self, id: EntityId) -> Result<bevy::prelude::Entity, String> {
        self.entity(id)
            .filter(|&e| self.world.get_entity(e).is_ok())
            .ok_or_else(|| no_entity(id))
    }
}

impl GameData for BevyScene {
    fn has(&mut self, id: EntityId, component: &str) -> bool {
        let (Ok((reflect, _)), Ok(entity)) =
            (self.registered(component, false), self.bevy_entity(id))
        else {
            return false;
        };
        reflect.contains(self.world.entity(entity))
    }

    fn get(&mut self, id: EntityId, component: &str) -> Result<Vec<Field>, String> {
        let (reflect, _) = self.registered(component, false)?;
        let entity = self.bevy_entity(id)?;
        let value = reflect
            .reflect(self.world.entity(entity))
            .ok_or_else(|| no_component(id, component))?;
        let mut fields = Vec::new();
        flatten(value.as_partial_reflect(), "", &mut fields);
        Ok(fields)
    }

    fn set_field(
        &mut self,
        id: EntityId,
        component: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String> {
        let (reflect, _) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let mut entity = self.world.entity_mut(entity);
        let mut current = reflect
            .reflect_mut(&mut entity)
            .ok_or_else(|| no_component(id, component))?;
        let target: &mut dyn Reflect = &mut *current;
        write_fields(
            target.as_partial_reflect_mut(),
            id,
            component,
            vec![Field::new(field, value)],
        )
    }

    fn insert(&mut self, id: EntityId, component: &str, fields: Vec<Field>) -> Result<(), String> {
        let (reflect, default) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let default = default.ok_or_else(|| {
            format!(
                "game-data: cannot insert `{component}`: the game's type does not reflect Default"
            )
        })?;
        let mut value = default.default();
        write_fields(value.as_partial_reflect_mut(), id, component, fields)?;
        let types = self.access.types.clone().expect("checked by `registered`");
        let types = types.read();
        let mut entity = self.world.entity_mut(entity);
        reflect.insert(&mut entity, value.as_partial_reflect(), &types);
        Ok(())
    }

    fn remove(&mut self, id: EntityId, component: &str) -> Result<bool, String> {
        let (reflect, _) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let mut entity = self.world.entity_mut(entity);
        if !reflect.contains(&entity) {
            return Ok(false);
        }
        reflect.remove(&mut entity);
        Ok(true)
    }
}
