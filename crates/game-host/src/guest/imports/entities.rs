//! `game:engine/entities`: many transforms per call, by entity id.
//!
//! Values travel as flat lists of floats (3 per position, 4 per rotation,
//! 10 per transform), which wasmtime copies across the boundary as one
//! block; a list of records costs a conversion per field instead (measured:
//! about 1,000 instructions per transform read and written back, against
//! a few dozen as floats).
//!
//! Each call locks the scene once for all of its ids and hands them to the
//! scene's many-entity call ([`GameScene`](crate::scene::GameScene)). An id that names no
//! entity fails the call (a trap naming the id), as does a list of values
//! of the wrong length: both are bugs in the script, never silently
//! skipped. A write that fails changes no entity (ids are checked first).

use crate::guest::bindings::entities::{EntityId as WitEntityId, Host};
use crate::guest::pending::{ALL, POSITION, ROTATION};
use crate::guest::{Charge, ScriptState};
use crate::scene::{QUAT, TRANSFORM, Transform, VEC3, transform_of};

/// The error of a call naming an id that is no entity; `interface` is
/// `entities` or `entity`.
pub(super) fn unknown(interface: &str, id: WitEntityId) -> wasmtime::Error {
    wasmtime::format_err!("{interface}: no entity has id {id}")
}

/// `values` as `N` floats per id, or the error of a list of the wrong
/// length.
fn chunks<'v, const N: usize>(
    call: &str,
    ids: &[WitEntityId],
    values: &'v [f32],
) -> wasmtime::Result<&'v [[f32; N]]> {
    let (chunks, rest) = values.as_chunks::<N>();
    if chunks.len() != ids.len() || !rest.is_empty() {
        wasmtime::bail!(
            "entities: {call} got {} ids and {} values; it takes {N} values per id",
            ids.len(),
            values.len()
        );
    }
    Ok(chunks)
}

impl Host for ScriptState {
    fn spawn_many(&mut self, name: String, count: u32) -> wasmtime::Result<Vec<WitEntityId>> {
        self.usage
            .charge(&self.quotas, Charge::Entities(u64::from(count)))?;
        let ids = self.spawn_entities(&name, count);
        Ok(ids.iter().map(|id| id.index() as WitEntityId).collect())
    }

    fn transforms(&mut self, ids: Vec<WitEntityId>) -> wasmtime::Result<Vec<f32>> {
        let mut values = Vec::with_capacity(ids.len() * TRANSFORM);
        let readable = self.may_read_all(&ids)?;
        let read = self.entity_transforms(readable, &mut values);
        read.map_err(|id| unknown("entities", id))?;
        Ok(values)
    }

    fn set_transforms(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        let writable = self.may_write_all(&ids)?;
        let values = chunks::<TRANSFORM>("set-transforms", &ids, &values)?;
        let set = self.write_entities(
            writable,
            ALL,
            |at| transform_of(&values[at]),
            |scene| scene.set_transforms(&ids, values),
        );
        set.map_err(|id| unknown("entities", id))
    }

    fn set_positions(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        let writable = self.may_write_all(&ids)?;
        let values = chunks::<VEC3>("set-positions", &ids, &values)?;
        let set = self.write_entities(
            writable,
            POSITION,
            |at| Transform {
                position: glam::Vec3::from_array(values[at]),
                ..Transform::default()
            },
            |scene| scene.set_positions(&ids, values),
        );
        set.map_err(|id| unknown("entities", id))
    }

    fn set_rotations(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        let writable = self.may_write_all(&ids)?;
        let values = chunks::<QUAT>("set-rotations", &ids, &values)?;
        let set = self.write_entities(
            writable,
            ROTATION,
            |at| Transform {
                rotation: glam::Quat::from_array(values[at]),
                ..Transform::default()
            },
            |scene| scene.set_rotations(&ids, values),
        );
        set.map_err(|id| unknown("entities", id))
    }
}
