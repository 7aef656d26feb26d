//! [`WorldHub`]: where a world's loop thread leaves what its players'
//! clients get, and where those clients find the world. The loop thread
//! never waits on it: updates go out through a bounded backlog (a client
//! that falls behind loses updates and asks for a snapshot), and
//! snapshots are answered after the next published frame.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use anyhow::{Result, bail};

use super::backlog::{Backlog, DEFAULT_KEPT_BYTES, Follower, Weighed};
use super::controls::Controls;
use super::seats::{PUBLIC_SEAT_ABSENCE, Route, Seats, digest};
use super::tracker::SceneTracker;
use super::view::{PlayerViews, Routes, visible};
use super::wire::EntityState;
use crate::durable::SeatLog;
use game_host::players::{Command, OpenToPlayers, PlayerEvent, PlayerId, PlayerMessage};
use game_host::runtime::Runtime;
use game_host::sync::LockExt;

/// Player events waiting for the world's next frame, at most (clients are
/// rate-limited well below this).
const MAX_INPUTS: usize = 4096;

/// What one of a world's frames sent its clients.
#[derive(Debug)]
pub(crate) struct Update {
    pub frame: u64,
    /// Each player's view's update, on a published frame where what it
    /// sees changed (encoded once per view and format).
    pub routes: Routes,
    /// Messages for connected players (or all).
    pub messages: Vec<PlayerMessage>,
    /// The players with commands applied since they were last told, and
    /// the last applied (on a published frame).
    pub acks: Vec<(PlayerId, u64)>,
}

impl Weighed for Update {
    /// Bytes it holds for the clients that have not taken it: its views'
    /// updates (each distinct one once, with the encodings clients made)
    /// and its messages, all counted into its routes' weight.
    fn kept_bytes(&self) -> usize {
        self.routes
            .weight
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A snapshot: the frame, every entity the player sees, and the last of
/// the player's commands applied by then (`None` for a player that never
/// sent any).
pub(crate) type Snapshot = (u64, Arc<[Arc<EntityState>]>, Option<u64>);

/// The world's stream settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamSettings {
    /// Publish entity changes every this many frames.
    pub every: u32,
    /// The step positions and scales are rounded to in the binary form.
    pub precision: f32,
    /// Bytes of updates kept for clients that fall behind, at most (the
    /// newest update is kept however large); a client behind what is kept
    /// gets a fresh snapshot.
    pub kept_bytes: usize,
}

impl Default for StreamSettings {
    fn default() -> Self {
        StreamSettings {
            every: 1,
            precision: super::DEFAULT_PRECISION,
            kept_bytes: DEFAULT_KEPT_BYTES,
        }
    }
}

/// One world's players and the way to their clients.
pub struct WorldHub {
    /// Publish entity changes every this many frames.
    every: u64,
    /// The step positions and scales are rounded to in the binary form.
    precision: f32,
    /// Players admitted at once, at most.
    max_players: usize,
    /// The game the public join started it for: players join it that way
    /// (for that game), and only it.
    pub(crate) play: Option<String>,
    updates: Arc<Backlog<Update>>,
    pub(crate) seats: Mutex<Seats>,
    snapshots: Mutex<Vec<(PlayerId, oneshot::Sender<Snapshot>)>>,
    /// Player events for the world's next frame.
    inputs: Mutex<Vec<PlayerEvent>>,
    /// The players' commands, waiting for frames and applied.
    controls: Mutex<Controls>,
    /// What players may send the world.
    open: OpenToPlayers,
    /// A durable world's seat log: every admission and removal goes there,
    /// outside the seats' lock (which the loop thread takes), so a slow
    /// disk holds up an admission, never a frame.
    seat_log: Option<Mutex<SeatLog>>,
    /// Where the world moves when it is suspended to be handed to another
    /// node of a fleet (its address), told to its clients as they close.
    moving_to: Mutex<Option<String>>,
    /// Its scripts' SHA-256 digests (hex): which predictor its players'
    /// browsers may run.
    pub(crate) scripts: Vec<String>,
}

impl WorldHub {
    /// A hub whose players are `seats` (none, or a durable world's, kept
    /// in `seat_log`), with `events` (their joins or leaves) for the
    /// world's next frame; of a world the public join started for a game
    /// (`play`) or not, running the scripts of digests `scripts`.
    pub(crate) fn with_seats(
        settings: StreamSettings,
        max_players: usize,
        (play, scripts): (Option<String>, Vec<String>),
        open: OpenToPlayers,
        (seats, seat_log): (Seats, Option<SeatLog>),
        events: Vec<PlayerEvent>,
    ) -> Arc<Self> {
        Arc::new(WorldHub {
            open,
            every: u64::from(settings.every.max(1)),
            precision: settings.precision,
            max_players,
            play,
            updates: Backlog::new(settings.kept_bytes),
            seats: Mutex::new(seats),
            snapshots: Mutex::default(),
            inputs: Mutex::new(events),
            controls: Mutex::default(),
            seat_log: seat_log.map(Mutex::new),
            moving_to: Mutex::new(None),
            scripts,
        })
    }

