//! What a call sees of the scene, and where its writes go: the scene
//! itself for calls made one at a time (entrypoints, hand-overs), or the
//! instance's [`PendingWrites`] during a frame's dispatch, read back on
//! top of the scene (see `guest::pending` and `docs/parallel-frames.md`).
//! Calls whose result depends on other scripts' spawns (spawning, finding
//! by name, the game's data) first wait for their turn (`guest::turns`).

use super::pending::{Fields, write_fields};
use super::store::ScriptState;
use crate::scene::{EntityId, GameScene, TRANSFORM, Transform, transform_of};
use crate::sync::LockExt;

impl ScriptState {
    /// In a frame's dispatch, waits until every call before this one in the
    /// frame's order has ended; at once otherwise. The wait is not charged
    /// to the call's deadline.
    pub(crate) fn take_turn(&mut self) {
        if let Some(task) = self.task {
            let waited = self.turns.wait_for(task);
            if !waited.is_zero() {
                self.deadline.waited(waited);
            }
        }
    }

    /// The first entity named `name`, in creation order. In a frame's
    /// dispatch an entity found is the answer at once (see `guest::turns`);
    /// when none is, the call waits for its turn (an earlier call's spawn
    /// may be the answer) and looks again.
    pub(crate) fn find_entity(&mut self, name: &str) -> Option<EntityId> {
        let found = self.scene.lock_unpoisoned().find(name);
        if found.is_some() || self.task.is_none() {
            return found;
        }
        self.take_turn();
        self.scene.lock_unpoisoned().find(name)
    }

    /// Spawns `count` entities named `name`, in the frame's order.
    pub(crate) fn spawn_entities(&mut self, name: &str, count: u32) -> Vec<EntityId> {
        self.take_turn();
        let ids: Vec<EntityId> = {
            let mut scene = self.scene.lock_unpoisoned();
            (0..count).map(|_| scene.spawn(name)).collect()
        };
        for &id in &ids {
            self.spawned(id);
        }
        ids
    }

    /// The transform of entity `id` as this call sees it.
    #[inline]
    pub(crate) fn entity_transform(&mut self, id: EntityId) -> Option<Transform> {
        if self.pending.despawned(id) {
            return None;
        }
        let transform = self.scene.lock_unpoisoned().transform(id)?;
        self.pending.saw(id);
        Some(self.pending.overlay(id, transform))
    }

    /// Whether `id` names an entity, as this call sees it.
    #[inline]
    pub(crate) fn entity_exists(&mut self, id: EntityId) -> bool {
        !self.pending.despawned(id) && self.scene.lock_unpoisoned().contains(id)
    }

    /// The name of entity `id`, as this call sees it.
    pub(crate) fn entity_name(&mut self, id: EntityId) -> Option<String> {
        if self.pending.despawned(id) {
            return None;
        }
        self.scene.lock_unpoisoned().name(id)
    }

    /// Writes `fields` of entity `id` from `value`; false if `id` names no
    /// entity.
    #[inline]
    pub(crate) fn write_entity(&mut self, id: EntityId, fields: Fields, value: Transform) -> bool {
        if self.pending.deferring() {
            if !self.pending.known(id) && !self.entity_exists(id) {
                return false;
            }
            self.pending.write(id, fields, value);
            return true;
        }
        write_fields(&mut *self.scene.lock_unpoisoned(), id, fields, &value)
    }

    /// Despawns entity `id`; false if it names none.
    pub(crate) fn despawn_entity(&mut self, id: EntityId) -> bool {
        if !self.pending.deferring() {
            return self.scene.lock_unpoisoned().despawn(id);
        }
        if !self.entity_exists(id) {
            return false;
        }
        self.pending.despawn(id);
        true
    }

    /// Appends the transforms of `ids` to `out`, or names the first id that
    /// is no entity.
    pub(crate) fn entity_transforms(&mut self, ids: &[u32], out: &mut Vec<f32>) -> Result<(), u32> {
        let start = out.len();
        self.scene.lock_unpoisoned().transforms(ids, out)?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let values = out[start..].as_chunks_mut::<TRANSFORM>().0;
        for (&id, value) in ids.iter().zip(values) {
            let entity = EntityId::from(id);
            if self.pending.despawned(entity) {
                return Err(id);
            }
            let t = self.pending.overlay(entity, transform_of(value));
            let (p, r, s) = (t.position, t.rotation, t.scale);
            *value = [p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z];
        }
        Ok(())
    }

    /// Writes `fields` of each of `ids` from `values` (one transform per
    /// id, only `fields` read), all or nothing: the first id that is no
    /// entity is named and nothing changes. `direct` makes the write on
    /// the scene when calls are not deferred (its many-entity call).
    pub(crate) fn write_entities(
        &mut self,
        ids: &[u32],
        fields: Fields,
        values: impl Fn(usize) -> Transform,
        direct: impl FnOnce(&mut dyn GameScene) -> Result<(), u32>,
    ) -> Result<(), u32> {
        if !self.pending.deferring() {
            return direct(&mut *self.scene.lock_unpoisoned());
        }
        self.scene.lock_unpoisoned().check(ids)?;
        if let Some(&gone) = ids
            .iter()
            .find(|&&id| self.pending.despawned(EntityId::from(id)))
        {
            return Err(gone);
        }
        for (at, &id) in ids.iter().enumerate() {
            self.pending.write(EntityId::from(id), fields, values(at));
        }
        Ok(())
    }
}
