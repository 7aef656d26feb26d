//! [`Seats`]: the players a world admitted, each with the digest of its
//! token, whether a client streams for it now, the messages for it that
//! arrived while none did, and how fast its clients may send and connect.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use super::bucket::Bucket;
use crate::durable::HeldSeat;
use game_host::players::{PlayerId, PlayerMessage};

/// Messages kept for a player whose client is not connected; older ones
/// are dropped past this.
pub(crate) const MAILBOX: usize = 256;

/// Bytes of messages (channel and payload) kept for a player whose client
/// is not connected; older ones are dropped past this, so a world's
/// absent players hold at most this much each.
pub(crate) const MAILBOX_BYTES: usize = 1 << 20;

fn size(message: &PlayerMessage) -> usize {
    message.channel.len() + message.payload.len()
}

/// Connections a player may open within [`CONNECTS_WITHIN`].
pub(crate) const CONNECTS: usize = 5;
pub(crate) const CONNECTS_WITHIN: Duration = Duration::from_secs(10);

/// How long a player who joined through the public join (`POST /play`)
/// may stay away, with no client connected, and keep its seat once another
/// player needs room: a page closed for good gives its seat back, a
/// reconnection within it keeps it.
pub(crate) const PUBLIC_SEAT_ABSENCE: Duration = Duration::from_secs(60);

/// A token's digest: tokens are compared (and looked up) by it only.
pub(crate) fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

struct Seat {
    token: [u8; 32],
    /// Tells the client streaming for the player, if any, to close, and why.
    client: Option<(u64, oneshot::Sender<&'static str>)>,
    mailbox: VecDeque<PlayerMessage>,
    /// The bytes of `mailbox`'s messages.
    mailbox_bytes: usize,
    /// What its clients may still send (made on first use, kept across
    /// reconnections).
    bucket: Option<Bucket>,
    /// When its last connections were opened.
    connects: VecDeque<Instant>,
    /// Since when no client streams for it (from its admission on).
    absent_since: Option<Instant>,
    /// It joined through the public join: its seat goes to another player
    /// once it stayed away [`PUBLIC_SEAT_ABSENCE`].
    public: bool,
}

/// The players of one world.
#[derive(Default)]
pub(crate) struct Seats {
    by_id: HashMap<PlayerId, Seat>,
    by_token: HashMap<[u8; 32], PlayerId>,
    next: PlayerId,
    /// Connections made so far (each one's number).
    connections: u64,
    /// Set when the world ended: the frame and why. No client connects
    /// after that.
    ended: Option<(u64, String)>,
    /// Set with `ended` when the world resumes at the server's next start.
    resumes: bool,
}

/// Who a message goes to now.
pub(crate) enum Route {
    /// Every connected client (or the one player's client).
    Clients,
    /// Kept for a player with no client connected.
    Kept,
    /// No such player: dropped.
    Nobody,
}

impl Seats {
    /// Admits a player, up to `max` at once: its id and its token.
    pub fn admit(&mut self, max: usize) -> Result<(PlayerId, String)> {
        self.admit_as(max, false)
    }

    /// Admits a player through the public join, up to `max` at once: its
    /// seat goes to another once it stayed away too long
    /// ([`Seats::absent_public`]).
    pub fn admit_public(&mut self, max: usize) -> Result<(PlayerId, String)> {
        self.admit_as(max, true)
    }

    fn admit_as(&mut self, max: usize, public: bool) -> Result<(PlayerId, String)> {
        if let Some((frame, why)) = &self.ended {
            bail!("the world ended after frame {frame}: {why}");
        }
        if self.by_id.len() >= max {
            bail!("the world has its maximum of {max} players");
        }
        let id = self.next + 1;
        let token = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        self.next = id;
        self.seat(id, digest(&token), public);
        Ok((id, token))
    }

    /// The players who joined through the public join and have had no
    /// client for longer than `longer_than`, as of `now`.
    pub fn absent_public(&self, longer_than: Duration, now: Instant) -> Vec<PlayerId> {
        let mut absent: Vec<PlayerId> = (self.by_id.iter())
            .filter(|(_, seat)| {
                seat.public
                    && seat
                        .absent_since
                        .is_some_and(|since| now.saturating_duration_since(since) > longer_than)
            })
            .map(|(player, _)| *player)
            .collect();
        absent.sort_unstable();
        absent
    }

    fn seat(&mut self, id: PlayerId, token: [u8; 32], public: bool) {
        let seat = Seat {
            token,
            client: None,
            mailbox: VecDeque::new(),
            mailbox_bytes: 0,
            bucket: None,
            connects: VecDeque::new(),
            absent_since: Some(Instant::now()),
            public,
        };
        self.by_token.insert(seat.token, id);
        self.by_id.insert(id, seat);
    }

