//! [`Controls`]: the players' numbered commands (`{"commands": [...]}`),
//! from their clients to the world's frames, and what each player is told
//! was applied (`{"frame": N, "ack": S}`).
//!
//! A client with prediction on sends one command per frame of its own in
//! which the player holds keys, numbered from 1, a few frames' worth per
//! message. The world applies each once, in order, as the frame's
//! `controls` commands. A client cannot move its entity faster by sending
//! more: a player is given one command a frame, and may save up at most
//! [`BURST`] for when a late message brings several at once (as Source's
//! servers cap the commands they run per tick). A command that waits
//! beyond [`MAX_WAITING`] is refused, saying so; one numbered at or below
//! the last taken (a message sent again) is dropped quietly.
//!
//! A client that connects anew is told the last command applied (after
//! its snapshot) and numbers on from there; the commands that were
//! waiting are dropped, as it sends again those it has no ack for. A
//! resumed world starts from the last command its log applied.

use std::collections::{HashMap, VecDeque};

use anyhow::{Result, bail};

use game_host::players::{Command, PlayerCommands, PlayerEvent, PlayerId};

/// Commands a player may save up for a frame that brings several (half a
/// second of them at 60 frames a second).
pub const BURST: u32 = 30;

/// Commands of a player waiting for frames to apply them, at most (two
/// seconds of them at 60 frames a second).
pub const MAX_WAITING: usize = 120;

/// Commands one message may carry, at most.
pub const MAX_PER_MESSAGE: usize = 32;

/// One player's commands.
#[derive(Debug, Default)]
struct Player {
    waiting: VecDeque<Command>,
    /// The last command taken (waiting or applied).
    taken: u64,
    /// The last command applied.
    applied: u64,
    /// The last command the player was told was applied.
    told: u64,
    /// Commands the player may have applied in the next frame.
    credit: u32,
}

/// The players' commands for a world's frames.
#[derive(Debug, Default)]
pub(crate) struct Controls {
    players: HashMap<PlayerId, Player>,
    /// Players in the order their first command came (so each frame's
    /// commands are in one order, whatever the map's).
    order: Vec<PlayerId>,
}

impl Controls {
    /// Takes a player's commands, oldest first: those numbered after the
    /// last taken wait for the world's frames. Refused whole when one is
    /// out of order or more would wait than [`MAX_WAITING`].
    pub fn take(&mut self, player: PlayerId, commands: Vec<Command>) -> Result<()> {
        if commands.len() > MAX_PER_MESSAGE {
            bail!(
                "{} commands in one message (at most {MAX_PER_MESSAGE})",
                commands.len()
            );
        }
        if commands.windows(2).any(|pair| pair[1].seq <= pair[0].seq) {
            bail!("commands out of order: each is numbered after the one before");
        }
        if !self.players.contains_key(&player) {
            self.order.push(player);
        }
        let state = self.players.entry(player).or_insert_with(|| Player {
            credit: BURST,
            ..Player::default()
        });
        let new: Vec<Command> = commands
            .into_iter()
            .filter(|command| command.seq > state.taken)
            .collect();
        if state.waiting.len() + new.len() > MAX_WAITING {
            bail!(
                "commands arrive faster than the world applies them (one a frame): \
                 {MAX_WAITING} are waiting"
            );
        }
        if let Some(last) = new.last() {
            state.taken = last.seq;
        }
        state.waiting.extend(new);
        Ok(())
    }

    /// On the loop thread, before a frame: each player's commands the frame
    /// applies (one a frame, and those saved up).
    pub fn due(&mut self) -> Vec<PlayerEvent> {
        let mut due = Vec::new();
        for player in &self.order {
            let Some(state) = self.players.get_mut(player) else {
                continue;
            };
            state.credit = (state.credit + 1).min(BURST);
            let count = state.waiting.len().min(state.credit as usize);
            if count == 0 {
                continue;
            }
            state.credit -= count as u32;
            let commands: Vec<Command> = state.waiting.drain(..count).collect();
            state.applied = commands.last().map_or(state.applied, |c| c.seq);
            due.push(PlayerEvent::Commands(PlayerCommands {
                player: *player,
                commands,
            }));
        }
        due
    }

    /// On a published frame: the players with commands applied since they
    /// were last told, and the last of them.
    pub fn acks(&mut self) -> Vec<(PlayerId, u64)> {
        let mut acks = Vec::new();
        for player in &self.order {
            if let Some(state) = self.players.get_mut(player)
                && state.applied > state.told
            {
                state.told = state.applied;
                acks.push((*player, state.applied));
            }
        }
        acks
    }

