//! Conversions between the WIT math records and [`glam`].

use crate::bindings::game::engine::types::{Quat, Vec3};

impl From<Vec3> for glam::Vec3 {
    fn from(v: Vec3) -> Self {
        glam::Vec3::new(v.x, v.y, v.z)
    }
}

impl From<glam::Vec3> for Vec3 {
    fn from(v: glam::Vec3) -> Self {
        Vec3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }
}

impl From<Quat> for glam::Quat {
    fn from(q: Quat) -> Self {
        glam::Quat::from_xyzw(q.x, q.y, q.z, q.w)
    }
}

impl From<glam::Quat> for Quat {
    fn from(q: glam::Quat) -> Self {
        Quat {
            x: q.x,
            y: q.y,
            z: q.z,
            w: q.w,
        }
    }
}
