//! Queries over a game's entities (the `queries` WIT interface): which
//! entities have a set of components, and their fields as columns.
//!
//! A [`Query`] names fields as `Component.field` ([`FieldPath`]); the
//! scene's [`GameData::query`](super::GameData::query) answers the ids and
//! the columns of its own components. `Transform` and `Name` are the
//! scene's entities themselves: every entity has them, and the caller
//! fills their columns from the scene's transforms, so that a script's
//! own writes of the frame are read back.

use std::ops::Range;

use super::value::Value;

/// The components every entity has, read through the scene itself.
pub const TRANSFORM_COMPONENT: &str = "Transform";
/// See [`TRANSFORM_COMPONENT`].
pub const NAME_COMPONENT: &str = "Name";

/// A field as a query names it: `Spin.speed`, `Transform.position`, `Name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    /// The component.
    pub component: String,
    /// The field under it (nested as `a.b`); empty for `Name`.
    pub field: String,
}

impl FieldPath {
    /// Parses `Component.field` (or `Name`), or says why not in one line.
    pub fn parse(text: &str) -> Result<FieldPath, String> {
        if text == NAME_COMPONENT {
            return Ok(FieldPath {
                component: text.to_owned(),
                field: String::new(),
            });
        }
        match text.split_once('.') {
            Some((NAME_COMPONENT, _)) => Err(format!(
                "queries: `{text}` names no field: `Name` has none, write `Name` alone"
            )),
            Some((component, field)) if !component.is_empty() && !field.is_empty() => {
                let path = FieldPath {
                    component: component.to_owned(),
                    field: field.to_owned(),
                };
                if path.component == TRANSFORM_COMPONENT
                    && !matches!(field, "position" | "rotation" | "scale")
                {
                    return Err(format!(
                        "queries: `{text}` is no field of Transform (position, rotation, scale)"
                    ));
                }
                Ok(path)
            }
            _ => Err(format!(
                "queries: `{text}` names no field: write `Component.field` (`Spin.speed`), or `Name`"
            )),
        }
    }

    /// Whether the scene's entities themselves hold it (`Transform`,
    /// `Name`), rather than the game's data.
    pub fn is_entity_field(&self) -> bool {
        is_entity_component(&self.component)
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.field.is_empty() {
            true => write!(f, "{}", self.component),
            false => write!(f, "{}.{}", self.component, self.field),
        }
    }
}

/// Whether every entity has `component` (`Transform`, `Name`).
pub fn is_entity_component(component: &str) -> bool {
    component == TRANSFORM_COMPONENT || component == NAME_COMPONENT
}

/// What a query asks of the scene's game data.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The fields to read; their components are required.
    pub fields: Vec<FieldPath>,
    /// Components required, not read.
    pub with: Vec<String>,
    /// Components excluded.
    pub without: Vec<String>,
}

impl Query {
    /// The game components an entity must have (from the fields and
    /// `with`, each once, `Transform` and `Name` left out).
    pub fn required(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let named = self.fields.iter().map(|f| f.component.as_str());
        for component in named.chain(self.with.iter().map(String::as_str)) {
            if !is_entity_component(component) && !out.contains(&component) {
                out.push(component);
            }
        }
        out
    }

    /// Whether `without` excludes every entity (it names `Transform` or
    /// `Name`, which every entity has).
    pub fn excludes_all(&self) -> bool {
        self.without.iter().any(|c| is_entity_component(c))
    }
}

/// One field's values, one per entity (3 floats an entity for `Vec3s`, 4
/// for `Quats`).
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Floats.
    Numbers(Vec<f64>),
    /// Whole numbers.
    Integers(Vec<i64>),
    /// Flags.
    Booleans(Vec<bool>),
    /// Text.
    Texts(Vec<String>),
    /// Vectors, flat.
    Vec3s(Vec<f32>),
    /// Rotations, flat.
    Quats(Vec<f32>),
}

/// A query's answer from the scene: ids in id order, and the column of
/// each field of the query, `None` for the entity fields the caller fills
/// (a scene that reads `Transform` as cheaply as its own fields, as Bevy's
/// does in the query's pass, may fill those too; the caller puts the
/// script's own writes of the frame on top).
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// The entities found.
    pub ids: Vec<u32>,
    /// A column per field asked for, in order.
    pub columns: Vec<Option<Column>>,
}

/// Where the floats of `Transform` field `field` (`position`, `rotation`
/// or `scale`, as [`FieldPath::parse`] allows) lie among a transform's
/// [`TRANSFORM`](crate::scene::TRANSFORM) (see
/// [`floats_of`](crate::scene::floats_of)).
pub fn transform_floats(field: &str) -> Range<usize> {
    match field {
        "position" => 0..3,
        "rotation" => 3..7,
        _ => 7..10,
    }
}

impl Column {
    /// An empty column of the `Transform` field whose floats are `floats`
    /// (from [`transform_floats`]): rotations, or vectors; with room for
    /// `count` entities.
    pub fn for_transform(floats: &Range<usize>, count: usize) -> Column {
        let values = Vec::with_capacity(count * floats.len());
        match floats.len() {
            4 => Column::Quats(values),
            _ => Column::Vec3s(values),
        }
    }

    /// The floats of a `vec3s` or `quats` column.
    pub fn floats_mut(&mut self) -> Option<&mut Vec<f32>> {
        match self {
            Column::Vec3s(values) | Column::Quats(values) => Some(values),
            _ => None,
        }
    }

