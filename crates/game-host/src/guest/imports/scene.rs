//! `game:engine/scene`: entities and their `transform-component` handles.
//!
//! A handle is a [`TransformHandle`] in the instance's `ResourceTable`; the
//! resource destructor deletes the entry, so handles a script drops every
//! frame never grow the table.

use wasmtime::component::Resource;

use crate::guest::bindings::scene::{EntityId as EntityIdWit, Host, HostTransformComponent};
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::{Charge, ScriptState};
use crate::scene::{AnyScene, CUBE, EntityId, GameScene, Transform, TransformHandle};
use crate::sync::LockExt;

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

impl ScriptState {
    fn push_handle(&mut self, entity: EntityId) -> wasmtime::Result<Resource<TransformHandle>> {
        let held = self.handles.live;
        self.usage.charge(&self.quotas, Charge::Handle { held })?;
        let handle = self.table.push(TransformHandle::new(entity))?;
        self.handles.created += 1;
        self.handles.live += 1;
        self.handles.highest_index = self.handles.highest_index.max(handle.rep());
        Ok(handle)
    }

    /// Runs `f` on the scene and the entity behind `handle`; `f` answers
    /// `None` when that entity is gone, and the call fails naming it.
    fn with_transform<R>(
        &mut self,
        handle: &Resource<TransformHandle>,
        f: impl FnOnce(&mut dyn GameScene, EntityId) -> Option<R>,
    ) -> wasmtime::Result<R> {
        let entity = self.table.get(handle)?.entity();
        Self::run_on(&mut *self.lock_scene(), entity, f)
    }

    /// [`Self::with_transform`] for a write: it fails first, naming the
    /// entity, unless the grants allow it.
    fn with_transform_mut<R>(
        &mut self,
        handle: &Resource<TransformHandle>,
        f: impl FnOnce(&mut dyn GameScene, EntityId) -> Option<R>,
    ) -> wasmtime::Result<R> {
        let entity = self.table.get(handle)?.entity();
        self.may_write(entity)?;
        Self::run_on(&mut *self.lock_scene(), entity, f)
    }

    fn run_on<R>(
        scene: &mut dyn GameScene,
        entity: EntityId,
        f: impl FnOnce(&mut dyn GameScene, EntityId) -> Option<R>,
    ) -> wasmtime::Result<R> {
        f(scene, entity).ok_or_else(|| {
            wasmtime::format_err!(
                "scene: the entity of this transform-component (id {}) was despawned",
                entity.index()
            )
        })
    }

    /// The transform behind `handle`.
    fn read(&mut self, handle: &Resource<TransformHandle>) -> wasmtime::Result<Transform> {
        self.with_transform(handle, |scene, id| scene.transform(id))
    }

    /// Changes the transform behind `handle`.
    fn write(
        &mut self,
        handle: &Resource<TransformHandle>,
        edit: impl FnOnce(&mut Transform),
    ) -> wasmtime::Result<()> {
        self.with_transform_mut(handle, |scene, id| {
            let mut transform = scene.transform(id)?;
            edit(&mut transform);
            scene.set_transform(id, transform).then_some(())
        })
    }

    fn lock_scene(&self) -> std::sync::MutexGuard<'_, AnyScene> {
        self.scene.lock_unpoisoned()
    }

    /// The id of the entity behind a handle.
    pub(crate) fn entity_id_of(
        &self,
        handle: &Resource<TransformHandle>,
    ) -> wasmtime::Result<EntityIdWit> {
        Ok(self.table.get(handle)?.entity().index() as EntityIdWit)
    }
}

impl HostTransformComponent for ScriptState {
    fn id(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<EntityIdWit> {
        self.entity_id_of(&self_)
    }

    fn name(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<String> {
        self.with_transform(&self_, |scene, id| scene.name(id))
    }

    fn position(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Vec3> {
        Ok(self.read(&self_)?.position.into())
    }

    fn set_position(
        &mut self,
        self_: Resource<TransformHandle>,
        position: Vec3,
    ) -> wasmtime::Result<()> {
        self.with_transform_mut(&self_, |scene, id| {
            scene.set_position(id, position.into()).then_some(())
        })
    }

    fn rotation(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Quat> {
        Ok(self.read(&self_)?.rotation.into())
    }

    fn set_rotation(
        &mut self,
        self_: Resource<TransformHandle>,
        rotation: Quat,
    ) -> wasmtime::Result<()> {
        self.with_transform_mut(&self_, |scene, id| {
            scene.set_rotation(id, rotation.into()).then_some(())
        })
    }

    fn scale(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Vec3> {
        Ok(self.read(&self_)?.scale.into())
    }

    fn set_scale(&mut self, self_: Resource<TransformHandle>, scale: Vec3) -> wasmtime::Result<()> {
        self.write(&self_, |t| t.scale = scale.into())
    }

    fn set_trs(
        &mut self,
        self_: Resource<TransformHandle>,
        position: Vec3,
        rotation: Quat,
        scale: Vec3,
    ) -> wasmtime::Result<()> {
        self.write(&self_, |t| {
            *t = Transform {
                position: position.into(),
                rotation: rotation.into(),
                scale: scale.into(),
            }
        })
    }

    fn drop(&mut self, rep: Resource<TransformHandle>) -> wasmtime::Result<()> {
        self.table.delete(rep)?;
        self.handles.live -= 1;
        Ok(())
    }
}

impl Host for ScriptState {
    fn cube_transform(&mut self) -> wasmtime::Result<Resource<TransformHandle>> {
        let cube = self
            .lock_scene()
            .find(CUBE)
            .ok_or_else(|| wasmtime::format_err!("the scene has no entity named `{CUBE}`"))?;
        self.push_handle(cube)
    }

    fn spawn(&mut self, name: String) -> wasmtime::Result<Resource<TransformHandle>> {
        self.usage.charge(&self.quotas, Charge::Entities(1))?;
        let entity = self.lock_scene().spawn(&name);
        self.spawned(entity);
        self.push_handle(entity)
    }

    fn find(&mut self, name: String) -> wasmtime::Result<Option<Resource<TransformHandle>>> {
        let entity = self.lock_scene().find(&name);
        entity.map(|entity| self.push_handle(entity)).transpose()
    }
}