    /// A durable world's seats: `seats` (each player with its token's
    /// digest, and whether it joined through the public join); ids go on
    /// after `last`, the highest ever given.
    pub fn restored(
        seats: &std::collections::BTreeMap<PlayerId, HeldSeat>,
        last: PlayerId,
    ) -> Self {
        let mut restored = Seats {
            next: last,
            ..Seats::default()
        };
        for (player, seat) in seats {
            restored.seat(*player, seat.token, seat.public);
            restored.next = restored.next.max(*player);
        }
        restored
    }

    /// The player a token is of.
    pub fn player_of(&self, token: &str) -> Option<PlayerId> {
        self.by_token.get(&digest(token)).copied()
    }

    /// The players with a client connected now, in order.
    pub fn connected(&self) -> Vec<PlayerId> {
        let mut players: Vec<PlayerId> = (self.by_id.iter())
            .filter(|(_, seat)| seat.client.is_some())
            .map(|(player, _)| *player)
            .collect();
        players.sort_unstable();
        players
    }

    /// The players admitted now, in order, each with whether a client of
    /// its is connected.
    pub fn admitted(&self) -> Vec<(PlayerId, bool)> {
        let mut players: Vec<(PlayerId, bool)> = (self.by_id.iter())
            .map(|(player, seat)| (*player, seat.client.is_some()))
            .collect();
        players.sort_unstable();
        players
    }

    /// Players admitted now.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Takes a player out; its client, if any, is told why and closes.
    pub fn remove(&mut self, player: PlayerId, why: &'static str) -> bool {
        let Some(seat) = self.by_id.remove(&player) else {
            return false;
        };
        self.by_token.remove(&seat.token);
        if let Some((_, client)) = seat.client {
            let _ = client.send(why);
        }
        true
    }

    /// Whether a client of `player` may connect now (at most [`CONNECTS`]
    /// within [`CONNECTS_WITHIN`]); counts the attempt.
    pub fn may_connect(&mut self, player: PlayerId) -> bool {
        let Some(seat) = self.by_id.get_mut(&player) else {
            return false;
        };
        let now = Instant::now();
        while seat
            .connects
            .front()
            .is_some_and(|at| now - *at > CONNECTS_WITHIN)
        {
            seat.connects.pop_front();
        }
        if seat.connects.len() >= CONNECTS {
            return false;
        }
        seat.connects.push_back(now);
        true
    }

    /// Takes a token for one message from `player`'s client (see
    /// [`Bucket::take`]).
    pub fn take_token(
        &mut self,
        player: PlayerId,
        rate: f64,
        burst: f64,
    ) -> Option<Option<String>> {
        let seat = self.by_id.get_mut(&player)?;
        seat.bucket
            .get_or_insert_with(|| Bucket::new(rate, burst))
            .take()
    }

    /// Whether connection `number` is `player`'s current one.
    pub fn is_current(&self, player: PlayerId, number: u64) -> bool {
        self.by_id
            .get(&player)
            .and_then(|seat| seat.client.as_ref())
            .is_some_and(|(n, _)| *n == number)
    }

    /// The world's end, once it ended: its last frame and why.
    pub fn ended(&self) -> Option<&(u64, String)> {
        self.ended.as_ref()
    }

    /// A client starts streaming for `player`: one closes when this one
    /// replaces it. Returns the connection's number (for
    /// [`Seats::disconnect`]), what tells it to close, and the messages
    /// kept for the player.
    pub fn connect(
        &mut self,
        player: PlayerId,
    ) -> Option<(u64, oneshot::Receiver<&'static str>, Vec<PlayerMessage>)> {
        if self.ended.is_some() {
            return None;
        }
        let seat = self.by_id.get_mut(&player)?;
        self.connections += 1;
        let (tell, told) = oneshot::channel();
        if let Some((_, older)) = seat.client.replace((self.connections, tell)) {
            let _ = older.send("another client connected for this player");
        }
        seat.mailbox_bytes = 0;
        seat.absent_since = None;
        Some((self.connections, told, seat.mailbox.drain(..).collect()))
    }

    /// Connection `number` of `player` ended (unless a newer one replaced
    /// it already).
    pub fn disconnect(&mut self, player: PlayerId, number: u64) {
        if let Some(seat) = self.by_id.get_mut(&player)
            && seat.client.as_ref().is_some_and(|(n, _)| *n == number)
        {
            seat.client = None;
            seat.absent_since = Some(Instant::now());
        }
    }

    /// Where a script's message goes: broadcasts and messages to connected
    /// players go to the clients; one to a player with no client is kept
    /// for its next connection.
    pub fn route(&mut self, message: &PlayerMessage) -> Route {
        let Some(to) = message.to else {
            return Route::Clients;
        };
        match self.by_id.get_mut(&to) {
            None => Route::Nobody,
            Some(seat) if seat.client.is_some() => Route::Clients,
            Some(seat) => {
                seat.mailbox_bytes += size(message);
                seat.mailbox.push_back(message.clone());
                while seat.mailbox.len() > MAILBOX || seat.mailbox_bytes > MAILBOX_BYTES {
                    let Some(dropped) = seat.mailbox.pop_front() else {
                        break;
                    };
                    seat.mailbox_bytes -= size(&dropped);
                }
                Route::Kept
            }
        }
    }

