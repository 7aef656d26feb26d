//! [`SceneTracker`]: what a world's clients were last sent of its scene,
//! and what changed since.

use std::collections::HashMap;

use game_host::GameScene;
use game_host::scene::EntityId;

use super::wire::EntityState;

/// The scene as last published: each entity's transform bits and the pass
/// it was last seen in.
#[derive(Debug, Default)]
pub(crate) struct SceneTracker {
    known: HashMap<u32, Known>,
    pass: u64,
}

#[derive(Debug)]
struct Known {
    bits: [u32; 10],
    seen: u64,
}

fn state(id: EntityId, name: &str, transform: &game_host::Transform) -> EntityState {
    EntityState {
        id: id.index() as u32,
        name: name.to_owned(),
        position: transform.position.to_array(),
        rotation: transform.rotation.to_array(),
        scale: transform.scale.to_array(),
    }
}

fn bits(transform: &game_host::Transform) -> [u32; 10] {
    let p = transform.position.to_array();
    let r = transform.rotation.to_array();
    let s = transform.scale.to_array();
    [p[0], p[1], p[2], r[0], r[1], r[2], r[3], s[0], s[1], s[2]].map(f32::to_bits)
}

impl SceneTracker {
    /// The entities that are new or changed since the last call (by their
    /// exact bits), and the ids of those gone; from now on the tracker holds
    /// the scene as it is.
    pub fn diff(&mut self, scene: &mut dyn GameScene) -> (Vec<EntityState>, Vec<u32>) {
        self.pass += 1;
        let pass = self.pass;
        let mut changed = Vec::new();
        scene.for_each(&mut |id, name, transform| {
            let now = bits(transform);
            match self.known.get_mut(&(id.index() as u32)) {
                Some(known) => {
                    known.seen = pass;
                    if known.bits != now {
                        known.bits = now;
                        changed.push(state(id, name, transform));
                    }
                }
                None => {
                    self.known.insert(
                        id.index() as u32,
                        Known {
                            bits: now,
                            seen: pass,
                        },
                    );
                    changed.push(state(id, name, transform));
                }
            }
        });
        let mut removed = Vec::new();
        if self.known.len() > scene.len() {
            self.known.retain(|id, known| {
                let keep = known.seen == pass;
                if !keep {
                    removed.push(*id);
                }
                keep
            });
            removed.sort_unstable();
        }
        (changed, removed)
    }

    /// Every entity of `scene`, in its order.
    pub fn all(scene: &mut dyn GameScene) -> Vec<EntityState> {
        let mut all = Vec::with_capacity(scene.len());
        scene.for_each(&mut |id, name, transform| all.push(state(id, name, transform)));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::Scene;

    #[test]
    fn reports_new_moved_and_despawned_entities_once() {
        let mut scene = Scene::new();
        let a = scene.spawn("a");
        let b = scene.spawn("b");
        let mut tracker = SceneTracker::default();
        let (changed, removed) = tracker.diff(&mut scene);
        assert_eq!((changed.len(), removed.len()), (2, 0));
        assert_eq!(tracker.diff(&mut scene), (Vec::new(), Vec::new()));
        scene.transform_mut(b).unwrap().position.x = 2.0;
        let (changed, _) = tracker.diff(&mut scene);
        assert_eq!(changed.len(), 1);
        assert_eq!(
            (changed[0].name.as_str(), changed[0].position[0]),
            ("b", 2.0)
        );
        scene.despawn(a);
        assert_eq!(
            tracker.diff(&mut scene),
            (Vec::new(), vec![a.index() as u32])
        );
        assert_eq!(SceneTracker::all(&mut scene).len(), 1);
    }
}