    /// Admits a player (its join reaches the world's next frame): its id
    /// and token.
    pub(crate) fn admit(&self) -> Result<(PlayerId, String)> {
        self.admit_as(false)
    }

    /// Admits a player through the public join for `game`, into a world it
    /// started for that game (refused otherwise): when the world is full,
    /// the seats of those who joined that way and stayed away
    /// [`PUBLIC_SEAT_ABSENCE`] are given up first.
    pub(crate) fn admit_public(&self, game: &str) -> Result<(PlayerId, String)> {
        if self.play.as_deref() != Some(game) {
            bail!("the public join seats players only in the worlds it started for `{game}`");
        }
        // Found and taken out under one lock: a player who reconnects
        // meanwhile is either found connected or already gone.
        let absent = {
            let mut seats = self.seats.lock_unpoisoned();
            match seats.len() >= self.max_players {
                true => {
                    let now = std::time::Instant::now();
                    let absent = seats.absent_public(PUBLIC_SEAT_ABSENCE, now);
                    for player in &absent {
                        seats.remove(
                            *player,
                            "it stayed away and its seat went to another player",
                        );
                    }
                    absent
                }
                false => Vec::new(),
            }
        };
        for player in absent {
            self.left(player);
        }
        self.admit_as(true)
    }

    fn admit_as(&self, public: bool) -> Result<(PlayerId, String)> {
        let mut seats = self.seats.lock_unpoisoned();
        let (player, token) = match public {
            true => seats.admit_public(self.max_players)?,
            false => seats.admit(self.max_players)?,
        };
        drop(seats);
        // On the disk before the token is handed out (no client can use it
        // before then).
        if let Some(log) = &self.seat_log
            && let Err(error) = log
                .lock_unpoisoned()
                .admitted(player, &digest(&token), public)
        {
            self.seats
                .lock_unpoisoned()
                .remove(player, "its seat could not be kept");
            return Err(error);
        }
        self.inputs
            .lock_unpoisoned()
            .push(PlayerEvent::Joined(player));
        Ok((player, token))
    }

    /// Removes a player (its leave reaches the world's next frame); its
    /// client closes with `why`. False if it was not admitted.
    pub(crate) fn remove(&self, player: PlayerId, why: &'static str) -> bool {
        if !self.seats.lock_unpoisoned().remove(player, why) {
            return false;
        }
        self.left(player);
        true
    }

    /// A player taken out of the seats: its leave logged, and queued for
    /// the world's next frame.
    fn left(&self, player: PlayerId) {
        if let Some(log) = &self.seat_log
            && let Err(error) = log.lock_unpoisoned().removed(player)
        {
            tracing::warn!("{error:#}; a resumed world would seat player {player} again");
        }
        self.inputs
            .lock_unpoisoned()
            .push(PlayerEvent::Left(player));
        self.controls.lock_unpoisoned().forget(player);
    }

