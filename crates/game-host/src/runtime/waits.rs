//! The wait table: what scripts wait for on the host (timers, event waits
//! and listeners, motions, job requests), keyed by `(instance slot, token)`.
//!
//! Timers sit in a binary heap ordered by due frame, so sleeping waits cost
//! nothing per frame: only due timers are touched. Cancelled timers are
//! removed from the map at once and skipped when they reach the top of the
//! heap; the heap is rebuilt if such leftovers pile up.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use glam::Vec3;

use super::events::{describe_filter, matches};
use crate::guest::bindings::tasks::{Wake, WakeData};
use crate::input::{Event, EventFilter};
use crate::jobs::JobKindId;
pub(crate) use crate::jobs::WaitKey;
use crate::scene::EntityId;

/// What a wait waits for.
#[derive(Debug, Clone)]
pub(crate) enum Wait {
    Timer {
        start: u64,
        due: u64,
    },
    Event {
        filter: EventFilter,
        persistent: bool,
    },
    Motion {
        entity: EntityId,
        target: Vec3,
        speed: f32,
    },
    Job {
        kind: JobKindId,
        job: u64,
    },
    /// A player listener (`players.listen`): woken once in each frame with
    /// player events.
    Players,
}

impl Wait {
    /// What the wait waits for; jobs are described by `describe_job`.
    fn describe(&self, describe_job: &dyn Fn(JobKindId, u64) -> String) -> String {
        match self {
            Wait::Timer { due, .. } => format!("timer due at frame {due}"),
            Wait::Event {
                filter,
                persistent: false,
            } => format!("event {}", describe_filter(filter)),
            Wait::Event {
                filter,
                persistent: true,
            } => format!("listener {}", describe_filter(filter)),
            Wait::Motion { entity, target, .. } => format!(
                "motion of entity {} to [{}, {}, {}]",
                entity.index(),
                target.x,
                target.y,
                target.z
            ),
            Wait::Job { kind, job } => describe_job(*kind, *job),
            Wait::Players => "player listener".to_owned(),
        }
    }
}

/// One pending wait, as listed for tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWait {
    /// The script's token for the wait.
    pub token: u64,
    /// The SDK task that owns it (the token's high 32 bits; 0 if none).
    pub task: u32,
    /// What it waits for, e.g. `timer due at frame 120`.
    pub what: String,
}

/// Counters over the life of a runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitStats {
    /// Waits registered.
    pub registered: u64,
    /// Waits that completed (a persistent listener counts per event).
    pub completed: u64,
    /// Waits withdrawn by `cancel`, replaced, or removed with their script.
    pub cancelled: u64,
    /// Waits pending now, over all instances.
    pub pending: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Waits {
    pub(super) map: HashMap<WaitKey, Wait>,
    /// Number of waits in `map` per slot.
    per_slot: Vec<usize>,
    timers: BinaryHeap<Reverse<(u64, u32, u64)>>,
    live_timers: usize,
    /// Event waits and listeners in registration order.
    event_waits: Vec<WaitKey>,
    /// Player listeners in registration order, at most one per slot.
    player_waits: Vec<WaitKey>,
    /// Motions in registration order (stepped by the `motion` module).
    pub(super) motions: Vec<WaitKey>,
    stats: WaitStats,
}

impl Waits {
    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    pub fn stats(&self) -> WaitStats {
        self.stats
    }

    /// Whether any motion is under way.
    pub fn has_motions(&self) -> bool {
        !self.motions.is_empty()
    }

