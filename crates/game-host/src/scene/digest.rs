//! Digests of the scene, for recordings: one of the whole scene, one per
//! entity. The same scene gives the same digest on every machine.
//!
//! FNV-1a (64-bit) over explicit little-endian bytes: a fixed, documented
//! algorithm, and cheap enough to run after every frame of a recorded or
//! replayed run (about 200 instructions an entity, against about 3,400 for
//! SHA-256 in software). A digest detects divergence; it is not a seal
//! against tampering.

use std::hash::Hasher;

use fnv::FnvHasher;

use super::{Entity, Scene};

/// Feeds one entity into `hasher`: its id (index), name and the bits of its
/// ten transform floats, little-endian.
fn feed(hasher: &mut FnvHasher, id: u32, entity: &Entity) {
    let t = &entity.transform;
    let mut bytes = [0u8; 52];
    bytes[..4].copy_from_slice(&id.to_le_bytes());
    bytes[4..12].copy_from_slice(&(entity.name.len() as u64).to_le_bytes());
    let floats = t
        .position
        .to_array()
        .into_iter()
        .chain(t.rotation.to_array())
        .chain(t.scale.to_array());
    for (at, value) in (12..).step_by(4).zip(floats) {
        bytes[at..at + 4].copy_from_slice(&value.to_bits().to_le_bytes());
    }
    hasher.write(&bytes[..12]);
    hasher.write(entity.name.as_bytes());
    hasher.write(&bytes[12..]);
}

impl Scene {
    /// A digest of every entity (id, name, transform bits), in id order.
    pub fn digest(&self) -> u64 {
        let mut hasher = FnvHasher::default();
        hasher.write(&(self.entities.len() as u64).to_le_bytes());
        for (id, entity) in self.entities.iter().enumerate() {
            feed(&mut hasher, id as u32, entity);
        }
        hasher.finish()
    }

    /// A digest of each entity, in id order.
    pub fn entity_digests(&self) -> impl Iterator<Item = u64> + '_ {
        self.entities.iter().enumerate().map(|(id, entity)| {
            let mut hasher = FnvHasher::default();
            feed(&mut hasher, id as u32, entity);
            hasher.finish()
        })
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    #[test]
    fn digests_see_every_bit_of_a_transform() {
        let mut scene = Scene::with_default_cube();
        let before = scene.digest();
        assert_eq!(before, Scene::with_default_cube().digest());
        let cube = scene.find("cube").unwrap();
        scene.transform_mut(cube).unwrap().position = Vec3::new(0.0, -0.0, 0.0);
        assert_ne!(scene.digest(), before, "-0.0 differs from 0.0 in its bits");
        let entity_before: Vec<u64> = Scene::with_default_cube().entity_digests().collect();
        let entity_after: Vec<u64> = scene.entity_digests().collect();
        assert_ne!(entity_before, entity_after);
        scene.spawn("moon");
        assert_eq!(scene.entity_digests().count(), 2);
    }

    #[test]
    fn the_digest_is_fnv1a_over_the_documented_bytes() {
        // One entity `a` at the origin, by hand: count, id, name length,
        // name, then position, rotation (0,0,0,1) and scale (1,1,1) bits.
        let mut bytes = Vec::new();
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        bytes.extend(1u64.to_le_bytes());
        bytes.extend(b"a");
        for value in [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0] {
            bytes.extend(value.to_bits().to_le_bytes());
        }
        let mut fnv1a = 0xcbf2_9ce4_8422_2325u64;
        for byte in bytes {
            fnv1a = (fnv1a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut scene = Scene::new();
        scene.spawn("a");
        assert_eq!(scene.digest(), fnv1a);
    }
}
