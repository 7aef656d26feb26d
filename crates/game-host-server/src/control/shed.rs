//! [`Connections`]: the control surface's open connections, and which one
//! to close when they are all taken and another client connects.
//!
//! A flood of slow clients (slowloris: headers a byte at a time; slow
//! POST: a body a byte at a time) would otherwise hold every connection
//! until its timeout, and a health probe arriving then would be closed on
//! accept: an orchestrator that misses health checks restarts the server
//! and loses every world. So, as Envoy's overload manager does, the
//! slowest go first: when every connection is taken, the one that has been
//! waiting on its client the longest (for headers, a body, its next
//! request, or to read an answer) is closed to make room. A connection whose request is being
//! answered is never closed, and a new one is only refused when every
//! connection is being answered.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::oneshot;

/// A connection waits on its client: for headers, a body, its next
/// request, or to read an answer.
const WAITING: u8 = 0;
/// Its request is being answered.
const ANSWERING: u8 = 1;
/// It was chosen to close; it answers nothing more.
const SHED: u8 = 2;

/// The open connections.
pub(crate) struct Connections {
    open: Mutex<BTreeMap<u64, Open>>,
    next: AtomicU64,
    shed: AtomicU64,
    epoch: Instant,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            open: Mutex::default(),
            next: AtomicU64::new(0),
            shed: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }
}

struct Open {
    state: Arc<State>,
    shed: Option<oneshot::Sender<()>>,
}

/// Where a connection is: waiting, answering or shed, and since when it
/// has waited (microseconds from the table's start).
struct State {
    phase: AtomicU8,
    since: AtomicU64,
}

/// One open connection: its state, the signal that it is to close, and
/// its place in the table (given back when dropped).
pub(crate) struct Connection {
    pub waiting: Waiting,
    pub shed: oneshot::Receiver<()>,
    pub place: Place,
}

/// A connection's side of its state.
#[derive(Clone)]
pub(crate) struct Waiting {
    state: Arc<State>,
    epoch: Instant,
}

impl Waiting {
    /// The client has sent its request (and body): it is being answered,
    /// and is no longer shed. False if it was shed already: answer nothing.
    pub fn answering(&self) -> bool {
        self.state
            .phase
            .compare_exchange(WAITING, ANSWERING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// The answer is out: the connection waits on its client again, from
    /// now.
    pub fn waiting(&self) {
        self.state
            .since
            .store(micros_since(self.epoch), Ordering::Relaxed);
        let _ = self.state.phase.compare_exchange(
            ANSWERING,
            WAITING,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }
}

fn micros_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// A connection's entry in [`Connections`]; removed when dropped.
pub(crate) struct Place {
    id: u64,
    table: Arc<Connections>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.table.lock().remove(&self.id);
    }
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Open>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new connection, waiting on its client from now.
    pub fn open(self: &Arc<Self>) -> Connection {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let state = Arc::new(State {
            phase: AtomicU8::new(WAITING),
            since: AtomicU64::new(micros_since(self.epoch)),
        });
        let (sender, shed) = oneshot::channel();
        self.lock().insert(
            id,
            Open {
                state: state.clone(),
                shed: Some(sender),
            },
        );
        Connection {
            waiting: Waiting {
                state,
                epoch: self.epoch,
            },
            shed,
            place: Place {
                id,
                table: self.clone(),
            },
        }
    }

    /// Tells the connection that has waited on its client the longest to
    /// close; false when every connection is being answered.
    pub fn shed_slowest(&self) -> bool {
        let mut open = self.lock();
        // A connection may start answering between the look and the claim:
        // then look again.
        loop {
            let slowest = open
                .values_mut()
                .filter(|c| c.shed.is_some() && c.state.phase.load(Ordering::Acquire) == WAITING)
                .min_by_key(|c| c.state.since.load(Ordering::Relaxed));
            let Some(slowest) = slowest else {
                return false;
            };
            let claimed = slowest
                .state
                .phase
                .compare_exchange(WAITING, SHED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
            if claimed && let Some(shed) = slowest.shed.take() {
                let _ = shed.send(());
                self.shed.fetch_add(1, Ordering::Relaxed);
                return true;
            }
        }
    }

    /// Connections closed to make room, so far.
    pub fn shed_count(&self) -> u64 {
        self.shed.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_waiting_connection_is_shed_first() {
        let table = Arc::new(Connections::default());
        let mut first = table.open();
        let mut second = table.open();
        let mut third = table.open();
        assert!(first.waiting.answering());
        assert!(table.shed_slowest());
        assert!(first.shed.try_recv().is_err(), "an answered one stays");
        assert!(second.shed.try_recv().is_ok(), "the oldest waiting goes");
        assert!(third.shed.try_recv().is_err());
        assert!(!second.waiting.answering(), "a shed one answers nothing");
        drop(second);
        assert!(third.waiting.answering());
        assert!(!table.shed_slowest(), "all the rest are being answered");
        // Waiting from now: the one that waited longer goes first.
        third.waiting.waiting();
        std::thread::sleep(std::time::Duration::from_millis(2));
        first.waiting.waiting();
        assert!(table.shed_slowest());
        assert!(third.shed.try_recv().is_ok());
        assert!(first.shed.try_recv().is_err());
        assert_eq!(table.shed_count(), 2);
    }
}
