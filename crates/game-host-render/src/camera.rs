//! A perspective camera that frames every entity of a scene.

use glam::{Mat4, Vec3, Vec4};

use game_host::scene::GameScene;

/// Vertical field of view, radians.
const FOV_Y: f32 = std::f32::consts::FRAC_PI_4;
/// Direction from the scene's centre toward the eye.
const VIEW_DIRECTION: Vec3 = Vec3::new(0.55, 0.6, 1.0);

/// Where the scene is looked at from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Eye position.
    pub eye: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Width over height of the image.
    pub aspect: f32,
    /// Near clip distance.
    pub near: f32,
    /// Far clip distance.
    pub far: f32,
}

impl Camera {
    /// A camera looking down at the scene from above and to the side, far
    /// enough that the bounding sphere of all entities (each a cube of its
    /// scale) fits the narrower side of the view.
    pub fn fit(scene: &mut dyn GameScene, aspect: f32) -> Camera {
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        scene.for_each(&mut |_, _, t| {
            // Half the diagonal of the scaled unit cube, whatever its rotation.
            let reach = Vec3::splat(t.scale.abs().length() * 0.5);
            lo = lo.min(t.position - reach);
            hi = hi.max(t.position + reach);
        });
        if scene.is_empty() {
            (lo, hi) = (Vec3::splat(-1.0), Vec3::splat(1.0));
        }
        let target = (lo + hi) * 0.5;
        let radius = ((hi - lo).length() * 0.5).max(0.5);
        // The narrower of the vertical and horizontal half-angles.
        let half_fov = (FOV_Y * 0.5).min(((FOV_Y * 0.5).tan() * aspect).atan());
        let distance = radius / half_fov.sin() * 1.05;
        Camera {
            eye: target + VIEW_DIRECTION.normalize() * distance,
            target,
            aspect,
            near: (distance - radius).max(distance * 0.01),
            far: distance + radius * 2.0,
        }
    }

    /// World to clip space.
    pub fn view_projection(&self) -> Mat4 {
        let view = Mat4::look_at_rh(self.eye, self.target, Vec3::Y);
        let projection = Mat4::perspective_rh(FOV_Y, self.aspect, self.near, self.far);
        projection * view
    }

    /// The pixel (x right, y down) a world point lands on in a
    /// `width` x `height` image, if it is in front of the camera.
    pub fn project(&self, point: Vec3, width: u32, height: u32) -> Option<(f32, f32)> {
        let clip = self.view_projection() * Vec4::new(point.x, point.y, point.z, 1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some((
            (ndc.x + 1.0) * 0.5 * width as f32,
            (1.0 - ndc.y) * 0.5 * height as f32,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::scene::{Scene, Transform};

    #[test]
    fn the_default_cube_projects_to_the_image_centre() {
        let mut scene = Scene::with_default_cube();
        let camera = Camera::fit(&mut scene, 640.0 / 480.0);
        let (x, y) = camera.project(Vec3::ZERO, 640, 480).unwrap();
        assert!(
            (x - 320.0).abs() < 0.5 && (y - 240.0).abs() < 0.5,
            "{x}, {y}"
        );
    }

    #[test]
    fn every_entity_is_in_view() {
        let mut scene = Scene::new();
        for (i, x) in [-40.0f32, 0.0, 25.0].into_iter().enumerate() {
            scene.spawn_with(
                &format!("e{i}"),
                Transform {
                    position: Vec3::new(x, i as f32 * 3.0, -x),
                    ..Transform::default()
                },
            );
        }
        let camera = Camera::fit(&mut scene, 1.0);
        for (_, entity) in scene.entities() {
            let (x, y) = camera.project(entity.transform.position, 100, 100).unwrap();
            assert!(
                (0.0..100.0).contains(&x) && (0.0..100.0).contains(&y),
                "{x}, {y}"
            );
        }
    }
}
