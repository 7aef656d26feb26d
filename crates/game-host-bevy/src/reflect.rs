//! Game values through Bevy reflection: the fields of a reflected value
//! (a component, a resource, a message) as scripts see them, and writes
//! into them checked as `game-data` checks them.
//!
//! A value's fields are its reflected struct (or tuple struct) fields,
//! nested ones flattened as `a.b`. Floats read as `number`, integers as
//! `integer`, `bool`, `String`, `Vec3`, `Quat` and `Vec<f32>`/`Vec<f64>`
//! as themselves; fields of other types are not reachable by scripts (a
//! write to one names it). Each failure is one line naming the place
//! ([`Place`]) and the field.

use bevy::prelude::{Quat as BevyQuat, Vec3 as BevyVec3};
use bevy::reflect::{PartialReflect, Reflect, ReflectMut, ReflectRef};
use game_host::scene::{EntityId, Field, Value, no_field, wrong_kind};

/// Where a value lives, as errors name it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Place<'a> {
    /// Component `.1` of entity `.0` (`game-data`'s errors).
    Entity(EntityId, &'a str),
    /// A resource or message: the interface, and what it is
    /// ("resource `Score`").
    Named(&'a str, &'a str),
}

impl Place<'_> {
    pub(crate) fn no_field(self, field: &str) -> String {
        match self {
            Place::Entity(id, component) => no_field(id, component, field),
            Place::Named(interface, what) => format!("{interface}: {what} has no field `{field}`"),
        }
    }

    pub(crate) fn wrong_kind(self, field: &str, why: &str) -> String {
        match self {
            Place::Entity(id, component) => wrong_kind(id, component, field, why),
            Place::Named(interface, what) => {
                format!("{interface}: cannot set `{field}` of {what}: {why}")
            }
        }
    }

    pub(crate) fn unreachable(self, field: &str) -> String {
        match self {
            Place::Entity(id, component) => format!(
                "game-data: field `{field}` of component `{component}` (entity {}) is of a type \
                 scripts cannot reach",
                id.index()
            ),
            Place::Named(interface, what) => {
                format!("{interface}: field `{field}` of {what} is of a type scripts cannot reach")
            }
        }
    }
}

/// A float, integer or other leaf value of a field, if scripts can reach it.
pub(crate) fn read_leaf(value: &dyn PartialReflect) -> Option<Value> {
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
pub(crate) fn write_leaf(leaf: &mut dyn PartialReflect, value: Value) -> Result<(), String> {
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

/// `Ok` if `value` (already fitted to the leaf's kind) is in range for
/// the leaf's type, so that [`write_leaf`] will take it.
pub(crate) fn check_range(leaf: &dyn PartialReflect, value: &Value) -> Result<(), String> {
    macro_rules! integers {
        ($n:expr, $($ty:ty),*) => {
            $(
                if leaf.try_downcast_ref::<$ty>().is_some() {
                    <$ty>::try_from($n).map_err(|_| {
                        format!("{} is out of range for a {}", $n, stringify!($ty))
                    })?;
                }
            )*
        };
    }
    if let Value::Integer(n) = *value {
        integers!(n, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
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
pub(crate) fn flatten(value: &dyn PartialReflect, prefix: &str, out: &mut Vec<Field>) {
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

/// The field at `path` (`a.b`, `0`) under `value`, to read.
pub(crate) fn field_at<'a>(
    value: &'a dyn PartialReflect,
    path: &str,
) -> Option<&'a dyn PartialReflect> {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let field = match value.reflect_ref() {
        ReflectRef::Struct(s) => s.field(head)?,
        ReflectRef::TupleStruct(t) => t.field(head.parse().ok()?)?,
        _ => return None,
    };
    match rest {
        Some(rest) => field_at(field, rest),
        None => Some(field),
    }
}

/// The field at `path` (`a.b`, `0`) under `value`.
pub(crate) fn field_mut<'a>(
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
pub(crate) fn write_fields(
    value: &mut dyn PartialReflect,
    place: Place<'_>,
    fields: Vec<Field>,
) -> Result<(), String> {
    for field in fields {
        let leaf = field_mut(value, &field.name).ok_or_else(|| place.no_field(&field.name))?;
        let current = read_leaf(leaf).ok_or_else(|| place.unreachable(&field.name))?;
        let fitted = field
            .value
            .fit(current.kind())
            .map_err(|why| place.wrong_kind(&field.name, &why))?;
        write_leaf(leaf, fitted).map_err(|why| place.wrong_kind(&field.name, &why))?;
    }
    Ok(())
}

/// The fields scripts can reach of `value`.
pub(crate) fn fields_of(value: &dyn PartialReflect) -> Vec<Field> {
    let mut fields = Vec::new();
    flatten(value, "", &mut fields);
    fields
}
