//! `game:engine/scene`: entities and their `transform-component` handles.
//!
//! A handle is a [`TransformHandle`] in the instance's `ResourceTable`; the
//! resource destructor deletes the entry, so handles a script drops every
//! frame never grow the table.

use wasmtime::component::Resource;

use crate::guest::bindings::scene::{EntityId as EntityIdWit, Host, HostTransformComponent};
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::pending::{ALL, Fields, POSITION, ROTATION, SCALE};
use crate::guest::{Charge, ScriptState};
use crate::scene::{CUBE, EntityId, Transform, TransformHandle};

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

    /// The entity behind `handle`.
    fn entity_of(&self, handle: &Resource<TransformHandle>) -> wasmtime::Result<EntityId> {
        Ok(self.table.get(handle)?.entity())
    }

    /// The error of a handle whose entity is gone.
    fn despawned(entity: EntityId) -> wasmtime::Error {
        wasmtime::format_err!(
            "scene: the entity of this transform-component (id {}) was despawned",
            entity.index()
        )
    }

    /// The transform behind `handle`.
    fn read(&mut self, handle: &Resource<TransformHandle>) -> wasmtime::Result<Transform> {
        let entity = self.entity_of(handle)?;
        let readable = self.may_read(entity)?;
        self.entity_transform(readable)
            .ok_or_else(|| Self::despawned(entity))
    }

    /// Writes `fields` of the transform behind `handle` from `value`; it
    /// fails first, naming the entity, unless the grants allow it.
    fn write(
        &mut self,
        handle: &Resource<TransformHandle>,
        fields: Fields,
        value: Transform,
    ) -> wasmtime::Result<()> {
        let entity = self.entity_of(handle)?;
        let writable = self.may_write(entity)?;
        if self.write_entity(writable, fields, value) {
            Ok(())
        } else {
            Err(Self::despawned(entity))
        }
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
        let entity = self.entity_of(&self_)?;
        self.entity_name(entity)
            .ok_or_else(|| Self::despawned(entity))
    }

    fn position(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Vec3> {
        Ok(self.read(&self_)?.position.into())
    }

    fn set_position(
        &mut self,
        self_: Resource<TransformHandle>,
        position: Vec3,
    ) -> wasmtime::Result<()> {
        let value = Transform {
            position: position.into(),
            ..Transform::default()
        };
        self.write(&self_, POSITION, value)
    }

    fn rotation(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Quat> {
        Ok(self.read(&self_)?.rotation.into())
    }

    fn set_rotation(
        &mut self,
        self_: Resource<TransformHandle>,
        rotation: Quat,
    ) -> wasmtime::Result<()> {
        let value = Transform {
            rotation: rotation.into(),
            ..Transform::default()
        };
        self.write(&self_, ROTATION, value)
    }

    fn scale(&mut self, self_: Resource<TransformHandle>) -> wasmtime::Result<Vec3> {
        Ok(self.read(&self_)?.scale.into())
    }

    fn set_scale(&mut self, self_: Resource<TransformHandle>, scale: Vec3) -> wasmtime::Result<()> {
        let value = Transform {
            scale: scale.into(),
            ..Transform::default()
        };
        self.write(&self_, SCALE, value)
    }

    fn set_trs(
        &mut self,
        self_: Resource<TransformHandle>,
        position: Vec3,
        rotation: Quat,
        scale: Vec3,
    ) -> wasmtime::Result<()> {
        let value = Transform {
            position: position.into(),
            rotation: rotation.into(),
            scale: scale.into(),
        };
        self.write(&self_, ALL, value)
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
            .find_entity(CUBE)
            .ok_or_else(|| wasmtime::format_err!("the scene has no entity named `{CUBE}`"))?;
        self.push_handle(cube)
    }

    fn spawn(&mut self, name: String) -> wasmtime::Result<Resource<TransformHandle>> {
        self.usage.charge(&self.quotas, Charge::Entities(1))?;
        let entity = self.spawn_entities(&name, 1)[0];
        self.push_handle(entity)
    }

    fn find(&mut self, name: String) -> wasmtime::Result<Option<Resource<TransformHandle>>> {
        let entity = self.find_entity(&name);
        entity.map(|entity| self.push_handle(entity)).transpose()
    }
}
