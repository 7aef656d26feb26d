//! A described field's values both ways: the game's data ([`Value`]) to the
//! typed WIT value ([`Val`]) a read answers, and a write's WIT value back.

use glam::{Quat, Vec3};
use wasmtime::component::Val;

use crate::game_types::Kind;
use crate::scene::Value;

/// The game's value as a WIT value of `kind`; else the kind the game's
/// value is, or why it does not fit.
pub(super) fn to_val(kind: Kind, value: Value) -> Result<Val, String> {
    let game_kind = value.kind();
    let fitted = value
        .fit(match kind {
            Kind::F32 | Kind::F64 => "number",
            Kind::S32 | Kind::S64 | Kind::U32 => "integer",
            Kind::Bool => "boolean",
            Kind::String => "text",
            Kind::Vec3 => "vec3",
            Kind::Quat => "quat",
        })
        .map_err(|_| {
            format!(
                "is {game_kind} in the game and {} in the description",
                kind.name()
            )
        })?;
    let out_of_range = |n: i64| format!("holds {n}, which does not fit {}", kind.name());
    Ok(match (kind, fitted) {
        (Kind::F32, Value::Number(x)) => Val::Float32(x as f32),
        (Kind::F64, Value::Number(x)) => Val::Float64(x),
        (Kind::S32, Value::Integer(n)) => Val::S32(i32::try_from(n).map_err(|_| out_of_range(n))?),
        (Kind::S64, Value::Integer(n)) => Val::S64(n),
        (Kind::U32, Value::Integer(n)) => Val::U32(u32::try_from(n).map_err(|_| out_of_range(n))?),
        (Kind::Bool, Value::Boolean(b)) => Val::Bool(b),
        (Kind::String, Value::Text(t)) => Val::String(t),
        (Kind::Vec3, Value::Vec3(v)) => record(&[("x", v.x), ("y", v.y), ("z", v.z)]),
        (Kind::Quat, Value::Quat(q)) => record(&[("x", q.x), ("y", q.y), ("z", q.z), ("w", q.w)]),
        (_, other) => {
            return Err(format!(
                "is {} in the game and {} in the description",
                other.kind(),
                kind.name()
            ));
        }
    })
}

/// A WIT value of `kind` as the game's value; `None` if it is not one.
pub(super) fn value_of(kind: Kind, val: &Val) -> Option<Value> {
    Some(match (kind, val) {
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
            let val = to_val(kind, value.clone()).unwrap();
            assert_eq!(value_of(kind, &val), Some(value), "{kind:?}");
        }
    }

    #[test]
    fn a_value_that_does_not_fit_says_why() {
        assert_eq!(
            to_val(Kind::U32, Value::Integer(-1)).unwrap_err(),
            "holds -1, which does not fit u32"
        );
        assert_eq!(
            to_val(Kind::F32, Value::Text("x".into())).unwrap_err(),
            "is text in the game and f32 in the description"
        );
        assert_eq!(
            to_val(Kind::F32, Value::Integer(2)).unwrap(),
            Val::Float32(2.0)
        );
    }
}