    /// Number of pending waits of all scripts.
    #[cfg_attr(
        not(any(test, feature = "test-util")),
        expect(dead_code, reason = "read by the test hooks of `Inspect`")
    )]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    fn insert(&mut self, key: WaitKey, wait: Wait) {
        // A reused token replaces the older wait.
        self.cancel(key);
        self.stats.registered += 1;
        self.map.insert(key, wait);
        let slot = key.0 as usize;
        if self.per_slot.len() <= slot {
            self.per_slot.resize(slot + 1, 0);
        }
        self.per_slot[slot] += 1;
    }

    /// Removes a wait from the map (its other bookkeeping is the caller's).
    pub(super) fn take(&mut self, key: WaitKey) -> Option<Wait> {
        let wait = self.map.remove(&key)?;
        self.per_slot[key.0 as usize] -= 1;
        Some(wait)
    }

    pub fn add_timer(&mut self, key: WaitKey, start: u64, due: u64) {
        self.insert(key, Wait::Timer { start, due });
        self.timers.push(Reverse((due, key.0, key.1)));
        self.live_timers += 1;
    }

    pub fn add_event(&mut self, key: WaitKey, filter: EventFilter, persistent: bool) {
        self.insert(key, Wait::Event { filter, persistent });
        self.event_waits.push(key);
    }

    /// Starts a motion; an older motion of the same entity is withdrawn.
    pub fn add_motion(&mut self, key: WaitKey, entity: EntityId, target: Vec3, speed: f32) {
        let older: Vec<WaitKey> = self
            .motions
            .iter()
            .copied()
            .filter(
                |k| matches!(self.map.get(k), Some(Wait::Motion { entity: e, .. }) if *e == entity),
            )
            .collect();
        for k in older {
            self.cancel(k);
        }
        self.insert(
            key,
            Wait::Motion {
                entity,
                target,
                speed,
            },
        );
        self.motions.push(key);
    }

    /// Starts a player listener; the slot's older one is withdrawn.
    pub fn add_players(&mut self, key: WaitKey) {
        if let Some(older) = self.player_waits.iter().copied().find(|k| k.0 == key.0) {
            self.cancel(older);
        }
        self.insert(key, Wait::Players);
        self.player_waits.push(key);
    }

    /// The slots with a player listener, in registration order.
    pub fn player_listeners(&self) -> impl Iterator<Item = u32> + '_ {
        self.player_waits.iter().map(|k| k.0)
    }

    /// Wakes every player listener once (they stay).
    pub fn wake_player_listeners(&mut self, out: &mut Vec<(u32, Wake)>) {
        for index in 0..self.player_waits.len() {
            let key = self.player_waits[index];
            self.finish(key, WakeData::Done, out);
        }
    }

    pub fn add_job(&mut self, key: WaitKey, kind: JobKindId, job: u64) {
        self.insert(key, Wait::Job { kind, job });
    }

    /// Withdraws a wait; returns it if it was pending.
    pub fn cancel(&mut self, key: WaitKey) -> Option<Wait> {
        let wait = self.take(key)?;
        self.stats.cancelled += 1;
        self.forget(key, &wait);
        Some(wait)
    }

    /// Removes the bookkeeping of a wait that left the map.
    fn forget(&mut self, key: WaitKey, wait: &Wait) {
        match wait {
            Wait::Timer { .. } => {
                self.live_timers -= 1;
                if self.timers.len() > 2 * self.live_timers + 64 {
                    let map = &self.map;
                    self.timers.retain(|Reverse((due, slot, token))| {
                        matches!(map.get(&(*slot, *token)), Some(Wait::Timer { due: d, .. }) if d == due)
                    });
                }
            }
            Wait::Event { .. } => self.event_waits.retain(|k| *k != key),
            Wait::Motion { .. } => self.motions.retain(|k| *k != key),
            Wait::Players => self.player_waits.retain(|k| *k != key),
            Wait::Job { .. } => {}
        }
    }

    /// Removes every wait of the instance in `slot`; returns them.
    pub fn remove_slot(&mut self, slot: u32) -> Vec<(WaitKey, Wait)> {
        let keys: Vec<WaitKey> = self.map.keys().copied().filter(|k| k.0 == slot).collect();
        keys.into_iter()
            .filter_map(|k| Some((k, self.cancel(k)?)))
            .collect()
    }

    /// Completes the wait for `job` under `key`, if that is what it still
    /// waits for.
    pub fn complete_job(
        &mut self,
        key: WaitKey,
        kind: JobKindId,
        job: u64,
        out: &mut Vec<(u32, Wake)>,
    ) {
        if matches!(self.map.get(&key), Some(Wait::Job { kind: k, job: j }) if *k == kind && *j == job)
        {
            self.take(key);
            self.finish(key, WakeData::Done, out);
        }
    }

    pub(super) fn finish(&mut self, key: WaitKey, data: WakeData, out: &mut Vec<(u32, Wake)>) {
        self.stats.completed += 1;
        out.push((key.0, Wake { token: key.1, data }));
    }

    /// Fires every timer due at or before `frame`.
    #[inline]
    pub fn fire_timers(&mut self, frame: u64, dt: f64, out: &mut Vec<(u32, Wake)>) {
        // Most frames fire none: only the check is made in line.
        if self
            .timers
            .peek()
            .is_some_and(|Reverse((due, _, _))| *due <= frame)
        {
            self.fire_due_timers(frame, dt, out);
        }
    }

    fn fire_due_timers(&mut self, frame: u64, dt: f64, out: &mut Vec<(u32, Wake)>) {
        while let Some(Reverse((due, slot, token))) = self.timers.peek().copied() {
            if due > frame {
                break;
            }
            self.timers.pop();
            let key = (slot, token);
            match self.map.get(&key) {
                Some(Wait::Timer { start, due: d }) if *d == due => {
                    let waited = (frame - start) as f64 * dt;
                    self.take(key);
                    self.live_timers -= 1;
                    self.finish(key, WakeData::Timer(waited), out);
                }
                _ => {} // cancelled or replaced
            }
        }
    }

    /// Hands `event` to every matching wait, in registration order.
    pub fn deliver_event(&mut self, event: &Event, out: &mut Vec<(u32, Wake)>) {
        let mut index = 0;
        while index < self.event_waits.len() {
            let key = self.event_waits[index];
            let Some(Wait::Event { filter, persistent }) = self.map.get(&key) else {
                self.event_waits.remove(index);
                continue;
            };
            if !matches(filter, event) {
                index += 1;
                continue;
            }
            if *persistent {
                index += 1;
            } else {
                self.take(key);
                self.event_waits.remove(index);
            }
            self.finish(key, WakeData::Event(event.clone().into()), out);
        }
    }

    /// The pending waits of the instance in `slot`, by token.
    pub fn list(
        &self,
        slot: u32,
        describe_job: &dyn Fn(JobKindId, u64) -> String,
    ) -> Vec<PendingWait> {
        let mut list: Vec<PendingWait> = self
            .map
            .iter()
            .filter(|(k, _)| k.0 == slot)
            .map(|(k, wait)| PendingWait {
                token: k.1,
                task: (k.1 >> 32) as u32,
                what: wait.describe(describe_job),
            })
            .collect();
        list.sort_by_key(|w| w.token);
        list
    }

    /// Number of pending waits of the instance in `slot`.
    pub fn count(&self, slot: u32) -> usize {
        self.per_slot.get(slot as usize).copied().unwrap_or(0)
    }

    /// Number of timers in the heap, including cancelled leftovers.
    #[cfg(test)]
    pub fn heap_len(&self) -> usize {
        self.timers.len()
    }
}

