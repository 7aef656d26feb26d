//! [`Value`] and [`Field`]: a game's data as scripts read and write it,
//! typed, by name (the `game-data` WIT interface's `value` and `field`).

use std::fmt;

use glam::{Quat, Vec3};

/// A field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A float.
    Number(f64),
    /// A whole number.
    Integer(i64),
    /// A flag.
    Boolean(bool),
    /// Text.
    Text(String),
    /// A vector.
    Vec3(Vec3),
    /// A rotation.
    Quat(Quat),
    /// A list of floats.
    Numbers(Vec<f64>),
}

/// A field of a component, by name (nested records flattened as `a.b`).
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its value.
    pub value: Value,
}

impl Field {
    /// A field named `name` holding `value`.
    pub fn new(name: impl Into<String>, value: Value) -> Self {
        Field {
            name: name.into(),
            value,
        }
    }

    /// The values of fields `names` among `fields`, in that order; else the
    /// first of `names` none of them has.
    pub fn take(mut fields: Vec<Field>, names: &[String]) -> Result<Vec<Value>, &str> {
        names
            .iter()
            .map(|name| {
                let at = fields
                    .iter()
                    .position(|f| f.name == *name)
                    .ok_or(name.as_str())?;
                Ok(fields.swap_remove(at).value)
            })
            .collect()
    }

    /// Fields `names` holding `values`, pairwise.
    pub fn named(names: &[String], values: impl IntoIterator<Item = Value>) -> Vec<Field> {
        (names.iter().zip(values))
            .map(|(name, value)| Field::new(name.clone(), value))
            .collect()
    }
}

impl Value {
    /// The kind's name, as errors give it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Number(_) => "number",
            Value::Integer(_) => "integer",
            Value::Boolean(_) => "boolean",
            Value::Text(_) => "text",
            Value::Vec3(_) => "vec3",
            Value::Quat(_) => "quat",
            Value::Numbers(_) => "numbers",
        }
    }

    /// This value made to fit a field of kind `kind` (see [`Value::kind`]):
    /// the same kind, a whole `number` for an `integer` field, or an
    /// `integer` for a `number` field. Otherwise why not, naming both
    /// kinds.
    pub fn fit(self, kind: &str) -> Result<Value, String> {
        match (self, kind) {
            (value, kind) if value.kind() == kind => Ok(value),
            (Value::Integer(n), "number") => Ok(Value::Number(n as f64)),
            (Value::Number(x), "integer") if x.fract() == 0.0 && x.abs() < 9.007_199e15 => {
                Ok(Value::Integer(x as i64))
            }
            (value, kind) => Err(format!(
                "the field is {} and the value {}",
                with_article(kind),
                with_article(value.kind())
            )),
        }
    }
}

/// "an integer", "a number".
fn with_article(kind: &str) -> String {
    match kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => format!("an {kind}"),
        false => format!("a {kind}"),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(x) => write!(f, "{x}"),
            Value::Integer(n) => write!(f, "{n}"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Text(t) => write!(f, "{t:?}"),
            Value::Vec3(v) => write!(f, "({}, {}, {})", v.x, v.y, v.z),
            Value::Quat(q) => write!(f, "({}, {}, {}, {})", q.x, q.y, q.z, q.w),
            Value::Numbers(list) => write!(f, "{list:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fit_fields_of_their_kind_and_whole_numbers_cross() {
        assert_eq!(Value::Number(2.0).fit("integer"), Ok(Value::Integer(2)));
        assert_eq!(Value::Integer(2).fit("number"), Ok(Value::Number(2.0)));
        assert_eq!(
            Value::Boolean(true).fit("boolean"),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            Value::Number(2.5).fit("integer"),
            Err("the field is an integer and the value a number".into())
        );
        assert!(Value::Text("a".into()).fit("vec3").is_err());
    }
}
