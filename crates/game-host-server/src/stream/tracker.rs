//! [`SceneTracker`]: the scene as a world's clients were last sent it
//! (each entity's state, shared by every view that holds it), and what
//! changed since, field by field.

use std::collections::HashMap;
use std::sync::Arc;

use game_host::GameScene;
use game_host::scene::EntityId;

use super::delta::mask;
use super::wire::{Data, EntityState};

/// The scene as last published.
#[derive(Debug, Default)]
pub(crate) struct SceneTracker {
    known: HashMap<u32, Known>,
    /// The known entities' ids, in order.
    order: Vec<u32>,
    /// Their positions, in the same order (for working out views without
    /// a lookup per entity and player).
    positions: Vec<[f32; 3]>,
    pass: u64,
}

#[derive(Debug)]
struct Known {
    bits: [u32; 10],
    state: Arc<EntityState>,
    seen: u64,
}

/// What changed in one pass.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Changes {
    /// Each entity that changed, with what changed ([`mask`]); a new one
    /// has every bit.
    pub changed: HashMap<u32, u8>,
    /// The entities gone, in order.
    pub removed: Vec<u32>,
}

fn bits(transform: &game_host::Transform) -> [u32; 10] {
    let p = transform.position.to_array();
    let r = transform.rotation.to_array();
    let s = transform.scale.to_array();
    [p[0], p[1], p[2], r[0], r[1], r[2], r[3], s[0], s[1], s[2]].map(f32::to_bits)
}

/// What changed between two transforms' bits.
fn transform_mask(old: &[u32; 10], new: &[u32; 10]) -> u8 {
    let mut changed = 0;
    if old[0..3] != new[0..3] {
        changed |= mask::POSITION;
    }
    if old[3..7] != new[3..7] {
        changed |= mask::ROTATION;
    }
    if old[7..10] != new[7..10] {
        changed |= mask::SCALE;
    }
    changed
}

fn state(id: u32, name: Arc<str>, transform: &game_host::Transform, data: Data) -> EntityState {
    EntityState {
        id,
        name,
        position: transform.position.to_array(),
        rotation: transform.rotation.to_array(),
        scale: transform.scale.to_array(),
        data,
    }
}

impl SceneTracker {
    /// Takes the scene as it is now: the entities new or changed since the
    /// last pass (by their exact bits, their name, and the fields of the
    /// `replicated` components), and those gone.
    pub fn update(&mut self, scene: &mut dyn GameScene, replicated: &[String]) -> Changes {
        self.pass += 1;
        let pass = self.pass;
        let mut changes = Changes::default();
        let mut added = false;
        scene.for_each(&mut |id, name, transform| {
            let id = id.index() as u32;
            let now = bits(transform);
            match self.known.get_mut(&id) {
                Some(known) => {
                    known.seen = pass;
                    let mut changed = transform_mask(&known.bits, &now);
                    // The name is shared with the last state while it stays.
                    let same = *known.state.name == *name;
                    if !same {
                        changed |= mask::NAME;
                    }
                    if changed != 0 {
                        known.bits = now;
                        let data = known.state.data.clone();
                        let name = match same {
                            true => known.state.name.clone(),
                            false => name.into(),
                        };
                        known.state = Arc::new(state(id, name, transform, data));
                        changes.changed.insert(id, changed);
                    }
                }
                None => {
                    let state = Arc::new(state(id, name.into(), transform, Data::default()));
                    self.known.insert(
                        id,
                        Known {
                            bits: now,
                            state,
                            seen: pass,
                        },
                    );
                    changes.changed.insert(id, mask::ALL);
                    added = true;
                }
            }
        });
        if self.known.len() > scene.len() {
            self.known.retain(|id, known| {
                let keep = known.seen == pass;
                if !keep {
                    changes.removed.push(*id);
                }
                keep
            });
            changes.removed.sort_unstable();
        }
        if added || !changes.removed.is_empty() {
            self.order = self.known.keys().copied().collect();
            self.order.sort_unstable();
        }
        self.positions.clear();
        self.positions.extend(
            (self.order.iter()).map(|id| self.known.get(id).expect("in order").state.position),
        );
        if !replicated.is_empty()
            && let Some(game) = scene.game_data()
        {
            for &id in &self.order {
                let mut data = Vec::new();
                for component in replicated {
                    if game.has(EntityId::from(id), component)
                        && let Ok(fields) = game.get(EntityId::from(id), component)
                    {
                        data.push((component.clone(), fields));
                    }
                }
                let known = self.known.get_mut(&id).expect("in order");
                if *known.state.data.0 != *data {
                    Arc::make_mut(&mut known.state).data = Data(data.into());
                    *changes.changed.entry(id).or_default() |= mask::DATA;
                }
            }
        }
        changes
    }

    /// The known entities' ids, in order.
    pub fn ids(&self) -> &[u32] {
        &self.order
    }

    /// The known entities' positions, in the order of [`Self::ids`].
    pub fn positions(&self) -> &[[f32; 3]] {
        &self.positions
    }

    /// Entity `id` as last taken.
    pub fn state(&self, id: u32) -> Option<&Arc<EntityState>> {
        self.known.get(&id).map(|known| &known.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::Scene;
    use game_host::scene::{Field, Value};

    #[test]
    fn reports_new_moved_renamed_and_despawned_entities_once() {
        let mut scene = Scene::new();
        let a = scene.spawn("a");
        let b = scene.spawn("b");
        let mut tracker = SceneTracker::default();
        let changes = tracker.update(&mut scene, &[]);
        assert_eq!((changes.changed.len(), changes.removed.len()), (2, 0));
        assert_eq!(tracker.update(&mut scene, &[]), Changes::default());
        scene.transform_mut(b).unwrap().position.x = 2.0;
        let changes = tracker.update(&mut scene, &[]);
        assert_eq!(changes.changed, HashMap::from([(1, mask::POSITION)]));
        assert_eq!(tracker.state(1).unwrap().position[0], 2.0);
        scene.despawn(a);
        let changes = tracker.update(&mut scene, &[]);
        assert_eq!(changes.removed, vec![a.index() as u32]);
        assert_eq!(tracker.ids(), [1]);
    }

    #[test]
    fn replicated_components_change_with_their_fields() {
        let mut scene = Scene::new();
        let a = scene.spawn("a");
        let health = || "Health".to_owned();
        let mut tracker = SceneTracker::default();
        tracker.update(&mut scene, &[health()]);
        let game = scene.game_data().unwrap();
        game.insert(a, "Health", vec![Field::new("hp", Value::Integer(3))])
            .unwrap();
        let changes = tracker.update(&mut scene, &[health()]);
        assert_eq!(changes.changed, HashMap::from([(0, mask::DATA)]));
        assert_eq!(
            tracker.state(0).unwrap().data.0[0].1[0].value,
            Value::Integer(3)
        );
        assert_eq!(tracker.update(&mut scene, &[health()]), Changes::default());
    }
}
