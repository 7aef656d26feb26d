//! [`Kind`]: the type of a described field, as WIT spells it, and its values
//! both ways: the game's data ([`Value`]) to a typed WIT value ([`Val`]) for
//! a read, and back for a write.

use glam::{Quat, Vec3};
use wasmtime::component::Val;

use crate::scene::Value;

/// A described field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    F32,
    F64,
    S32,
    S64,
    U32,
    Bool,
    String,
    Vec3,
    Quat,
}

impl Kind {
    /// Every kind, in the order errors list them.
    pub const ALL: [Kind; 9] = [
        Kind::F32,
        Kind::F64,
        Kind::S32,
        Kind::S64,
        Kind::U32,
        Kind::Bool,
        Kind::String,
        Kind::Vec3,
        Kind::Quat,
    ];

    /// Its name in a description, which is also its WIT type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::F32 => "f32",
            Kind::F64 => "f64",
            Kind::S32 => "s32",
            Kind::S64 => "s64",
            Kind::U32 => "u32",
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Vec3 => "vec3",
            Kind::Quat => "quat",
        }
    }

    /// The kind a description names.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The game's value as this kind's WIT value, or why it is not one.
    pub(crate) fn to_val(self, value: Value) -> Result<Val, String> {
        let fitted = value.fit(match self {
            Kind::F32 | Kind::F64 => "number",
            Kind::S32 | Kind::S64 | Kind::U32 => "integer",
            Kind::Bool => "boolean",
            Kind::String => "text",
            Kind::Vec3 => "vec3",
            Kind::Quat => "quat",
        })?;
        let out_of_range = |n: i64| format!("{n} does not fit {}", self.name());
        Ok(match (self, fitted) {
            (Kind::F32, Value::Number(x)) => Val::Float32(x as f32),
            (Kind::F64, Value::Number(x)) => Val::Float64(x),
            (Kind::S32, Value::Integer(n)) => {
                Val::S32(i32::try_from(n).map_err(|_| out_of_range(n))?)
            }
            (Kind::S64, Value::Integer(n)) => Val::S64(n),
            (Kind::U32, Value::Integer(n)) => {
                Val::U32(u32::try_from(n).map_err(|_| out_of_range(n))?)
            }
            (Kind::Bool, Value::Boolean(b)) => Val::Bool(b),
            (Kind::String, Value::Text(t)) => Val::String(t),
            (Kind::Vec3, Value::Vec3(v)) => record(&[("x", v.x), ("y", v.y), ("z", v.z)]),
            (Kind::Quat, Value::Quat(q)) => {
                record(&[("x", q.x), ("y", q.y), ("z", q.z), ("w", q.w)])
            }
            (_, other) => return Err(format!("the value is {}", other.kind())),
        })
    }

    /// A WIT value of this kind as the game's value; `None` if it is not
    /// one (the component was checked at load, so this is a host bug).
    pub(crate) fn value_of(self, val: &Val) -> Option<Value> {
        Some(match (self, val) {
            (Kind::F32, Val::Float32(x)) => Value::Number(f64::from(*x)),
            (Kind::F64, Val::Float64(x)) => Value::Number(*x),
            (Kind::S32, Val::S32(n)) => Value::Integer(i64::from(*n)),
            (Kind::S64, Val::S64(n)) => Value::Integer(*n),
            (Kind::U32, Val::U32(n)) => Value::Integer(i64::from(*n)),
            (Kind::Bool, Val::Bool(b)) => Value::Boolean(*b),
            (Kind::String, Val::String(t)) => Value::Text(t.clone()),
            (Kind::Vec3, Val::Record(fields)) => {
                let [x, y, z] = floats(fields)?;
                Value::Vec3(Vec3::new(x, y, z))
            }
            (Kind::Quat, Val::Record(fields)) => {
                let [x, y, z, w] = floats(fields)?;
                Value::Quat(Quat::from_xyzw(x, y, z, w))
            }
            _ => return None,
        })
    }
}

fn record(fields: &[(&str, f32)]) -> Val {
    Val::Record(
        fields
            .iter()
            .map(|(name, x)| (name.to_string(), Val::Float32(*x)))
            .collect(),
    )
}

fn floats<const N: usize>(fields: &[(String, Val)]) -> Option<[f32; N]> {
    let mut out = [0.0; N];
    if fields.len() != N {
        return None;
    }
    for (slot, (_, val)) in out.iter_mut().zip(fields) {
        let Val::Float32(x) = val else { return None };
        *slot = *x;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cross_both_ways() {
        for (kind, value) in [
            (Kind::F32, Value::Number(1.5)),
            (Kind::S64, Value::Integer(-3)),
            (Kind::U32, Value::Integer(7)),
            (Kind::Bool, Value::Boolean(true)),
            (Kind::String, Value::Text("hi".into())),
            (Kind::Vec3, Value::Vec3(Vec3::new(1.0, 2.0, 3.0))),
            (Kind::Quat, Value::Quat(Quat::IDENTITY)),
        ] {
            let val = kind.to_val(value.clone()).unwrap();
            assert_eq!(kind.value_of(&val), Some(value), "{kind:?}");
        }
    }

    #[test]
    fn a_value_that_does_not_fit_says_why() {
        assert_eq!(
            Kind::U32.to_val(Value::Integer(-1)).unwrap_err(),
            "-1 does not fit u32"
        );
        assert_eq!(
            Kind::F32.to_val(Value::Text("x".into())).unwrap_err(),
            "the field is a number and the value a text"
        );
        assert_eq!(
            Kind::F32.to_val(Value::Integer(2)).unwrap(),
            Val::Float32(2.0)
        );
    }
}
