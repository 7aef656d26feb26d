//! Entity behaviours: many scripted entities served by one instance, like
//! scripts attached to objects in Unity or Roblox.
//!
//! [`attach`] gives an entity a value of a [`Behaviour`] type. Once per
//! frame the host makes one call into the script for all of them (the SDK
//! keeps the update subscription from the first attach on). In that call, for each
//! behaviour type, the SDK reads all its entities' transforms in one host
//! call, runs every behaviour's [`Behaviour::update`] on its entity's
//! transform, and writes the transforms back in one host call. Thousands of
//! behaviours cost a few crossings per frame, not thousands.
//!
//! Behaviours are for many similar objects within one script's trust;
//! scripts that must be isolated from each other stay separate instances.

use std::any::{Any, TypeId};
use std::cell::RefCell;

use crate::entities::{EntityId, Transform};
use crate::time::FrameClock;

/// Per-entity game logic, run once per frame on the entity's transform.
pub trait Behaviour: 'static {
    /// Updates the behaviour and its entity's transform for one frame.
    fn update(&mut self, transform: &mut Transform, clock: &FrameClock);
}

/// All the behaviours of one type, with their entities.
struct Set<B> {
    ids: Vec<EntityId>,
    behaviours: Vec<B>,
}

/// A [`Set`] of some behaviour type.
trait AnySet {
    fn run(&mut self, clock: &FrameClock);
    fn absorb(&mut self, other: Box<dyn AnySet>);
    fn detach(&mut self, entity: EntityId);
    fn len(&self) -> usize;
    fn behaviour_type(&self) -> TypeId;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<B: Behaviour> AnySet for Set<B> {
    fn run(&mut self, clock: &FrameClock) {
        if self.ids.is_empty() {
            return;
        }
        let mut packed = crate::entities::packed_transforms(&self.ids);
        let (chunks, _) = packed.as_chunks_mut::<{ Transform::FLOATS }>();
        for (behaviour, floats) in self.behaviours.iter_mut().zip(chunks) {
            let mut transform = Transform::from_floats(floats);
            behaviour.update(&mut transform, clock);
            *floats = transform.to_floats();
        }
        // Writes the behaviours buffered go first, in the order made.
        crate::entities::set_packed_transforms(&self.ids, &packed);
    }

    fn absorb(&mut self, other: Box<dyn AnySet>) {
        if let Ok(other) = other.into_any().downcast::<Set<B>>() {
            self.ids.extend(other.ids);
            self.behaviours.extend(other.behaviours);
        }
    }

    fn detach(&mut self, entity: EntityId) {
        let mut index = 0;
        while index < self.ids.len() {
            if self.ids[index] == entity {
                self.ids.swap_remove(index);
                self.behaviours.swap_remove(index);
            } else {
                index += 1;
            }
        }
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn behaviour_type(&self) -> TypeId {
        TypeId::of::<B>()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// Behaviour sets by type, in the order their types were first attached.
/// Attached during a run, a behaviour waits in `added` until the run ends.
#[derive(Default)]
struct Registry {
    sets: Vec<Box<dyn AnySet>>,
    added: Vec<Box<dyn AnySet>>,
    /// Detached during a run, removed when it ends.
    detached: Vec<(TypeId, EntityId)>,
    running: bool,
}

impl Registry {
    fn detach(&mut self, kind: TypeId, entity: EntityId) {
        for set in self.sets.iter_mut().chain(&mut self.added) {
            if set.behaviour_type() == kind {
                set.detach(entity);
            }
        }
    }

    fn merge(sets: &mut Vec<Box<dyn AnySet>>, set: Box<dyn AnySet>) {
        let kind = set.behaviour_type();
        match sets.iter_mut().find(|s| s.behaviour_type() == kind) {
            Some(existing) => existing.absorb(set),
            None => sets.push(set),
        }
    }
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

/// Attaches `behaviour` to `entity`: it runs once per frame from the next
/// behaviour update on (the first is on the frame after the first attach). An entity may have several behaviours, of one or more types.
pub fn attach<B: Behaviour>(entity: EntityId, behaviour: B) {
    add(Set {
        ids: vec![entity],
        behaviours: vec![behaviour],
    });
}

/// Attaches one behaviour per entity: `make(i, id)` for each of `entities`.
pub fn attach_all<B: Behaviour>(entities: &[EntityId], mut make: impl FnMut(usize, EntityId) -> B) {
    add(Set {
        ids: entities.to_vec(),
        behaviours: entities
            .iter()
            .enumerate()
            .map(|(i, &id)| make(i, id))
            .collect(),
    });
}

fn add<B: Behaviour>(set: Set<B>) {
    REGISTRY.with_borrow_mut(|registry| {
        let list = if registry.running {
            &mut registry.added
        } else {
            &mut registry.sets
        };
        Registry::merge(list, Box::new(set));
    });
    crate::update::subscribe_behaviours();
}

/// Removes every behaviour of type `B` from `entity`. Called while the
/// behaviours run (from an `update`), it takes effect when the run ends.
pub fn detach<B: Behaviour>(entity: EntityId) {
    REGISTRY.with_borrow_mut(|registry| {
        if registry.running {
            registry.detached.push((TypeId::of::<B>(), entity));
        } else {
            registry.detach(TypeId::of::<B>(), entity);
        }
    });
}

/// Number of behaviours attached, of every type.
pub fn count() -> usize {
    REGISTRY.with_borrow(|registry| {
        registry
            .sets
            .iter()
            .chain(&registry.added)
            .map(|set| set.len())
            .sum()
    })
}

/// Runs every behaviour once (the export macro calls it in `on-update`
/// once a behaviour was attached).
pub fn run_all(clock: &FrameClock) {
    let mut sets = REGISTRY.with_borrow_mut(|registry| {
        registry.running = true;
        std::mem::take(&mut registry.sets)
    });
    for set in &mut sets {
        set.run(clock);
    }
    REGISTRY.with_borrow_mut(|registry| {
        registry.running = false;
        for set in std::mem::take(&mut registry.added) {
            Registry::merge(&mut sets, set);
        }
        registry.sets = sets;
        for (kind, entity) in std::mem::take(&mut registry.detached) {
            registry.detach(kind, entity);
        }
    });
}
