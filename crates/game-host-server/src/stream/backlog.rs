//! [`Backlog`]: the updates a world keeps for its clients to catch up on,
//! bounded in count ([`MAX_UPDATES`]) and in bytes (the world's
//! `kept_bytes`, each update [`Weighed`]), and [`Follower`], one client's
//! place in it.
//!
//! The world's loop thread pushes each update and never waits: past either
//! bound the oldest updates go, and a client whose next update went with
//! them is told it fell behind (it then gets a fresh snapshot). An update
//! every client has taken goes at once. Bytes count what an update holds
//! for its clients: its entities, its messages, and each encoding of it a
//! client has made (encodings are made by the clients, so the total is
//! taken again at each push).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use game_host::sync::LockExt;

/// Updates a client may fall behind by before it loses some (about two
/// seconds at 60 Hz), whatever their size.
pub(crate) const MAX_UPDATES: usize = 128;

/// Bytes of updates a world keeps for its clients by default: 50 worlds
/// keep at most 800 MiB for clients that stopped reading, whatever their
/// size. A world of 5,000 entities that all move (about 1.1 MB an update
/// with its JSON) keeps about 14 updates, a quarter of a second at 60 Hz,
/// for a client that stalls; a small world keeps all 128.
pub const DEFAULT_KEPT_BYTES: usize = 16 << 20;

/// What a kept update holds, in bytes: what the byte budget counts.
pub(crate) trait Weighed {
    fn kept_bytes(&self) -> usize;
}

/// Why a [`Follower`] got no update.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Missed {
    /// Updates it had not taken were dropped: it is behind.
    Behind,
    /// The world ended: no update comes again.
    Closed,
}

/// A world's kept updates.
pub(crate) struct Backlog<T> {
    ring: Mutex<Ring<T>>,
    pushed: Notify,
    kept_bytes: usize,
}

struct Ring<T> {
    /// The number of `updates[0]`: updates are numbered from 0 as pushed.
    first: u64,
    updates: VecDeque<Arc<T>>,
    /// Each follower's next update, by follower.
    next: HashMap<u64, u64>,
    followers: u64,
    closed: bool,
}

impl<T> Ring<T> {
    fn end(&self) -> u64 {
        self.first + self.updates.len() as u64
    }

    fn drop_front(&mut self) {
        self.updates.pop_front();
        self.first += 1;
    }

    /// Drops the updates every follower has taken.
    fn drop_taken(&mut self) {
        let oldest_wanted = self.next.values().copied().min().unwrap_or(self.end());
        while self.first < oldest_wanted && !self.updates.is_empty() {
            self.drop_front();
        }
    }
}

impl<T: Weighed> Backlog<T> {
    /// A backlog that keeps at most `kept_bytes` of updates (and always the
    /// newest one, however large).
    pub fn new(kept_bytes: usize) -> Arc<Backlog<T>> {
        Arc::new(Backlog {
            ring: Mutex::new(Ring {
                first: 0,
                updates: VecDeque::new(),
                next: HashMap::new(),
                followers: 0,
                closed: false,
            }),
            pushed: Notify::new(),
            kept_bytes,
        })
    }

    /// Whether any client follows the world's updates.
    pub fn followed(&self) -> bool {
        !self.ring.lock_unpoisoned().next.is_empty()
    }

    /// Keeps `update` for the followers, dropping the oldest past the
    /// bounds; never waits on a follower.
    pub fn push(&self, update: Arc<T>) {
        let mut ring = self.ring.lock_unpoisoned();
        if ring.closed {
            return;
        }
        ring.updates.push_back(update);
        // What every follower took goes (a follower that left between the
        // hub's look and this push leaves nothing behind it).
        ring.drop_taken();
        while ring.updates.len() > MAX_UPDATES {
            ring.drop_front();
        }
        let mut bytes: usize = ring.updates.iter().map(|u| u.kept_bytes()).sum();
        while bytes > self.kept_bytes && ring.updates.len() > 1 {
            bytes -= ring.updates.front().map_or(0, |u| u.kept_bytes());
            ring.drop_front();
        }
        drop(ring);
        self.pushed.notify_waiters();
    }

    /// Bytes of the updates kept now (what [`Backlog::push`] bounds).
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        let ring = self.ring.lock_unpoisoned();
        ring.updates.iter().map(|u| u.kept_bytes()).sum()
    }

    /// No update comes again: every follower is told so.
    pub fn close(&self) {
        let mut ring = self.ring.lock_unpoisoned();
        ring.closed = true;
        ring.updates.clear();
        drop(ring);
        self.pushed.notify_waiters();
    }

    /// A follower of the updates pushed from now on.
    pub fn follow(self: &Arc<Self>) -> Follower<T> {
        let mut ring = self.ring.lock_unpoisoned();
        let id = ring.followers;
        ring.followers += 1;
        let end = ring.end();
        ring.next.insert(id, end);
        Follower {
            backlog: self.clone(),
            id,
        }
    }
}

/// One client's place in a world's [`Backlog`]; it stops holding updates
/// back when dropped.
pub(crate) struct Follower<T> {
    backlog: Arc<Backlog<T>>,
    id: u64,
}