    /// Takes a player's numbered commands for the world's frames (see
    /// `controls`).
    /// Taken from connection `number` only while it is the player's
    /// current one (a replaced client's last message is not), under the
    /// seats' lock, so a removal cannot come between (lock order: `seats`,
    /// then `controls`).
    pub(crate) fn commands(
        &self,
        player: PlayerId,
        number: u64,
        commands: Vec<Command>,
    ) -> Result<()> {
        let seats = self.seats.lock_unpoisoned();
        if !seats.is_current(player, number) {
            bail!("this connection of player {player} is no longer its current one");
        }
        self.controls.lock_unpoisoned().take(player, commands)
    }

    /// A client of `player` connects (its current one from now on): the
    /// player's commands waiting are dropped, and it numbers on from the
    /// last applied, which its snapshot tells it. Its connection's number,
    /// what tells it to close, and the messages kept for the player, as
    /// [`Seats::connect`] has them.
    pub(crate) fn connect(
        &self,
        player: PlayerId,
    ) -> Option<(u64, oneshot::Receiver<&'static str>, Vec<PlayerMessage>)> {
        let mut seats = self.seats.lock_unpoisoned();
        let connected = seats.connect(player)?;
        self.controls.lock_unpoisoned().connected(player);
        Some(connected)
    }

    /// A resumed world's players' last commands applied (from its log).
    pub(crate) fn commands_resumed(&self, applied: impl IntoIterator<Item = (PlayerId, u64)>) {
        let mut controls = self.controls.lock_unpoisoned();
        for (player, seq) in applied {
            controls.resumed(player, seq);
        }
    }

    /// Queues a player's input for the world's next frame; a message on a
    /// channel the world does not open is refused, saying so.
    pub(crate) fn input(&self, event: PlayerEvent) -> Result<()> {
        if let PlayerEvent::Input(input) = &event
            && let Some(refusal) = self.open.refusal(&input.event)
        {
            bail!("{refusal}");
        }
        let mut inputs = self.inputs.lock_unpoisoned();
        if inputs.len() >= MAX_INPUTS {
            bail!("the world has {MAX_INPUTS} player events waiting; try again");
        }
        inputs.push(event);
        Ok(())
    }

    /// On the loop thread, before each of the world's frames: hands the
    /// players' events to the world.
    pub(crate) fn deliver(&self, runtime: &mut Runtime) {
        let inputs = std::mem::take(&mut *self.inputs.lock_unpoisoned());
        // Joins and leaves first: a player's commands in its first frame
        // find it in the world.
        let commands = self.controls.lock_unpoisoned().due();
        for event in inputs.into_iter().chain(commands) {
            runtime.input().player(event);
        }
    }

    /// Players admitted now.
    pub(crate) fn players(&self) -> usize {
        self.seats.lock_unpoisoned().len()
    }

    /// The player a token is of, if it may connect now (a player opens a
    /// few connections within seconds, at most): `Err(true)` when it may
    /// not now, `Err(false)` for no such player.
    pub(crate) fn may_connect(&self, token: &str) -> Result<PlayerId, bool> {
        let mut seats = self.seats.lock_unpoisoned();
        let player = seats.player_of(token).ok_or(false)?;
        if seats.may_connect(player) {
            Ok(player)
        } else {
            Err(true)
        }
    }

    /// Updates from now on.
    pub(crate) fn subscribe(&self) -> Follower<Update> {
        self.updates.follow()
    }

    /// The step positions and scales are rounded to in the binary form.
    pub(crate) fn precision(&self) -> f32 {
        self.precision
    }

