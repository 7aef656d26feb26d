//! Host-driven motion: entities under `move-to` take one straight step
//! toward their target at the start of each frame. Simulation, not
//! bookkeeping, so apart from the wait table it steps.

use super::waits::{Wait, Waits};
use crate::guest::bindings::tasks::{Wake, WakeData};
use crate::scene::GameScene;

impl Waits {
    /// Moves every motion one step of `dt` seconds; completes arrivals.
    pub fn step_motions(&mut self, scene: &mut dyn GameScene, dt: f32, out: &mut Vec<(u32, Wake)>) {
        let mut index = 0;
        while index < self.motions.len() {
            let key = self.motions[index];
            let Some(Wait::Motion {
                entity,
                target,
                speed,
            }) = self.map.get(&key).cloned()
            else {
                self.motions.remove(index);
                continue;
            };
            let arrived = match scene.transform(entity) {
                Some(transform) => {
                    let to_target = target - transform.position;
                    let step = speed.max(0.0) * dt;
                    if to_target.length() <= step {
                        scene.set_position(entity, target);
                        true
                    } else {
                        scene.set_position(
                            entity,
                            transform.position + to_target.normalize() * step,
                        );
                        false
                    }
                }
                None => true,
            };
            if arrived {
                self.take(key);
                self.motions.remove(index);
                self.finish(key, WakeData::Done, out);
            } else {
                index += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::waits::tokens;
    use super::*;
    use crate::scene::Scene;

    #[test]
    fn motion_moves_at_speed_and_arrives() {
        let mut scene = Scene::new();
        let entity = scene.spawn("walker");
        let mut waits = Waits::default();
        waits.add_motion((0, 7), entity, Vec3::new(3.0, 0.0, 4.0), 2.5);
        let mut out = Vec::new();
        waits.step_motions(&mut scene, 1.0, &mut out);
        let p = scene.transform(entity).unwrap().position;
        assert!((p - Vec3::new(1.5, 0.0, 2.0)).length() < 1e-5, "{p}");
        assert!(out.is_empty());
        waits.step_motions(&mut scene, 1.0, &mut out);
        assert_eq!(tokens(&out), [7]);
        assert_eq!(
            scene.transform(entity).unwrap().position,
            Vec3::new(3.0, 0.0, 4.0)
        );
    }

    #[test]
    fn a_new_motion_of_an_entity_replaces_the_old_one() {
        let mut scene = Scene::new();
        let entity = scene.spawn("walker");
        let mut waits = Waits::default();
        waits.add_motion((0, 1), entity, Vec3::X * 10.0, 1.0);
        waits.add_motion((0, 2), entity, Vec3::Z * 10.0, 1.0);
        assert_eq!(waits.list(0, &|_, _| String::new()).len(), 1);
        assert_eq!(waits.stats().cancelled, 1);
    }
}