/// The tokens of completed waits, in order (for tests).
#[cfg(test)]
pub(super) fn tokens(out: &[(u32, Wake)]) -> Vec<u64> {
    out.iter().map(|(_, w)| w.token).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Key;

    #[test]
    fn timers_fire_in_due_order_with_time_waited() {
        let mut waits = Waits::default();
        waits.add_timer((0, 1), 0, 3);
        waits.add_timer((0, 2), 0, 1);
        waits.add_timer((1, 3), 1, 3);
        let mut out = Vec::new();
        waits.fire_timers(1, 0.5, &mut out);
        assert_eq!(tokens(&out), [2]);
        out.clear();
        waits.fire_timers(3, 0.5, &mut out);
        assert_eq!(tokens(&out), [1, 3]);
        assert!(matches!(out[0].1.data, WakeData::Timer(t) if t == 1.5));
        assert!(matches!(out[1].1.data, WakeData::Timer(t) if t == 1.0));
        assert_eq!(waits.len(), 0);
    }

    #[test]
    fn cancelled_timers_never_fire_and_do_not_pile_up() {
        let mut waits = Waits::default();
        for token in 0..10_000 {
            waits.add_timer((0, token), 0, 1_000_000);
            waits.cancel((0, token));
        }
        assert_eq!(waits.len(), 0);
        assert!(waits.heap_len() < 200, "{}", waits.heap_len());
        let mut out = Vec::new();
        waits.fire_timers(2_000_000, 1.0, &mut out);
        assert!(out.is_empty());
        assert_eq!(waits.stats().cancelled, 10_000);
    }

    #[test]
    fn one_shot_event_waits_complete_once_and_listeners_stay() {
        let mut waits = Waits::default();
        waits.add_event((0, 1), EventFilter::KeyPressed(Key::Enter), false);
        waits.add_event((0, 2), EventFilter::AnyKeyPressed, true);
        let mut out = Vec::new();
        waits.deliver_event(&Event::KeyPressed(Key::Space), &mut out);
        assert_eq!(tokens(&out), [2]);
        waits.deliver_event(&Event::KeyPressed(Key::Enter), &mut out);
        waits.deliver_event(&Event::KeyPressed(Key::Enter), &mut out);
        assert_eq!(tokens(&out), [2, 1, 2, 2]);
        assert_eq!(waits.len(), 1);
    }
}
