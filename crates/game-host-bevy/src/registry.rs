//! The components a game lets scripts reach, by name:
//! [`ScriptApp::register_script_component`] on Bevy's `App`, kept as the
//! [`ScriptComponents`] resource, and [`ComponentAccess`], what a lent
//! scene answers `game-data` with.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::Arc;

use bevy::app::App;
use bevy::ecs::component::Mutable;
use bevy::ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy::prelude::{Component, Resource};
use bevy::reflect::{GetTypeRegistration, Reflect, TypePath};

/// What scripts may do with a registered component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptAccess {
    /// Read it (`get`, `get-field`, `has`).
    Read,
    /// Read, write, insert and remove it.
    ReadWrite,
}

/// The components registered for scripts, by the name scripts use (the
/// type's short path, `Spin` for `my_game::Spin`).
#[derive(Resource, Clone, Default)]
pub struct ScriptComponents(Arc<BTreeMap<String, Registered>>);

#[derive(Debug, Clone, Copy)]
pub(crate) struct Registered {
    pub(crate) type_id: TypeId,
    pub(crate) access: ScriptAccess,
}

impl ScriptComponents {
    /// The names scripts can use, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub(crate) fn get(&self, name: &str) -> Option<Registered> {
        self.0.get(name).copied()
    }
}

/// Registering a game's components for scripts, on Bevy's `App`.
pub trait ScriptApp {
    /// Lets scripts reach component `T` by its short type name, with
    /// `access`. `T` must derive `Reflect` with `#[reflect(Component)]`
    /// (and `Default`, for scripts to insert it).
    fn register_script_component<T>(&mut self, access: ScriptAccess) -> &mut Self
    where
        T: Component<Mutability = Mutable> + Reflect + TypePath + GetTypeRegistration;
}

impl ScriptApp for App {
    fn register_script_component<T>(&mut self, access: ScriptAccess) -> &mut Self
    where
        T: Component<Mutability = Mutable> + Reflect + TypePath + GetTypeRegistration,
    {
        self.register_type::<T>();
        let name = T::short_type_path().to_owned();
        {
            let types = self.world().resource::<AppTypeRegistry>().read();
            let registration = types.get(TypeId::of::<T>()).expect("registered above");
            assert!(
                registration.data::<ReflectComponent>().is_some(),
                "`{name}` is registered for scripts but does not reflect Component: \
                 add #[reflect(Component)] to it"
            );
        }
        let mut components = self
            .world_mut()
            .get_resource_or_init::<ScriptComponents>()
            .clone();
        Arc::make_mut(&mut components.0).insert(
            name,
            Registered {
                type_id: TypeId::of::<T>(),
                access,
            },
        );
        self.insert_resource(components);
        self
    }
}

/// What a [`BevyScene`] answers `game-data` with: the game's registered
/// components and Bevy's type registry, taken from the world it is lent.
#[derive(Default)]
pub(crate) struct ComponentAccess {
    pub(crate) components: ScriptComponents,
    pub(crate) types: Option<AppTypeRegistry>,
}

impl ComponentAccess {
    /// The components and type registry of `world`'s app.
    pub(crate) fn of(world: &bevy::prelude::World) -> Self {
        ComponentAccess {
            components: world
                .get_resource::<ScriptComponents>()
                .cloned()
                .unwrap_or_default(),
            types: world.get_resource::<AppTypeRegistry>().cloned(),
        }
    }
}
