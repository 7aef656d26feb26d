//! [`EntityGuard`]: which entities one instance may read, or change, by
//! its grants' `reads` or `writes` rule and the entities it spawned
//! itself, decided once per entity (an entity's name never changes, nor is
//! its id reused). An instance has one for its reads and one for its
//! writes (`guest::store::access`).

use fnv::FnvHashMap;

use crate::grants::NameRule;
use crate::scene::EntityId;

/// Entity ids below this are decided in a flat table (a byte each, grown
/// as far as the highest id decided); higher ones in a hash map.
const FLAT: usize = 1 << 16;

/// A decision in the flat table: not yet, allowed, refused.
const UNDECIDED: u8 = 0;
const ALLOWED: u8 = 1;
const REFUSED: u8 = 2;

/// One side (reads or writes) of an instance's grants on entities.
#[derive(Debug, Default)]
pub(crate) struct EntityGuard {
    /// `None`: every entity (no check at all).
    rule: Option<NameRule>,
    /// Entities decided so far (those it spawned are allowed), by id: a
    /// batch write checks each of its ids, so the common case is a load.
    flat: Vec<u8>,
    decided: FnvHashMap<EntityId, bool>,
    /// The entities it spawned, for an instance that takes over from it.
    own: Vec<EntityId>,
}

impl EntityGuard {
    /// A guard for `rule`.
    pub fn new(rule: &NameRule) -> Self {
        EntityGuard {
            rule: (!rule.is_any()).then(|| rule.clone()),
            flat: Vec::new(),
            decided: FnvHashMap::default(),
            own: Vec::new(),
        }
    }

    /// Whether anything is checked at all.
    #[inline]
    pub fn restricted(&self) -> bool {
        self.rule.is_some()
    }

    /// The instance spawned `id`: it may read and change it.
    pub fn spawned(&mut self, id: EntityId) {
        if self.restricted() {
            self.record(id, true);
            self.own.push(id);
        }
    }

    /// The entities it spawned (while restricted).
    pub fn own(&self) -> &[EntityId] {
        &self.own
    }

    /// Whether it was decided that `id` is allowed (`None`: not yet).
    #[inline]
    pub fn decided(&self, id: EntityId) -> Option<bool> {
        let index = id.index();
        if index < FLAT {
            return match self.flat.get(index).copied().unwrap_or(UNDECIDED) {
                ALLOWED => Some(true),
                REFUSED => Some(false),
                _ => None,
            };
        }
        self.decided.get(&id).copied()
    }

    /// Decides `id`, named `name`: whether the rule allows the name.
    pub fn decide(&mut self, id: EntityId, name: &str) -> bool {
        let allowed = self.rule.as_ref().is_none_or(|rule| rule.allows(name));
        self.record(id, allowed);
        allowed
    }

    fn record(&mut self, id: EntityId, allowed: bool) {
        let index = id.index();
        if index < FLAT {
            if self.flat.len() <= index {
                self.flat.resize(index + 1, UNDECIDED);
            }
            self.flat[index] = if allowed { ALLOWED } else { REFUSED };
        } else {
            self.decided.insert(id, allowed);
        }
    }

    /// The rule, as the error of a refused read or write shows it.
    pub fn rule(&self) -> String {
        self.rule
            .as_ref()
            .map_or_else(|| "any".to_owned(), ToString::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_kept_for_low_and_high_ids() {
        let mut guard = EntityGuard::new(&NameRule::only(&["cube"]));
        assert!(guard.restricted());
        for index in [3, FLAT as u32 + 7] {
            let id = EntityId::from(index);
            assert_eq!(guard.decided(id), None);
            assert!(!guard.decide(id, "tree"));
            assert_eq!(guard.decided(id), Some(false));
        }
        let cube = EntityId::from(0);
        assert!(guard.decide(cube, "cube"));
        let own = EntityId::from(FLAT as u32 * 2);
        guard.spawned(own);
        assert_eq!(guard.decided(own), Some(true));
        assert_eq!(guard.decided(cube), Some(true));
        assert!(!EntityGuard::new(&NameRule::any()).restricted());
    }
}
