//! [`AnyScene`]: the scene a runtime holds, the core's own or an engine's,
//! and [`SharedScene`], how the runtime and its instances share it.
//!
//! The core's [`Scene`] is a variant of its own rather than one more
//! `dyn GameScene`: a script call then reaches it through a `match` whose
//! arm the compiler inlines instead of a virtual call per entity access
//! (callgrind, kept cube: 3,895 instructions a frame against 3,917 through
//! the trait object and 3,856 before the seam). An engine's scene is called
//! through the trait.

use std::any::Any;
use std::sync::{Arc, Mutex};

use glam::{Quat, Vec3};

use super::data::GameData;
use super::entity::{EntityId, Transform};
use super::game_scene::{GameScene, QUAT, TRANSFORM, VEC3};
use super::own::Scene;

/// The scene a runtime's scripts act on.
pub enum AnyScene {
    /// The core's own scene.
    Own(Scene),
    /// An engine's entities (see [`GameScene`]).
    Engine(Box<dyn GameScene>),
}

/// The scene as shared between the runtime and every script instance. Lock
/// it with [`LockExt::lock_unpoisoned`](crate::sync::LockExt): a panic
/// elsewhere while it was locked does not stop the game.
pub type SharedScene = Arc<Mutex<AnyScene>>;

impl AnyScene {
    /// An engine's scene, shared.
    pub fn engine(scene: impl GameScene) -> SharedScene {
        Arc::new(Mutex::new(AnyScene::Engine(Box::new(scene))))
    }
}

impl Scene {
    /// Wraps the scene for sharing with scripts.
    pub fn shared(self) -> SharedScene {
        Arc::new(Mutex::new(AnyScene::Own(self)))
    }
}

/// Forwards each call to the scene inside. Every method of [`GameScene`]
/// is forwarded (the test below reads both lists from the source), so an
/// engine's own version of a method with a default body is the one called.
macro_rules! forward {
    ($( fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*) => {
        $(
            #[inline]
            fn $name(&mut self $(, $arg: $ty)*) -> $ret {
                match self {
                    AnyScene::Own(scene) => GameScene::$name(scene $(, $arg)*),
                    AnyScene::Engine(scene) => scene.$name($($arg),*),
                }
            }
        )*
    };
}

impl GameScene for AnyScene {
    forward! {
        fn spawn(&mut self, name: &str) -> EntityId;
        fn find(&mut self, name: &str) -> Option<EntityId>;
        fn despawn(&mut self, id: EntityId) -> bool;
        fn name(&mut self, id: EntityId) -> Option<String>;
        fn transform(&mut self, id: EntityId) -> Option<Transform>;
        fn set_transform(&mut self, id: EntityId, transform: Transform) -> bool;
        fn position(&mut self, id: EntityId) -> Option<Vec3>;
        fn rotation(&mut self, id: EntityId) -> Option<Quat>;
        fn set_position(&mut self, id: EntityId, position: Vec3) -> bool;
        fn set_rotation(&mut self, id: EntityId, rotation: Quat) -> bool;
        fn contains(&mut self, id: EntityId) -> bool;
        fn for_each(&mut self, visit: &mut dyn FnMut(EntityId, &str, &Transform)) -> ();
        fn len(&mut self) -> usize;
        fn is_empty(&mut self) -> bool;
        fn transforms(&mut self, ids: &[u32], out: &mut Vec<f32>) -> Result<(), u32>;
        fn set_transforms(&mut self, ids: &[u32], values: &[[f32; TRANSFORM]]) -> Result<(), u32>;
        fn set_positions(&mut self, ids: &[u32], values: &[[f32; VEC3]]) -> Result<(), u32>;
        fn set_rotations(&mut self, ids: &[u32], values: &[[f32; QUAT]]) -> Result<(), u32>;
        fn check(&mut self, ids: &[u32]) -> Result<(), u32>;
        fn game_data(&mut self) -> Option<&mut dyn GameData>;
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        match self {
            AnyScene::Own(scene) => scene,
            AnyScene::Engine(scene) => scene.as_any_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The names of the methods declared in `source` (`fn NAME(`), from the
    /// first line that starts with `start` to the next line that is `end`.
    fn methods(source: &str, start: &str, end: &str) -> Vec<String> {
        source
            .lines()
            .skip_while(|line| !line.starts_with(start))
            .skip(1)
            .take_while(|line| line.trim_end() != end)
            .filter_map(|line| {
                let rest = line.trim_start().strip_prefix("fn ")?;
                Some(rest[..rest.find('(')?].to_owned())
            })
            .collect()
    }

    #[test]
    fn every_method_of_the_trait_is_forwarded_to_the_scene_inside() {
        let declared = methods(include_str!("game_scene.rs"), "pub trait GameScene", "}");
        let forwarded = methods(include_str!("any.rs"), "    forward! {", "    }");
        assert!(declared.len() > 15, "the trait was not read: {declared:?}");
        for method in &declared {
            // `as_any_mut` is written out below the list: the core's scene
            // is its own `Any`.
            assert!(
                forwarded.contains(method) || method == "as_any_mut",
                "AnyScene does not forward GameScene::{method}: an engine's own {method} \
                 would never be called (add it to the `forward!` list)"
            );
        }
    }
}