    /// The world ended after `frame`, for `why` (or is suspended, and
    /// `resumes`): every client is told to
    /// close, and none connects again.
    pub fn end(&mut self, frame: u64, why: &str, resumes: bool) {
        self.ended = Some((frame, why.to_owned()));
        self.resumes = resumes;
        for seat in self.by_id.values_mut() {
            if let Some((_, client)) = seat.client.take() {
                let _ = client.send("the world ended");
            }
        }
    }

    /// Whether the world that ended resumes when the server starts again
    /// (a durable world the server stopped).
    pub fn resumes(&self) -> bool {
        self.resumes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(player: Option<PlayerId>) -> PlayerMessage {
        PlayerMessage {
            to: player,
            channel: "c".into(),
            payload: "p".into(),
        }
    }

    #[test]
    fn tokens_name_their_players_and_messages_wait_for_a_client() {
        let mut seats = Seats::default();
        let (one, token) = seats.admit(2).unwrap();
        let (two, _) = seats.admit(2).unwrap();
        assert!(seats.admit(2).is_err());
        assert_eq!(seats.player_of(&token), Some(one));
        assert_eq!(seats.player_of("not a token"), None);
        assert!(matches!(seats.route(&to(Some(one))), Route::Kept));
        assert!(matches!(seats.route(&to(Some(9))), Route::Nobody));
        let (number, mut told, kept) = seats.connect(one).unwrap();
        assert_eq!(kept, [to(Some(one))]);
        assert!(matches!(seats.route(&to(Some(one))), Route::Clients));
        let (_, _, _) = seats.connect(one).unwrap();
        assert_eq!(
            told.try_recv(),
            Ok("another client connected for this player")
        );
        seats.disconnect(one, number);
        assert!(matches!(seats.route(&to(Some(one))), Route::Clients));
        assert!(seats.remove(two, "removed"));
        assert_eq!(seats.len(), 1);
        seats.end(9, "finished its frames", false);
        assert!(seats.connect(one).is_none());
        assert_eq!(seats.ended(), Some(&(9, "finished its frames".to_owned())));
    }

    #[test]
    fn a_public_player_away_too_long_is_found_and_an_admitted_one_never() {
        let mut seats = Seats::default();
        let (public, _) = seats.admit_public(3).unwrap();
        let (admitted, _) = seats.admit(3).unwrap();
        let (connected, _) = seats.admit_public(3).unwrap();
        let (number, _, _) = seats.connect(connected).unwrap();
        let long = Instant::now() + PUBLIC_SEAT_ABSENCE + Duration::from_secs(1);
        assert_eq!(seats.absent_public(PUBLIC_SEAT_ABSENCE, long), [public]);
        assert!(
            seats
                .absent_public(PUBLIC_SEAT_ABSENCE, Instant::now())
                .is_empty()
        );
        // Away from its disconnection on.
        seats.disconnect(connected, number);
        let later = Instant::now() + PUBLIC_SEAT_ABSENCE + Duration::from_secs(1);
        assert_eq!(
            seats.absent_public(PUBLIC_SEAT_ABSENCE, later),
            [public, connected]
        );
        assert!(
            !seats
                .absent_public(PUBLIC_SEAT_ABSENCE, later)
                .contains(&admitted)
        );
    }

    #[test]
    fn a_player_connects_a_few_times_a_window() {
        let mut seats = Seats::default();
        let (one, _) = seats.admit(1).unwrap();
        assert!((0..CONNECTS).all(|_| seats.may_connect(one)));
        assert!(!seats.may_connect(one));
        assert!(!seats.may_connect(99));
    }

    #[test]
    fn an_absent_players_mailbox_keeps_at_most_its_bytes() {
        let mut seats = Seats::default();
        let (one, _) = seats.admit(1).unwrap();
        let big = |n: usize| PlayerMessage {
            to: Some(one),
            channel: "c".into(),
            payload: n.to_string().repeat(60 << 10),
        };
        for n in 0..40 {
            seats.route(&big(n % 10));
        }
        let (_, _, kept) = seats.connect(one).unwrap();
        let bytes: usize = kept.iter().map(size).sum();
        assert!(bytes <= MAILBOX_BYTES, "{bytes}");
        assert_eq!(kept.len(), MAILBOX_BYTES / ((60 << 10) + 1));
        // The newest are kept.
        assert_eq!(kept.last().unwrap().payload, big(39 % 10).payload);
    }
}
