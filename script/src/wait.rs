//! Futures backed by host waits (`game:engine/tasks` and every interface
//! whose functions take a wait token).
//!
//! A [`HostWait`] registers itself with the host on first poll under a
//! fresh token, and completes when the host reports that token in
//! `on-wake`. A persistent one (a listener) yields every report until
//! dropped. Dropping either before it is done cancels the wait on the host.
//!
//! Host functions of an extension interface that take a token can be
//! awaited with [`host_wait`]:
//!
//! ```ignore
//! let done = script::wait::host_wait(move |token| my_ext::request(token, 42)).await;
//! ```

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::bindings::game::engine::tasks;
pub use crate::bindings::game::engine::tasks::WakeData;
use crate::executor;

struct Pending {
    waker: Option<Waker>,
    results: VecDeque<WakeData>,
}

/// The waits this script has registered with the host, by token.
#[derive(Default)]
struct WaitTable {
    pending: HashMap<u64, Pending>,
    next_seq: u32,
}

thread_local! {
    static WAITS: RefCell<WaitTable> = RefCell::new(WaitTable::default());
}

/// Runs `f` with the script's wait table.
fn with_waits<R>(f: impl FnOnce(&mut WaitTable) -> R) -> R {
    WAITS.with(|waits| f(&mut waits.borrow_mut()))
}

impl WaitTable {
    /// A new token: the current task's number in the high 32 bits (so the
    /// host can list waits per task), a counter in the low 32.
    fn new_token(&mut self, task: u32) -> u64 {
        self.next_seq = self.next_seq.wrapping_add(1);
        (u64::from(task) << 32) | u64::from(self.next_seq)
    }
}

/// Registers a wait under a fresh token and asks the host for it with
/// `start(token)`; returns the token.
fn begin(start: impl FnOnce(u64), waker: &Waker) -> u64 {
    let task = executor::current_task();
    let token = with_waits(|waits| {
        let token = waits.new_token(task);
        waits.pending.insert(
            token,
            Pending {
                waker: Some(waker.clone()),
                results: VecDeque::new(),
            },
        );
        token
    });
    start(token);
    token
}

/// Takes one result for `token`, or stores `waker` to be woken with it.
fn poll_token(token: u64, waker: &Waker, keep: bool) -> Option<WakeData> {
    with_waits(|waits| {
        let pending = waits.pending.get_mut(&token)?;
        match pending.results.pop_front() {
            Some(data) => {
                if !keep {
                    waits.pending.remove(&token);
                }
                Some(data)
            }
            None => {
                pending.waker = Some(waker.clone());
                None
            }
        }
    })
}

fn forget(token: u64) -> bool {
    with_waits(|waits| waits.pending.remove(&token).is_some())
}

/// Hands completed waits to their futures and wakes their tasks. Called by
/// the export macro in `on-wake`.
pub fn deliver_wakes(wakes: Vec<tasks::Wake>) {
    for wake in wakes {
        let waker = with_waits(|waits| {
            let pending = waits.pending.get_mut(&wake.token)?;
            pending.results.push_back(wake.data);
            pending.waker.take()
        });
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Number of waits this script has registered with the host and not yet
/// seen complete or cancelled.
pub fn pending_waits() -> usize {
    with_waits(|waits| waits.pending.len())
}

/// A wait on the host; `start` registers it under a token on first poll.
pub struct HostWait<S: FnOnce(u64)> {
    start: Option<S>,
    token: u64,
    /// A listener: reports until dropped, instead of once.
    persistent: bool,
    done: bool,
}

impl<S: FnOnce(u64)> HostWait<S> {
    /// A wait that completes once.
    pub fn once(start: S) -> Self {
        HostWait {
            start: Some(start),
            token: 0,
            persistent: false,
            done: false,
        }
    }

    /// A listener that reports every completion until dropped.
    pub fn listener(start: S) -> Self {
        HostWait {
            start: Some(start),
            token: 0,
            persistent: true,
            done: false,
        }
    }

    /// The next report, registering the wait on first use.
    pub fn poll_data(&mut self, cx: &mut Context<'_>) -> Poll<WakeData> {
        if let Some(start) = self.start.take() {
            self.token = begin(start, cx.waker());
            return Poll::Pending;
        }
        if self.done {
            return Poll::Pending;
        }
        match poll_token(self.token, cx.waker(), self.persistent) {
            Some(data) => {
                self.done = !self.persistent;
                Poll::Ready(data)
            }
            None => Poll::Pending,
        }
    }
}

impl<S: FnOnce(u64) + Unpin> Future for HostWait<S> {
    type Output = WakeData;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<WakeData> {
        self.poll_data(cx)
    }
}

impl<S: FnOnce(u64)> Drop for HostWait<S> {
    fn drop(&mut self) {
        if self.token != 0 && !self.done && forget(self.token) {
            tasks::cancel(self.token);
        }
    }
}

/// Awaits one host wait: `start(token)` calls the host function that
/// registers it (any interface's function that takes a wait token), and the
/// future completes with what the host reports for that token.
pub fn host_wait(start: impl FnOnce(u64) + Unpin) -> impl Future<Output = WakeData> {
    HostWait::once(start)
}
