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

use super::entity::{EntityId, Transform};
use super::game_scene::GameScene;

/// Feeds one entity into `hasher`: its id (index), name and the bits of its
/// ten transform floats, little-endian.
fn feed(hasher: &mut FnvHasher, id: u32, name: &str, t: &Transform) {
    let mut bytes = [0u8; 52];
    bytes[..4].copy_from_slice(&id.to_le_bytes());
    bytes[4..12].copy_from_slice(&(name.len() as u64).to_le_bytes());
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
    hasher.write(name.as_bytes());
    hasher.write(&bytes[12..]);
}

/// A digest of every entity of `scene` (id, name, transform bits), in id
/// order.
pub fn digest(scene: &mut dyn GameScene) -> u64 {
    let mut hasher = FnvHasher::default();
    hasher.write(&(scene.len() as u64).to_le_bytes());
    scene
        .for_each(&mut |id, name, transform| feed(&mut hasher, id.index() as u32, name, transform));
    hasher.finish()
}

/// The digest of one entity.
pub fn entity_digest(id: EntityId, name: &str, transform: &Transform) -> u64 {
    let mut hasher = FnvHasher::default();
    feed(&mut hasher, id.index() as u32, name, transform);
    hasher.finish()
}

/// A digest of each entity of `scene`, in id order.
pub fn entity_digests(scene: &mut dyn GameScene) -> Vec<u64> {
    let mut digests = Vec::with_capacity(scene.len());
    scene.for_each(&mut |id, name, transform| digests.push(entity_digest(id, name, transform)));
    digests
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::scene::Scene;

    #[test]
    fn digests_see_every_bit_of_a_transform() {
        let mut scene = Scene::with_default_cube();
        let before = digest(&mut scene);
        assert_eq!(before, digest(&mut Scene::with_default_cube()));
        let cube = scene.find("cube").unwrap();
        scene.transform_mut(cube).unwrap().position = Vec3::new(0.0, -0.0, 0.0);
        assert_ne!(
            digest(&mut scene),
            before,
            "-0.0 differs from 0.0 in its bits"
        );
        let entity_before = entity_digests(&mut Scene::with_default_cube());
        let entity_after = entity_digests(&mut scene);
        assert_ne!(entity_before, entity_after);
        scene.spawn("moon");
        assert_eq!(entity_digests(&mut scene).len(), 2);
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
        assert_eq!(digest(&mut scene), fnv1a);
    }
}
