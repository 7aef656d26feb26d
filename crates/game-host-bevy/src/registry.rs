//! What a game lets scripts reach, by name, registered on Bevy's `App`
//! ([`ScriptApp`]): components ([`ScriptComponents`]), resources
//! ([`ScriptResources`]) and message types ([`ScriptMessages`]), each kept
//! as a resource; and [`ComponentAccess`], what a lent scene answers
//! `game-data`, `queries`, `resources` and `game-messages` with.
//!
//! Each registered component and resource is also described for the
//! game's types (`describe`). A resource or message type is reached
//! through functions made for its type when it is registered (no reflection lookup per call): they read
//! and write its fields by reflection (`reflect`).

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::Arc;

use bevy::app::App;
use bevy::ecs::component::Mutable;
use bevy::ecs::message::MessageCursor;
use bevy::ecs::reflect::{AppTypeRegistry, ReflectComponent};
use bevy::prelude::{Component, Message, Messages, Mut, Resource, World};
use bevy::reflect::{GetTypeRegistration, Reflect, TypePath, Typed};
use game_host::input::{Event, ScriptMessage};
use game_host::scene::{Field, Value, fields_json};

use crate::describe::ScriptTypes;
use crate::reflect::{Place, fields_of, write_fields};

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

/// A resource registered for scripts: its access, and its reader and
/// writer.
#[derive(Clone, Copy)]
pub(crate) struct ResourceType {
    pub(crate) access: ScriptAccess,
    /// Its fields, or `None` while the game has none.
    pub(crate) read: fn(&World) -> Option<Vec<Field>>,
    /// Sets one field (named in errors as `name`).
    pub(crate) write: fn(&mut World, &str, &str, Value) -> Result<(), String>,
}

/// The resources registered for scripts, by the name scripts use.
#[derive(Resource, Clone, Default)]
pub struct ScriptResources(Arc<BTreeMap<String, ResourceType>>);

impl ScriptResources {
    /// The names scripts can use, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub(crate) fn get(&self, name: &str) -> Option<ResourceType> {
        self.0.get(name).copied()
    }
}

/// A message type registered for scripts: its writer, and what hands the
/// game's messages of it to scripts.
#[derive(Clone, Copy)]
pub(crate) struct MessageType {
    /// Writes one, its fields set (named in errors as `name`).
    pub(crate) write: fn(&mut World, &str, Vec<Field>) -> Result<(), String>,
    /// Appends the messages of the type written since the last call, as
    /// events on the channel `name`.
    pub(crate) forward: fn(&mut World, &str, &mut Vec<Event>),
}

/// The message types registered for scripts, by the name scripts use.
#[derive(Resource, Clone, Default)]
pub struct ScriptMessages(Arc<BTreeMap<String, MessageType>>);

impl ScriptMessages {
    /// The names scripts can use, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    pub(crate) fn get(&self, name: &str) -> Option<MessageType> {
        self.0.get(name).copied()
    }

    /// The game's messages since the last step, for scripts.
    pub(crate) fn forward(&self, world: &mut World) -> Vec<Event> {
        let mut events = Vec::new();
        for (name, kind) in self.0.iter() {
            (kind.forward)(world, name, &mut events);
        }
        events
    }
}

/// Where the scripts' reading of messages of type `T` stands.
#[derive(Resource)]
struct Forwarded<T: Message>(MessageCursor<T>);

fn read_resource<T: Resource + Reflect>(world: &World) -> Option<Vec<Field>> {
    Some(fields_of(world.get_resource::<T>()?.as_partial_reflect()))
}

fn write_resource<T: Resource<Mutability = Mutable> + Reflect>(
    world: &mut World,
    name: &str,
    field: &str,
    value: Value,
) -> Result<(), String> {
    let mut resource: Mut<T> = world
        .get_resource_mut::<T>()
        .ok_or_else(|| format!("resources: the game has no `{name}` now"))?;
    let what = format!("resource `{name}`");
    write_fields(
        resource.as_partial_reflect_mut(),
        Place::Named("resources", &what),
        vec![Field::new(field, value)],
    )
}

