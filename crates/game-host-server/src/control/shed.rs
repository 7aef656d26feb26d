//! [`Connections`]: the control surface's open connections, and which one
//! to close when they are all taken and another client connects.
//!
//! A flood of slow clients (slowloris: headers a byte at a time; slow
//! POST: a body a byte at a time) would otherwise hold every connection
//! until its timeout, and a health probe arriving then would be closed on
//! accept: an orchestrator that misses health checks restarts the server
//! and loses every world. So, as Envoy's overload manager does, the
//! slowest go first: when every connection is taken, the one that has been
//! waiting on its client the longest (for headers, a body, or its next
//! request) is closed to make room. A connection whose request is being
//! answered is never closed, and a new one is only refused when every
//! connection is being answered.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// The open connections, oldest first.
#[derive(Default)]
pub(crate) struct Connections {
    open: Mutex<BTreeMap<u64, Open>>,
    next: AtomicU64,
    shed: AtomicU64,
}

struct Open {
    waiting: Arc<AtomicBool>,
    shed: Option<oneshot::Sender<()>>,
}

/// One open connection: whether it waits on its client, the signal that
/// it is to close, and its place in the table (given back when dropped).
pub(crate) struct Connection {
    pub waiting: Waiting,
    pub shed: oneshot::Receiver<()>,
    pub place: Place,
}

/// Whether a connection waits on its client (true) or is being answered.
#[derive(Clone)]
pub(crate) struct Waiting(Arc<AtomicBool>);

impl Waiting {
    /// The client has sent its request (and body): it is being answered.
    pub fn answering(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// The answer is out: the connection waits on its client again.
    pub fn waiting(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
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

    /// A new connection, waiting on its client.
    pub fn open(self: &Arc<Self>) -> Connection {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let waiting = Arc::new(AtomicBool::new(true));
        let (sender, shed) = oneshot::channel();
        self.lock().insert(
            id,
            Open {
                waiting: waiting.clone(),
                shed: Some(sender),
            },
        );
        Connection {
            waiting: Waiting(waiting),
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
        let slowest = open
            .values_mut()
            .find(|c| c.shed.is_some() && c.waiting.load(Ordering::Relaxed));
        match slowest.and_then(|c| c.shed.take()) {
            Some(shed) => {
                let _ = shed.send(());
                self.shed.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => false,
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
        first.waiting.answering();
        assert!(table.shed_slowest());
        assert!(first.shed.try_recv().is_err(), "an answered one stays");
        assert!(second.shed.try_recv().is_ok(), "the oldest waiting goes");
        assert!(third.shed.try_recv().is_err());
        drop(second);
        third.waiting.answering();
        assert!(!table.shed_slowest(), "all the rest are being answered");
        first.waiting.waiting();
        assert!(table.shed_slowest());
        assert!(first.shed.try_recv().is_ok());
        assert_eq!(table.shed_count(), 2);
    }
}
