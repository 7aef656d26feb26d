//! The instance arena: script instances by slot. A slot number names an
//! instance in every runtime table (subscriptions, waits, job requests) and
//! is reused once its instance is gone.

use uuid::Uuid;

use crate::guest::instance::ScriptInstance;

#[derive(Default)]
pub(crate) struct Slots {
    /// Instances by slot; a slot is `None` once its instance is gone.
    slots: Vec<Option<ScriptInstance>>,
    free: Vec<u32>,
}

impl Slots {
    /// Puts `instance` in a free slot and returns the slot.
    pub fn insert(&mut self, instance: ScriptInstance) -> u32 {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(None);
                u32::try_from(self.slots.len() - 1).expect("too many instances")
            }
        };
        self.slots[slot as usize] = Some(instance);
        slot
    }

    /// Takes the instance out of `slot`, freeing the slot.
    pub fn take(&mut self, slot: u32) -> Option<ScriptInstance> {
        let instance = self.slots.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        Some(instance)
    }

    /// Puts `instance` in the occupied `slot`, returning the one it replaces.
    pub fn replace(&mut self, slot: u32, instance: ScriptInstance) -> Option<ScriptInstance> {
        self.slots[slot as usize].replace(instance)
    }

    pub fn get(&self, slot: u32) -> Option<&ScriptInstance> {
        self.slots.get(slot as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, slot: u32) -> Option<&mut ScriptInstance> {
        self.slots.get_mut(slot as usize)?.as_mut()
    }

    /// The slot of instance `id`.
    pub fn slot_of(&self, id: Uuid) -> Option<u32> {
        self.iter()
            .find(|(_, instance)| instance.id() == id)
            .map(|(slot, _)| slot)
    }

    /// Every slot, for the frame's workers (see `dispatch`).
    pub fn as_mut_slice(&mut self) -> &mut [Option<ScriptInstance>] {
        &mut self.slots
    }

    /// Number of slots, occupied or not.
    pub fn capacity(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Occupied slots with their instances, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &ScriptInstance)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slot, instance)| Some((slot as u32, instance.as_ref()?)))
    }
}