fn write_message<T: Message + Reflect + Default>(
    world: &mut World,
    name: &str,
    fields: Vec<Field>,
) -> Result<(), String> {
    let mut message = T::default();
    let what = format!("message `{name}`");
    write_fields(
        message.as_partial_reflect_mut(),
        Place::Named("game-messages", &what),
        fields,
    )?;
    world.write_message(message);
    Ok(())
}

fn forward_messages<T: Message + Reflect>(world: &mut World, name: &str, out: &mut Vec<Event>) {
    world.resource_scope(|world, mut cursor: Mut<Forwarded<T>>| {
        let Some(messages) = world.get_resource::<Messages<T>>() else {
            return;
        };
        for message in cursor.0.read(messages) {
            out.push(Event::Message(ScriptMessage {
                channel: name.to_owned(),
                payload: fields_json(&fields_of(message.as_partial_reflect())),
            }));
        }
    });
}

/// Registering a game's components for scripts, on Bevy's `App`.
pub trait ScriptApp {
    /// Lets scripts reach component `T` by its short type name, with
    /// `access`. `T` must derive `Reflect` with `#[reflect(Component)]`
    /// (and `Default`, for scripts to insert it).
    fn register_script_component<T>(&mut self, access: ScriptAccess) -> &mut Self
    where
        T: Component<Mutability = Mutable> + Reflect + TypePath + GetTypeRegistration;

    /// Lets scripts reach resource `T` by its short type name, with
    /// `access` (`Time` is taken: every game offers the fixed clock).
    fn register_script_resource<T>(&mut self, access: ScriptAccess) -> &mut Self
    where
        T: Resource<Mutability = Mutable> + Reflect + TypePath + Typed;

    /// Lets scripts write messages of type `T` (by its short type name)
    /// to the game's systems, and receive the game's: each reaches
    /// scripts as an `events` message on the channel of that name, with
    /// its fields as JSON. Adds the message type to the app.
    fn register_script_message<T>(&mut self) -> &mut Self
    where
        T: Message + Reflect + TypePath + Default;
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
        let info = T::get_type_registration().type_info();
        let short = T::short_type_path();
        (self.world_mut().get_resource_or_init::<ScriptTypes>()).add_component(short, info);
        self
    }

    fn register_script_resource<T>(&mut self, access: ScriptAccess) -> &mut Self
    where
        T: Resource<Mutability = Mutable> + Reflect + TypePath + Typed,
    {
        let name = T::short_type_path().to_owned();
        assert!(
            name != "Time",
            "`Time` is the fixed clock every game offers scripts; name the resource otherwise"
        );
        (self.world_mut().get_resource_or_init::<ScriptTypes>())
            .add_resource(&name, T::type_info());
        let mut resources = self
            .world_mut()
            .get_resource_or_init::<ScriptResources>()
            .clone();
        let kind = ResourceType {
            access,
            read: read_resource::<T>,
            write: write_resource::<T>,
        };
        Arc::make_mut(&mut resources.0).insert(name, kind);
        self.insert_resource(resources);
        self
    }

    fn register_script_message<T>(&mut self) -> &mut Self
    where
        T: Message + Reflect + TypePath + Default,
    {
        self.add_message::<T>();
        let cursor = self.world().resource::<Messages<T>>().get_cursor();
        self.insert_resource(Forwarded::<T>(cursor));
        let mut messages = self
            .world_mut()
            .get_resource_or_init::<ScriptMessages>()
            .clone();
        let kind = MessageType {
            write: write_message::<T>,
            forward: forward_messages::<T>,
        };
        Arc::make_mut(&mut messages.0).insert(T::short_type_path().to_owned(), kind);
        self.insert_resource(messages);
        self
    }
}

/// What a [`BevyScene`] answers `game-data` with: the game's registered
/// components and Bevy's type registry, taken from the world it is lent.
#[derive(Default)]
pub(crate) struct ComponentAccess {
    pub(crate) components: ScriptComponents,
    pub(crate) resources: ScriptResources,
    pub(crate) messages: ScriptMessages,
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
            resources: world
                .get_resource::<ScriptResources>()
                .cloned()
                .unwrap_or_default(),
            messages: world
                .get_resource::<ScriptMessages>()
                .cloned()
                .unwrap_or_default(),
            types: world.get_resource::<AppTypeRegistry>().cloned(),
        }
    }
}
