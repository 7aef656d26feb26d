//! Digests of the scene, for recordings: one of the whole scene, one per
//! entity. The same scene gives the same digest on every machine.

use sha2::{Digest, Sha256};

use super::{Entity, Scene};

/// Feeds one entity into `hasher`: its id (index), name and the bits of its
/// ten transform floats, little-endian.
fn feed(hasher: &mut Sha256, id: u32, entity: &Entity) {
    let t = &entity.transform;
    hasher.update(id.to_le_bytes());
    hasher.update((entity.name.len() as u64).to_le_bytes());
    hasher.update(entity.name.as_bytes());
    let floats = t
        .position
        .to_array()
        .into_iter()
        .chain(t.rotation.to_array())
        .chain(t.scale.to_array());
    for value in floats {
        hasher.update(value.to_bits().to_le_bytes());
    }
}

/// The first 8 bytes of a SHA-256, as a number.
fn first_u64(hasher: Sha256) -> u64 {
    let digest = hasher.finalize();
    u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

impl Scene {
    /// A digest of every entity (id, name, transform bits), in id order.
    pub fn digest(&self) -> u64 {
        let mut hasher = Sha256::new();
        hasher.update((self.entities.len() as u64).to_le_bytes());
        for (id, entity) in self.entities.iter().enumerate() {
            feed(&mut hasher, id as u32, entity);
        }
        first_u64(hasher)
    }

    /// A digest of each entity, in id order.
    pub fn entity_digests(&self) -> impl Iterator<Item = u64> + '_ {
        self.entities.iter().enumerate().map(|(id, entity)| {
            let mut hasher = Sha256::new();
            feed(&mut hasher, id as u32, entity);
            first_u64(hasher)
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
}
