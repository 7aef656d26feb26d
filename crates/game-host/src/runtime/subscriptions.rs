//! The update subscription table: `(instance slot, message id)` pairs in
//! the order they were made, which is the order of dispatch.

use std::collections::HashSet;

/// One subscription: the frame's update call, with key `id` (see
/// [`crate::time::UPDATE`]), on the instance in `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Subscription {
    pub slot: u32,
    pub id: u32,
}

#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    order: Vec<Subscription>,
    present: HashSet<Subscription>,
    /// Number of subscriptions per slot.
    per_slot: Vec<usize>,
}

impl Subscriptions {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn get(&self, index: usize) -> Subscription {
        self.order[index]
    }

    /// Subscribes the instance in `slot` to `id`; a duplicate does nothing.
    pub fn subscribe(&mut self, slot: u32, id: u32) {
        let sub = Subscription { slot, id };
        if self.present.insert(sub) {
            self.order.push(sub);
            if self.per_slot.len() <= slot as usize {
                self.per_slot.resize(slot as usize + 1, 0);
            }
            self.per_slot[slot as usize] += 1;
        }
    }

    /// Unsubscribes the instance in `slot` from `id`, if subscribed.
    pub fn unsubscribe(&mut self, slot: u32, id: u32) {
        let sub = Subscription { slot, id };
        if self.present.remove(&sub) {
            self.order.retain(|s| *s != sub);
            self.per_slot[slot as usize] -= 1;
        }
    }

    /// Drops every subscription of the instance in `slot`.
    pub fn remove_slot(&mut self, slot: u32) {
        self.retain_slots(|s| s != slot);
    }

    /// Drops every subscription of instances for which `keep` is false.
    pub fn retain_slots(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let present = &mut self.present;
        let per_slot = &mut self.per_slot;
        self.order.retain(|s| {
            let kept = keep(s.slot);
            if !kept {
                present.remove(s);
                per_slot[s.slot as usize] -= 1;
            }
            kept
        });
    }

    /// Number of subscriptions of the instance in `slot`.
    pub fn count(&self, slot: u32) -> usize {
        self.per_slot.get(slot as usize).copied().unwrap_or(0)
    }

    /// Ids the instance in `slot` is subscribed to, in order.
    pub fn ids_of(&self, slot: u32) -> Vec<u32> {
        self.order
            .iter()
            .filter(|s| s.slot == slot)
            .map(|s| s.id)
            .collect()
    }

    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    pub fn iter(&self) -> impl Iterator<Item = Subscription> + '_ {
        self.order.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_ignores_duplicates() {
        let mut subs = Subscriptions::default();
        subs.subscribe(1, 7);
        subs.subscribe(0, 7);
        subs.subscribe(1, 7);
        subs.subscribe(1, 8);
        let order: Vec<_> = subs.iter().map(|s| (s.slot, s.id)).collect();
        assert_eq!(order, [(1, 7), (0, 7), (1, 8)]);

        subs.unsubscribe(1, 7);
        subs.unsubscribe(1, 99);
        assert_eq!(subs.ids_of(1), [8]);
        subs.retain_slots(|slot| slot != 1);
        assert_eq!(subs.len(), 1);
        // Re-subscribing after removal works again.
        subs.subscribe(1, 7);
        assert_eq!(subs.ids_of(1), [7]);
    }
}
