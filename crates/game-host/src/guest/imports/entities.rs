//! `game:engine/entities`: many transforms per call, by entity id.
//!
//! Values travel as flat lists of floats (3 per position, 4 per rotation,
//! 10 per transform), which wasmtime copies across the boundary as one
//! block; a list of records costs a conversion per field instead (measured:
//! about 1,000 instructions per transform read and written back, against
//! a few dozen as floats).
//!
//! Each call locks the scene once for all of its ids. An id that names no
//! entity fails the call (a trap naming the id), as does a list of values
//! of the wrong length: both are bugs in the script, never silently
//! skipped. A write that fails changes no entity (ids are checked first).

use glam::{Quat, Vec3};

use crate::guest::bindings::entities::{EntityId as WitEntityId, Host};
use crate::guest::{Charge, ScriptState};
use crate::scene::{EntityId, Scene, Transform};
use crate::sync::LockExt;

/// Floats per position or scale, rotation and transform.
const VEC3: usize = 3;
const QUAT: usize = 4;
const TRANSFORM: usize = 10;

/// The error of a call naming an id that is no entity; `interface` is
/// `entities` or `entity`.
fn unknown(interface: &str, id: WitEntityId) -> wasmtime::Error {
    wasmtime::format_err!("{interface}: no entity has id {id}")
}

/// Entity `id`'s transform, or the error of a call through `interface`
/// naming an unknown id.
pub(super) fn transform<'s>(
    scene: &'s Scene,
    interface: &str,
    id: WitEntityId,
) -> wasmtime::Result<&'s Transform> {
    scene
        .transform(EntityId::from(id))
        .ok_or_else(|| unknown(interface, id))
}

/// As [`transform`], to change it.
pub(super) fn transform_mut<'s>(
    scene: &'s mut Scene,
    interface: &str,
    id: WitEntityId,
) -> wasmtime::Result<&'s mut Transform> {
    scene
        .transform_mut(EntityId::from(id))
        .ok_or_else(|| unknown(interface, id))
}

/// Applies `values` (`N` floats per id) to `ids` with `set`, under one
/// lock. All or nothing: a call naming an unknown id changes no entity.
fn write_each<const N: usize>(
    state: &ScriptState,
    call: &str,
    ids: &[WitEntityId],
    values: &[f32],
    mut set: impl FnMut(&mut Transform, &[f32; N]),
) -> wasmtime::Result<()> {
    let (chunks, rest) = values.as_chunks::<N>();
    if chunks.len() != ids.len() || !rest.is_empty() {
        wasmtime::bail!(
            "entities: {call} got {} ids and {} values; it takes {N} values per id",
            ids.len(),
            values.len()
        );
    }
    let mut scene = state.scene.lock_unpoisoned();
    for &id in ids {
        transform(&scene, "entities", id)?;
    }
    for (&id, chunk) in ids.iter().zip(chunks) {
        set(transform_mut(&mut scene, "entities", id)?, chunk);
    }
    Ok(())
}

fn vec3(v: &[f32]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

fn quat(v: &[f32]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[3])
}

impl Host for ScriptState {
    fn spawn_many(&mut self, name: String, count: u32) -> wasmtime::Result<Vec<WitEntityId>> {
        self.usage
            .charge(&self.quotas, Charge::Entities(u64::from(count)))?;
        let mut scene = self.scene.lock_unpoisoned();
        Ok((0..count)
            .map(|_| scene.spawn(&name).index() as WitEntityId)
            .collect())
    }

    fn transforms(&mut self, ids: Vec<WitEntityId>) -> wasmtime::Result<Vec<f32>> {
        let scene = self.scene.lock_unpoisoned();
        let mut values = Vec::with_capacity(ids.len() * TRANSFORM);
        for &id in &ids {
            let t = transform(&scene, "entities", id)?;
            // One whole transform per push: 70% of the instructions of
            // pushing its three parts (callgrind, 10,000 behaviours).
            let (p, r, s) = (t.position, t.rotation, t.scale);
            values.extend_from_slice(&[p.x, p.y, p.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]);
        }
        Ok(values)
    }

    fn set_transforms(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        write_each::<TRANSFORM>(self, "set-transforms", &ids, &values, |t, v| {
            *t = Transform {
                position: vec3(&v[0..3]),
                rotation: quat(&v[3..7]),
                scale: vec3(&v[7..10]),
            }
        })
    }

    fn set_positions(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        write_each::<VEC3>(self, "set-positions", &ids, &values, |t, v| {
            t.position = vec3(v)
        })
    }

    fn set_rotations(&mut self, ids: Vec<WitEntityId>, values: Vec<f32>) -> wasmtime::Result<()> {
        write_each::<QUAT>(self, "set-rotations", &ids, &values, |t, v| {
            t.rotation = quat(v)
        })
    }
}
