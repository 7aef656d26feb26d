//! What a call sees of the scene, and where its writes go: the scene
//! itself for calls made one at a time (entrypoints, hand-overs), or the
//! instance's [`PendingWrites`] during a frame's dispatch, read back on
//! top of the scene (see `guest::pending` and `docs/parallel-frames.md`).
//! Calls whose result depends on other scripts' spawns (spawning, finding
//! by name, the game's data) first wait for their turn (`guest::turns`).
//!
//! The scene is reached only here (the store's field is private to it and
//! its children), and a read or a change of an entity or of the game's data
//! takes a proof that the instance's grants allow it (`access`).

use std::ops::Range;
use std::sync::MutexGuard;

use super::ScriptState;
use super::access::{DataAccess, GameAccess, Readable, ReadableIds, Writable, WritableIds};
use crate::guest::pending::{Fields, turn, write_fields};
use crate::scene::{
    AnyScene, EntityId, GameData, GameScene, TRANSFORM, Transform, floats_of, transform_of,
};
use crate::sync::LockExt;

/// A relative change of an entity's transform.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Nudge {
    Translate(glam::Vec3),
    Rotate(glam::Quat),
}

/// The error of every game-data call on a scene without game data.
pub(crate) const NO_GAME_DATA: &str = "game-data: this game gives scripts no game data";

