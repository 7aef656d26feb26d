//! Conversions between the WIT math records and [`glam`], and glam-typed
//! access to transforms.

use crate::bindings::game::engine::scene::TransformComponent;
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

/// glam-typed access to a [`TransformComponent`].
pub trait TransformExt {
    /// Position as a [`glam::Vec3`].
    fn translation(&self) -> glam::Vec3;
    /// Sets the position.
    fn set_translation(&self, position: glam::Vec3);
    /// Rotation as a [`glam::Quat`].
    fn orientation(&self) -> glam::Quat;
    /// Sets the rotation.
    fn set_orientation(&self, rotation: glam::Quat);
    /// Scale as a [`glam::Vec3`].
    fn scaling(&self) -> glam::Vec3;
    /// Sets the scale.
    fn set_scaling(&self, scale: glam::Vec3);
    /// Applies `delta` on top of the current rotation (world axes):
    /// `rotation = delta * rotation`.
    fn rotate(&self, delta: glam::Quat);
    /// Moves the position by `offset`.
    fn translate(&self, offset: glam::Vec3);
}

impl TransformExt for TransformComponent {
    fn translation(&self) -> glam::Vec3 {
        self.position().into()
    }

    fn set_translation(&self, position: glam::Vec3) {
        self.set_position(position.into());
    }

    fn orientation(&self) -> glam::Quat {
        self.rotation().into()
    }

    fn set_orientation(&self, rotation: glam::Quat) {
        self.set_rotation(rotation.into());
    }

    fn scaling(&self) -> glam::Vec3 {
        self.scale().into()
    }

    fn set_scaling(&self, scale: glam::Vec3) {
        self.set_scale(scale.into());
    }

    fn rotate(&self, delta: glam::Quat) {
        let rotation = (delta * self.orientation()).normalize();
        self.set_orientation(rotation);
    }

    fn translate(&self, offset: glam::Vec3) {
        self.set_translation(self.translation() + offset);
    }
}