    /// A snapshot of what `player` sees, taken after the next published
    /// frame; once the world ended, none (the receiver fails at once).
    ///
    /// Lock order: `seats`, then `snapshots` (as [`WorldHub::end`] takes
    /// them), so a request either precedes the end and is dropped by it, or
    /// sees it.
    pub(crate) fn snapshot(&self, player: PlayerId) -> oneshot::Receiver<Snapshot> {
        let (reply, snapshot) = oneshot::channel();
        let seats = self.seats.lock_unpoisoned();
        if seats.ended().is_none() {
            self.snapshots.lock_unpoisoned().push((player, reply));
        }
        drop(seats);
        snapshot
    }

    /// The world's last frame and why it ended, once it did, and whether
    /// it resumes when the server starts again.
    pub(crate) fn ended(&self) -> Option<(u64, String, bool)> {
        let seats = self.seats.lock_unpoisoned();
        let (frame, why) = seats.ended()?.clone();
        Some((frame, why, seats.resumes()))
    }

    /// On the loop thread, after each of the world's frames: routes the
    /// scripts' messages to players, sends each connected player what
    /// changed in its view (on every `every`-th frame) and answers the
    /// snapshots asked for. Never waits on a client.
    pub(crate) fn publish(
        &self,
        runtime: &mut Runtime,
        tracker: &mut SceneTracker,
        views: &mut PlayerViews,
    ) {
        let frame = runtime.frame();
        let mut messages = runtime.take_player_messages();
        let connected = {
            let mut seats = self.seats.lock_unpoisoned();
            if !messages.is_empty() {
                messages.retain(|message| matches!(seats.route(message), Route::Clients));
            }
            seats.connected()
        };
        let listened = self.updates.followed();
        let mut routes = Routes::default();
        let mut acks = Vec::new();
        if frame.is_multiple_of(self.every) {
            acks = self.controls.lock_unpoisoned().acks();
            let snapshots = std::mem::take(&mut *self.snapshots.lock_unpoisoned());
            if listened || !snapshots.is_empty() {
                let world_views = runtime.inspect().views();
                let changes = {
                    let mut scene = runtime.scene().lock_unpoisoned();
                    tracker.update(&mut *scene, world_views.replicated())
                };
                routes = views.update(&connected, world_views, tracker, &changes);
                for (player, reply) in snapshots {
                    let ids = visible(world_views, tracker, player);
                    let states: Arc<[Arc<EntityState>]> = ids
                        .iter()
                        .filter_map(|&id| tracker.state(id).cloned())
                        .collect();
                    views.saw(player, ids);
                    let applied = self.controls.lock_unpoisoned().applied(player);
                    let _ = reply.send((frame, states, applied));
                }
            }
        }
        if listened && (!routes.is_empty() || !messages.is_empty() || !acks.is_empty()) {
            let held: usize = messages
                .iter()
                .map(|m| std::mem::size_of::<PlayerMessage>() + m.channel.len() + m.payload.len())
                .sum();
            routes
                .weight
                .fetch_add(held, std::sync::atomic::Ordering::Relaxed);
            self.updates.push(Arc::new(Update {
                frame,
                routes,
                messages,
                acks,
            }));
        }
    }

    /// On the loop thread, as the world ends: every client is told why
    /// and closes, and none connects or gets a snapshot after.
    /// Notes that the world moves to the node at `address` when it is
    /// suspended next.
    pub(crate) fn moving_to(&self, address: &str) {
        *self.moving_to.lock_unpoisoned() = Some(address.to_owned());
    }

    /// Where the world moves, if it is being handed to another node.
    pub(crate) fn moves_to(&self) -> Option<String> {
        self.moving_to.lock_unpoisoned().clone()
    }

    pub(crate) fn end(&self, frame: u64, why: &str, resumes: bool) {
        let mut seats = self.seats.lock_unpoisoned();
        seats.end(frame, why, resumes);
        self.snapshots.lock_unpoisoned().clear();
        drop(seats);
        self.updates.close();
    }
}