    /// A client of `player` connects: the commands waiting are dropped (it
    /// sends again those it has no ack for), and numbering goes on from
    /// the last applied.
    pub fn connected(&mut self, player: PlayerId) {
        if let Some(state) = self.players.get_mut(&player) {
            state.waiting.clear();
            state.taken = state.applied;
        }
    }

    /// The last command of `player` applied (0 for none), if it ever sent
    /// any.
    pub fn applied(&self, player: PlayerId) -> Option<u64> {
        self.players.get(&player).map(|state| state.applied)
    }

    /// A resumed world's player, whose last command applied was `applied`.
    pub fn resumed(&mut self, player: PlayerId, applied: u64) {
        if !self.players.contains_key(&player) {
            self.order.push(player);
        }
        self.players.insert(
            player,
            Player {
                taken: applied,
                applied,
                told: applied,
                credit: BURST,
                ..Player::default()
            },
        );
    }

    /// Forgets a player that left.
    pub fn forget(&mut self, player: PlayerId) {
        if self.players.remove(&player).is_some() {
            self.order.retain(|p| *p != player);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::input::Key;

    fn commands(seqs: std::ops::RangeInclusive<u64>) -> Vec<Command> {
        seqs.map(|seq| Command {
            seq,
            held: vec![Key::Right],
        })
        .collect()
    }

    fn applied(due: &[PlayerEvent]) -> Vec<(PlayerId, Vec<u64>)> {
        due.iter()
            .map(|event| match event {
                PlayerEvent::Commands(c) => (c.player, c.commands.iter().map(|c| c.seq).collect()),
                other => panic!("not commands: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_player_gets_one_command_a_frame_and_what_it_saved_up() {
        let mut controls = Controls::default();
        // A first message of 32 commands: the burst of 30 at once.
        controls.take(7, commands(1..=32)).unwrap();
        let first = applied(&controls.due());
        assert_eq!(first, vec![(7, (1..=30).collect())]);
        assert_eq!(controls.acks(), vec![(7, 30)]);
        assert_eq!(controls.acks(), vec![]);
        // Then one a frame, however many wait.
        assert_eq!(applied(&controls.due()), vec![(7, vec![31])]);
        assert_eq!(applied(&controls.due()), vec![(7, vec![32])]);
        assert!(controls.due().is_empty());
        // Frames without commands save up credit, up to the burst.
        for _ in 0..100 {
            assert!(controls.due().is_empty());
        }
        controls.take(7, commands(33..=64)).unwrap();
        assert_eq!(applied(&controls.due()).len(), 1);
        assert_eq!(controls.acks(), vec![(7, 62)]);
    }

    #[test]
    fn commands_sent_again_are_dropped_and_disorder_is_refused() {
        let mut controls = Controls::default();
        controls.take(1, commands(1..=3)).unwrap();
        controls.take(1, commands(2..=5)).unwrap();
        assert_eq!(applied(&controls.due()), vec![(1, vec![1, 2, 3, 4, 5])]);
        let mut backwards = commands(6..=7);
        backwards.reverse();
        let error = controls.take(1, backwards).unwrap_err().to_string();
        assert!(error.contains("out of order"), "{error}");
        let error = controls.take(1, commands(6..=40)).unwrap_err().to_string();
        assert!(error.contains("at most 32"), "{error}");
    }

    #[test]
    fn a_new_connection_numbers_on_from_the_last_applied() {
        let mut controls = Controls::default();
        controls.take(4, commands(1..=32)).unwrap();
        controls.take(4, commands(33..=40)).unwrap();
        controls.due();
        assert_eq!(controls.applied(4), Some(30));
        // The ten waiting are dropped; a client sends again what it has no
        // ack for, and a page loaded afresh numbers on from the ack.
        controls.connected(4);
        assert!(controls.due().is_empty());
        controls.take(4, commands(31..=32)).unwrap();
        assert_eq!(applied(&controls.due()), vec![(4, vec![31, 32])]);
        // A resumed world drops what its log applied.
        let mut resumed = Controls::default();
        resumed.resumed(4, 31);
        resumed.take(4, commands(30..=33)).unwrap();
        assert_eq!(applied(&resumed.due()), vec![(4, vec![32, 33])]);
        assert_eq!(resumed.acks(), vec![(4, 33)]);
    }

    #[test]
    fn a_flood_waits_no_further_than_its_bound() {
        let mut controls = Controls::default();
        let mut seq = 0;
        let mut refused = None;
        for _ in 0..10 {
            let batch = commands(seq + 1..=seq + 32);
            match controls.take(2, batch) {
                Ok(()) => seq += 32,
                Err(error) => refused = Some(error.to_string()),
            }
        }
        assert_eq!(seq, 96);
        assert!(refused.unwrap().contains("120 are waiting"));
        controls.forget(2);
        assert!(controls.due().is_empty());
    }
}
