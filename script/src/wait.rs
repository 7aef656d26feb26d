//! Futures backed by host waits (`game:engine/tasks` and friends).
//!
//! A [`HostWait`] registers itself with the host on first poll under a fresh
//! token, and completes when the host reports that token in `take-wakes`.
//! Dropping it before then cancels the wait on the host.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::bindings::game::engine::tasks::{self, WakeData};
use crate::executor;

struct Pending {
    waker: Option<Waker>,
    results: VecDeque<WakeData>,
}

thread_local! {
    static WAITS: RefCell<HashMap<u64, Pending>> = RefCell::new(HashMap::new());
    static NEXT_TOKEN: Cell<u32> = const { Cell::new(0) };
}

/// A new token: the current task's number in the high 32 bits (so the host
/// can list waits per task), a counter in the low 32.
fn new_token() -> u64 {
    let task = executor::current().map_or(0, |id| id.number());
    let seq = NEXT_TOKEN.with(|n| {
        let seq = n.get().wrapping_add(1);
        n.set(seq);
        seq
    });
    (u64::from(task) << 32) | u64::from(seq)
}

/// Registers a wait under a fresh token and asks the host for it with
/// `start(token)`; returns the token.
fn begin(start: impl FnOnce(u64), waker: &Waker) -> u64 {
    let token = new_token();
    WAITS.with(|waits| {
        waits.borrow_mut().insert(
            token,
            Pending {
                waker: Some(waker.clone()),
                results: VecDeque::new(),
            },
        );
    });
    start(token);
    token
}

/// Takes one result for `token`, or stores `waker` to be woken with it.
fn poll_token(token: u64, waker: &Waker, keep: bool) -> Option<WakeData> {
    WAITS.with(|waits| {
        let mut waits = waits.borrow_mut();
        let pending = waits.get_mut(&token)?;
        match pending.results.pop_front() {
            Some(data) => {
                if !keep {
                    waits.remove(&token);
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
    WAITS.with(|waits| waits.borrow_mut().remove(&token).is_some())
}

/// Collects completed waits from the host and wakes their tasks. Called by
/// the export macro on the reserved wake message.
pub fn deliver_wakes() {
    for wake in tasks::take_wakes() {
        let waker = WAITS.with(|waits| {
            let mut waits = waits.borrow_mut();
            let pending = waits.get_mut(&wake.token)?;
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
    WAITS.with(|waits| waits.borrow().len())
}

/// A one-shot host wait; `start` registers it with the host under a token.
pub(crate) struct HostWait<S: FnOnce(u64)> {
    start: Option<S>,
    token: u64,
    done: bool,
}

impl<S: FnOnce(u64)> HostWait<S> {
    pub fn new(start: S) -> Self {
        HostWait {
            start: Some(start),
            token: 0,
            done: false,
        }
    }
}

impl<S: FnOnce(u64) + Unpin> Future for HostWait<S> {
    type Output = WakeData;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<WakeData> {
        if let Some(start) = self.start.take() {
            self.token = begin(start, cx.waker());
            return Poll::Pending;
        }
        match poll_token(self.token, cx.waker(), false) {
            Some(data) => {
                self.done = true;
                Poll::Ready(data)
            }
            None => Poll::Pending,
        }
    }
}

impl<S: FnOnce(u64)> Drop for HostWait<S> {
    fn drop(&mut self) {
        if self.token != 0 && !self.done && forget(self.token) {
            tasks::cancel(self.token);
        }
    }
}

/// A persistent host wait (a listener): yields every result until dropped.
pub(crate) struct HostListener<S: FnOnce(u64)> {
    start: Option<S>,
    token: u64,
}

impl<S: FnOnce(u64)> HostListener<S> {
    pub fn new(start: S) -> Self {
        HostListener {
            start: Some(start),
            token: 0,
        }
    }

    /// The next result, registering the listener on first use.
    pub fn poll_next_data(&mut self, cx: &mut Context<'_>) -> Poll<WakeData> {
        if let Some(start) = self.start.take() {
            self.token = begin(start, cx.waker());
            return Poll::Pending;
        }
        match poll_token(self.token, cx.waker(), true) {
            Some(data) => Poll::Ready(data),
            None => Poll::Pending,
        }
    }
}

impl<S: FnOnce(u64)> Drop for HostListener<S> {
    fn drop(&mut self) {
        if self.token != 0 && forget(self.token) {
            tasks::cancel(self.token);
        }
    }
}