    /// An empty column of the kind of `value`, or `None` for a kind no
    /// column holds (a list of numbers).
    pub fn of_kind(value: &Value, capacity: usize) -> Option<Column> {
        Some(match value {
            Value::Number(_) => Column::Numbers(Vec::with_capacity(capacity)),
            Value::Integer(_) => Column::Integers(Vec::with_capacity(capacity)),
            Value::Boolean(_) => Column::Booleans(Vec::with_capacity(capacity)),
            Value::Text(_) => Column::Texts(Vec::with_capacity(capacity)),
            Value::Vec3(_) => Column::Vec3s(Vec::with_capacity(capacity * 3)),
            Value::Quat(_) => Column::Quats(Vec::with_capacity(capacity * 4)),
            Value::Numbers(_) => return None,
        })
    }

    /// Appends `value`, or answers its kind when the column holds another.
    pub fn push(&mut self, value: Value) -> Result<(), &'static str> {
        match (self, value) {
            (Column::Numbers(c), Value::Number(x)) => c.push(x),
            (Column::Integers(c), Value::Integer(n)) => c.push(n),
            (Column::Booleans(c), Value::Boolean(b)) => c.push(b),
            (Column::Texts(c), Value::Text(t)) => c.push(t),
            (Column::Vec3s(c), Value::Vec3(v)) => c.extend_from_slice(&v.to_array()),
            (Column::Quats(c), Value::Quat(q)) => c.extend_from_slice(&q.to_array()),
            (_, value) => return Err(value.kind()),
        }
        Ok(())
    }

    /// The number of entities it holds values for.
    pub fn len(&self) -> usize {
        match self {
            Column::Numbers(c) => c.len(),
            Column::Integers(c) => c.len(),
            Column::Booleans(c) => c.len(),
            Column::Texts(c) => c.len(),
            Column::Vec3s(c) => c.len() / 3,
            Column::Quats(c) => c.len() / 4,
        }
    }

    /// Whether it holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether its flat list holds whole values (3 floats a vector, 4 a
    /// rotation).
    pub fn is_whole(&self) -> bool {
        match self {
            Column::Vec3s(c) => c.len() % 3 == 0,
            Column::Quats(c) => c.len() % 4 == 0,
            _ => true,
        }
    }

    /// `Ok` if it holds one whole value for each of `ids` ids, else the
    /// error naming the field `path` it is for.
    pub fn check_length(&self, path: &FieldPath, ids: usize) -> Result<(), String> {
        if self.len() == ids && self.is_whole() {
            return Ok(());
        }
        let held = match self {
            Column::Vec3s(c) => format!("{} floats (3 an entity)", c.len()),
            Column::Quats(c) => format!("{} floats (4 an entity)", c.len()),
            _ => format!("{} values", self.len()),
        };
        Err(format!(
            "queries: the column of `{path}` holds {held} for {ids} ids"
        ))
    }

    /// The value for the entity at `at`.
    pub fn value(&self, at: usize) -> Value {
        match self {
            Column::Numbers(c) => Value::Number(c[at]),
            Column::Integers(c) => Value::Integer(c[at]),
            Column::Booleans(c) => Value::Boolean(c[at]),
            Column::Texts(c) => Value::Text(c[at].clone()),
            Column::Vec3s(c) => Value::Vec3(glam::Vec3::from_slice(&c[at * 3..at * 3 + 3])),
            Column::Quats(c) => Value::Quat(glam::Quat::from_slice(&c[at * 4..at * 4 + 4])),
        }
    }
}

/// The names a game registered for scripts, as errors list them:
/// `Enemy, Health`, or `none`.
pub fn registered_list(names: &[&str]) -> String {
    match names.is_empty() {
        true => "none".to_owned(),
        false => names.join(", "),
    }
}

/// The error for a value of the wrong kind in a column.
pub fn wrong_column(path: &FieldPath, id: u32, why: &str) -> String {
    format!("queries: cannot write `{path}` of entity {id}: {why}")
}

/// Fills each field's column for a query whose answer is built entity by
/// entity: `read(at, field)` gives the value of field `at` of the query
/// for the next entity.
pub fn fill_columns(
    query: &Query,
    count: usize,
    columns: &mut [Option<Column>],
    mut read: impl FnMut(usize, &FieldPath) -> Result<Value, String>,
) -> Result<(), String> {
    for (at, path) in query.fields.iter().enumerate() {
        if path.is_entity_field() {
            continue;
        }
        let value = read(at, path)?;
        let column = match &mut columns[at] {
            Some(column) => column,
            slot => slot.insert(Column::of_kind(&value, count).ok_or_else(|| {
                format!("queries: `{path}` holds a list of numbers, which no column holds")
            })?),
        };
        column.push(value).map_err(|kind| {
            format!("queries: `{path}` holds values of two kinds ({kind} and another)")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse_as_component_and_path() {
        let spin = FieldPath::parse("Spin.inner.x").unwrap();
        assert_eq!(
            (spin.component.as_str(), spin.field.as_str()),
            ("Spin", "inner.x")
        );
        assert!(FieldPath::parse("Name").unwrap().is_entity_field());
        assert!(
            FieldPath::parse("Spin")
                .unwrap_err()
                .contains("names no field")
        );
        assert!(
            FieldPath::parse("Transform.pos")
                .unwrap_err()
                .contains("position")
        );
    }

    #[test]
    fn columns_hold_one_kind_and_give_values_back() {
        let mut column = Column::of_kind(&Value::Vec3(glam::Vec3::X), 2).unwrap();
        column.push(Value::Vec3(glam::Vec3::X)).unwrap();
        column.push(Value::Vec3(glam::Vec3::Y)).unwrap();
        assert_eq!(column.len(), 2);
        assert_eq!(column.value(1), Value::Vec3(glam::Vec3::Y));
        assert_eq!(column.push(Value::Number(1.0)), Err("number"));
    }
}