impl<T: Weighed> Follower<T> {
    /// The next update, once pushed; or, if updates it had not taken were
    /// dropped, [`Missed::Behind`] (it goes on from the oldest kept).
    pub async fn recv(&mut self) -> Result<Arc<T>, Missed> {
        loop {
            let pushed = self.backlog.pushed.notified();
            tokio::pin!(pushed);
            pushed.as_mut().enable();
            if let Some(taken) = self.take() {
                return taken;
            }
            pushed.await;
        }
    }

    fn take(&self) -> Option<Result<Arc<T>, Missed>> {
        let mut ring = self.backlog.ring.lock_unpoisoned();
        if ring.closed {
            return Some(Err(Missed::Closed));
        }
        let ring = &mut *ring;
        let next = ring.next.get_mut(&self.id).expect("a follower has a place");
        if *next < ring.first {
            *next = ring.first;
            return Some(Err(Missed::Behind));
        }
        let at = (*next - ring.first) as usize;
        let update = ring.updates.get(at)?.clone();
        *next += 1;
        if at == 0 {
            ring.drop_taken();
        }
        Some(Ok(update))
    }
}

impl<T> Drop for Follower<T> {
    fn drop(&mut self) {
        let mut ring = self.backlog.ring.lock_unpoisoned();
        ring.next.remove(&self.id);
        ring.drop_taken();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An update of a frame, holding some bytes.
    #[derive(Debug)]
    struct Update {
        frame: u64,
        bytes: usize,
    }

    impl Weighed for Update {
        fn kept_bytes(&self) -> usize {
            self.bytes
        }
    }

    fn update(frame: u64, bytes: usize) -> Arc<Update> {
        Arc::new(Update { frame, bytes })
    }

    fn frame(taken: Result<Arc<Update>, Missed>) -> u64 {
        taken.unwrap().frame
    }

    #[tokio::test]
    async fn a_follower_gets_every_update_in_order_and_taken_ones_go() {
        let backlog = Backlog::new(1 << 20);
        let mut one = backlog.follow();
        let mut two = backlog.follow();
        assert!(backlog.followed());
        for n in 1..=3 {
            backlog.push(update(n, 10));
        }
        for n in 1..=3 {
            assert_eq!(frame(one.recv().await), n);
        }
        assert_eq!(backlog.ring.lock_unpoisoned().updates.len(), 3);
        assert_eq!(frame(two.recv().await), 1);
        assert_eq!(backlog.ring.lock_unpoisoned().updates.len(), 2);
        drop(two);
        assert!(backlog.ring.lock_unpoisoned().updates.is_empty());
        drop(one);
        assert!(!backlog.followed());
    }

    #[tokio::test]
    async fn past_the_byte_budget_the_oldest_go_and_a_stalled_follower_is_behind() {
        let backlog = Backlog::new(10_000);
        let mut stalled = backlog.follow();
        for n in 1..=50 {
            backlog.push(update(n, 1_000));
            assert!(backlog.bytes() <= 10_000, "{}", backlog.bytes());
        }
        assert_eq!(stalled.recv().await.unwrap_err(), Missed::Behind);
        // It goes on from the oldest kept, and catches up.
        let oldest = frame(stalled.recv().await);
        assert!(oldest > 40, "{oldest}");
        for n in oldest + 1..=50 {
            assert_eq!(frame(stalled.recv().await), n);
        }
        // The newest is kept, however large.
        backlog.push(update(51, 50_000));
        assert_eq!(frame(stalled.recv().await), 51);
    }

    #[tokio::test]
    async fn with_no_follower_nothing_is_kept() {
        let backlog = Backlog::new(1 << 20);
        let follower = backlog.follow();
        drop(follower);
        backlog.push(update(1, 10));
        assert!(backlog.ring.lock_unpoisoned().updates.is_empty());
        let mut late = backlog.follow();
        backlog.push(update(2, 10));
        assert_eq!(frame(late.recv().await), 2);
        assert!(backlog.ring.lock_unpoisoned().updates.is_empty());
    }

    #[tokio::test]
    async fn past_the_count_the_oldest_go() {
        let backlog = Backlog::new(usize::MAX);
        let mut stalled = backlog.follow();
        for n in 0..(MAX_UPDATES as u64 + 5) {
            backlog.push(update(n, 1));
        }
        assert_eq!(stalled.recv().await.unwrap_err(), Missed::Behind);
        assert_eq!(frame(stalled.recv().await), 5);
    }

    #[tokio::test]
    async fn a_waiting_follower_wakes_on_a_push_and_on_the_close() {
        let backlog = Backlog::new(1 << 20);
        let mut follower = backlog.follow();
        let pusher = backlog.clone();
        let pushing = tokio::spawn(async move {
            tokio::task::yield_now().await;
            pusher.push(update(7, 1));
        });
        assert_eq!(frame(follower.recv().await), 7);
        pushing.await.unwrap();
        let closer = backlog.clone();
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            closer.close();
        });
        assert_eq!(follower.recv().await.unwrap_err(), Missed::Closed);
    }
}
