//! The players of a world as its instances see them: the [`Roster`] (who
//! is in it) and each instance's [`PlayerInbox`] (the events delivered to
//! it and not yet taken). The runtime fills both as it delivers player
//! events at a frame's start; `imports::players` reads them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::input::{PlayerCommands, PlayerEvent};
use crate::sync::LockExt;

/// Player events kept for a script between two of its `take-events`
/// calls; older ones are dropped past this.
pub const KEPT_PLAYER_EVENTS: usize = 1024;

/// The players' commands the frame applies (`controls`): set by the
/// runtime as it delivers them at the frame's start, read by every
/// instance within the frame.
#[derive(Debug, Default)]
pub struct FrameCommands(Mutex<Vec<PlayerCommands>>);

impl FrameCommands {
    /// Forgets the last frame's commands.
    pub(crate) fn clear(&self) {
        self.0.lock_unpoisoned().clear();
    }

    /// Adds a player's commands to this frame's (after any it has).
    pub(crate) fn push(&self, commands: PlayerCommands) {
        let mut all = self.0.lock_unpoisoned();
        match all.iter_mut().find(|c| c.player == commands.player) {
            Some(kept) => kept.commands.extend(commands.commands),
            None => all.push(commands),
        }
    }

    /// This frame's commands, per player.
    pub fn list(&self) -> Vec<PlayerCommands> {
        self.0.lock_unpoisoned().clone()
    }
}

/// The players in a world, in the order they joined: kept by the runtime
/// as it delivers joins and leaves, read by its scripts (`players.list`).
#[derive(Debug, Default)]
pub struct Roster(Mutex<Vec<u64>>);

impl Roster {
    /// The players now, in the order they joined.
    pub fn list(&self) -> Vec<u64> {
        self.0.lock_unpoisoned().clone()
    }

    /// Whether `player` is in the world.
    pub fn contains(&self, player: u64) -> bool {
        self.0.lock_unpoisoned().contains(&player)
    }

    /// Whether the world has no players.
    pub fn is_empty(&self) -> bool {
        self.0.lock_unpoisoned().is_empty()
    }

    /// Takes a join or a leave into account (input changes nothing).
    pub(crate) fn apply(&self, event: &PlayerEvent) {
        let mut players = self.0.lock_unpoisoned();
        match event {
            PlayerEvent::Joined(id) if !players.contains(id) => players.push(*id),
            PlayerEvent::Left(id) => players.retain(|p| p != id),
            _ => {}
        }
    }
}

/// One instance's side of the players: the world's roster, and the events
/// delivered to it and not yet taken.
#[derive(Debug)]
pub(crate) struct PlayerInbox {
    pub roster: Arc<Roster>,
    /// The players' commands this frame applies.
    pub commands: Arc<FrameCommands>,
    events: VecDeque<PlayerEvent>,
    /// Whether events were dropped since the script last took them.
    dropped: bool,
}

impl PlayerInbox {
    pub fn new(roster: Arc<Roster>, commands: Arc<FrameCommands>) -> Self {
        PlayerInbox {
            roster,
            commands,
            events: VecDeque::new(),
            dropped: false,
        }
    }

    /// Keeps `events` for the script; returns true when older ones had to
    /// be dropped for the first time since it last took them.
    pub fn push(&mut self, events: &[PlayerEvent]) -> bool {
        self.events.extend(events.iter().cloned());
        let over = self.events.len().saturating_sub(KEPT_PLAYER_EVENTS);
        if over == 0 {
            return false;
        }
        self.events.drain(..over);
        !std::mem::replace(&mut self.dropped, true)
    }

    /// The events kept, oldest first.
    pub fn take(&mut self) -> Vec<PlayerEvent> {
        self.dropped = false;
        self.events.drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roster_follows_joins_and_leaves_in_order() {
        let roster = Roster::default();
        roster.apply(&PlayerEvent::Joined(3));
        roster.apply(&PlayerEvent::Joined(1));
        roster.apply(&PlayerEvent::Joined(3));
        assert_eq!(roster.list(), [3, 1]);
        roster.apply(&PlayerEvent::Left(3));
        assert_eq!(roster.list(), [1]);
        assert!(roster.contains(1) && !roster.contains(3));
    }

    #[test]
    fn an_inbox_keeps_the_newest_events_and_says_once_that_it_dropped() {
        let mut inbox = PlayerInbox::new(Arc::default(), Arc::default());
        let many: Vec<_> = (0..KEPT_PLAYER_EVENTS as u64 + 5)
            .map(PlayerEvent::Joined)
            .collect();
        assert!(inbox.push(&many));
        assert!(!inbox.push(&many[..1]));
        let kept = inbox.take();
        assert_eq!(kept.len(), KEPT_PLAYER_EVENTS);
        assert!(matches!(kept[0], PlayerEvent::Joined(6)));
        assert!(inbox.take().is_empty());
    }
}