impl ScriptState {
    /// The scene, locked: for this module's functions alone.
    fn lock_scene(&self) -> MutexGuard<'_, AnyScene> {
        self.scene.lock_unpoisoned()
    }

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
        let found = self.lock_scene().find(name);
        if found.is_some() || self.task.is_none() {
            return found;
        }
        self.take_turn();
        self.lock_scene().find(name)
    }

    /// Spawns `count` entities named `name`, in the frame's order.
    pub(crate) fn spawn_entities(&mut self, name: &str, count: u32) -> Vec<EntityId> {
        self.take_turn();
        let ids: Vec<EntityId> = {
            let mut scene = self.lock_scene();
            (0..count).map(|_| scene.spawn(name)).collect()
        };
        for &id in &ids {
            self.spawned(id);
        }
        ids
    }

    /// The transform of entity `id` as this call sees it.
    #[inline]
    pub(crate) fn entity_transform(&mut self, id: Readable) -> Option<Transform> {
        let id = id.entity();
        if self.pending.despawned(id) {
            return None;
        }
        let transform = self.lock_scene().transform(id)?;
        self.pending.saw(id);
        Some(self.pending.overlay(id, transform))
    }

    /// Whether `id` names an entity, as this call sees it.
    #[inline]
    pub(crate) fn entity_exists(&mut self, id: EntityId) -> bool {
        !self.pending.despawned(id) && self.lock_scene().contains(id)
    }

    /// The first of `ids` that names no entity as this call sees it (one
    /// lock of the scene for all of them).
    pub(crate) fn first_missing(&mut self, ids: &[u32]) -> Option<u32> {
        if let Some(&gone) = (ids.iter()).find(|&&id| self.pending.despawned(EntityId::from(id))) {
            return Some(gone);
        }
        if self.pending.answered(ids) {
            return None;
        }
        self.lock_scene().check(ids).err()
    }

    /// `values` (the floats `floats` of a transform, from
    /// [`transform_floats`](crate::scene::transform_floats), of each of
    /// `ids` as the scene holds them) with the instance's own kept writes
    /// of the frame on top.
    pub(crate) fn own_writes_on_top(&self, floats: Range<usize>, ids: &[u32], values: &mut [f32]) {
        if self.pending.is_empty() {
            return;
        }
        for (&id, value) in ids.iter().zip(values.chunks_exact_mut(floats.len())) {
            let mut flat = floats_of(&Transform::default());
            flat[floats.clone()].copy_from_slice(value);
            let seen = self
                .pending
                .overlay(EntityId::from(id), transform_of(&flat));
            value.copy_from_slice(&floats_of(&seen)[floats.clone()]);
        }
    }

    /// The name of entity `id` for a grant's check: `""` for an entity
    /// with no name (only a `*` pattern allows it), `None` for no entity.
    pub(crate) fn entity_name_for_grants(&mut self, id: EntityId) -> Option<String> {
        let mut scene = self.lock_scene();
        match scene.name(id) {
            Some(name) => Some(name),
            None if scene.contains(id) => Some(String::new()),
            None => None,
        }
    }

    /// The name of entity `id`, as this call sees it.
    pub(crate) fn entity_name(&mut self, id: EntityId) -> Option<String> {
        if self.pending.despawned(id) {
            return None;
        }
        self.lock_scene().name(id)
    }

    /// Writes `fields` of entity `id` from `value`; false if `id` names no
    /// entity.
    #[inline]
    pub(crate) fn write_entity(&mut self, id: Writable, fields: Fields, value: Transform) -> bool {
        let id = id.entity();
        if self.pending.deferring() {
            let scene = &self.scene;
            let exists = || scene.lock_unpoisoned().contains(id);
            return self.pending.write_if(id, fields, value, exists);
        }
        write_fields(&mut *self.lock_scene(), id, fields, &value)
    }

    /// Moves entity `id` by `offset`, or turns it by `delta`: a relative
    /// change, which combines with other tasks' in task order (see
    /// `guest::pending`); false if `id` names no entity.
    pub(crate) fn nudge_entity(&mut self, id: Writable, nudge: Nudge) -> bool {
        let id = id.entity();
        if self.pending.deferring() {
            let scene = &self.scene;
            let exists = || scene.lock_unpoisoned().contains(id);
            return match nudge {
                Nudge::Translate(offset) => self.pending.translate(id, offset, exists),
                Nudge::Rotate(delta) => self.pending.rotate(id, delta, exists),
            };
        }
        let mut scene = self.lock_scene();
        let Some(mut transform) = scene.transform(id) else {
            return false;
        };
        match nudge {
            Nudge::Translate(offset) => transform.position += offset,
            Nudge::Rotate(delta) => transform.rotation = turn(transform.rotation, delta),
        }
        scene.set_transform(id, transform)
    }

    /// Despawns entity `id`; false if it names none.
    pub(crate) fn despawn_entity(&mut self, id: Writable) -> bool {
        let id = id.entity();
        if !self.pending.deferring() {
            return self.lock_scene().despawn(id);
        }
        if !self.entity_exists(id) {
            return false;
        }
        self.pending.despawn(id);
        true
    }

    /// Appends the transforms of `ids` to `out`, or names the first id that
    /// is no entity.
    pub(crate) fn entity_transforms(
        &mut self,
        ids: ReadableIds<'_>,
        out: &mut Vec<f32>,
    ) -> Result<(), u32> {
        let ids = ids.ids();
        let start = out.len();
        self.lock_scene().transforms(ids, out)?;
        if self.pending.is_empty() {
            return Ok(());
        }
        let values = out[start..].as_chunks_mut::<TRANSFORM>().0;
        for (&id, value) in ids.iter().zip(values) {
            let entity = EntityId::from(id);
            if self.pending.despawned(entity) {
                return Err(id);
            }
            *value = floats_of(&self.pending.overlay(entity, transform_of(value)));
        }
        Ok(())
    }

    /// Writes `fields` of each of `ids` from `values` (one transform per
    /// id, only `fields` read), all or nothing: the first id that is no
    /// entity is named and nothing changes. `direct` makes the write on
    /// the scene when calls are not deferred (its many-entity call).
    pub(crate) fn write_entities(
        &mut self,
        ids: WritableIds<'_>,
        fields: Fields,
        values: impl Fn(usize) -> Transform,
        direct: impl FnOnce(&mut dyn GameScene) -> Result<(), u32>,
    ) -> Result<(), u32> {
        let ids = ids.ids();
        if !self.pending.deferring() {
            return direct(&mut *self.lock_scene());
        }
        self.lock_scene().check(ids)?;
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

    /// Runs `call` on the scene's game data, for the components or
    /// resources `access` was made for, or answers [`NO_GAME_DATA`].
    pub(crate) fn with_game<R>(
        &mut self,
        _access: GameAccess,
        call: impl FnOnce(&mut dyn GameData) -> Result<R, String>,
    ) -> Result<R, String> {
        self.take_turn();
        let mut scene = self.lock_scene();
        match scene.game_data() {
            Some(data) => call(data),
            None => Err(NO_GAME_DATA.to_owned()),
        }
    }

    /// Runs `call` on the scene's game data, for the entity and component
    /// of `access`, or answers [`NO_GAME_DATA`].
    pub(crate) fn with_data<R>(
        &mut self,
        access: DataAccess<'_>,
        call: impl FnOnce(&mut dyn GameData, EntityId, &str) -> Result<R, String>,
    ) -> Result<R, String> {
        self.take_turn();
        let mut scene = self.lock_scene();
        match scene.game_data() {
            Some(data) => call(data, access.entity(), access.component()),
            None => Err(NO_GAME_DATA.to_owned()),
        }
    }
}
