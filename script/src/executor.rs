//! A single-threaded, frame-driven executor for script tasks.
//!
//! Tasks live in a slab inside the guest. A task is polled when it is
//! spawned and afterwards only when something woke it: a host wait it awaits
//! completed (delivered with the reserved wake message), or another task it
//! awaits finished. The host does not call a script whose tasks are all
//! waiting, so sleeping tasks cost nothing per frame.
//!
//! The shape follows async-task's `spawn_local` example: `spawn` returns a
//! [`Task`] handle; dropping it cancels the task (dropping its future, which
//! withdraws its host waits), `detach` lets it run on.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

type BoxFuture = Pin<Box<dyn Future<Output = ()>>>;

/// Identifies a task slot and the task in it (slots are reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskId {
    index: u32,
    generation: u32,
}

impl TaskId {
    /// The number the host shows for this task in wait listings.
    pub fn number(self) -> u32 {
        self.index + 1
    }
}

struct Slot {
    generation: u32,
    /// `None` while the task is being polled, and once it is gone.
    future: Option<BoxFuture>,
    waker: Option<Waker>,
    /// In the ready queue already.
    queued: bool,
    /// Cancelled while it was being polled: drop it afterwards.
    cancelled: bool,
    live: bool,
}

#[derive(Default)]
struct Tasks {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

thread_local! {
    static TASKS: RefCell<Tasks> = RefCell::new(Tasks::default());
    static READY: RefCell<VecDeque<TaskId>> = const { RefCell::new(VecDeque::new()) };
    static CURRENT: Cell<Option<TaskId>> = const { Cell::new(None) };
}

/// Wakes a task by queueing it. Wasm guests are single-threaded, so the
/// queue is a thread-local and no `unsafe` is needed.
struct TaskWaker(TaskId);

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        schedule(self.0);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        schedule(self.0);
    }
}

fn schedule(id: TaskId) {
    let queue = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        match tasks.slots.get_mut(id.index as usize) {
            Some(slot) if slot.live && slot.generation == id.generation && !slot.queued => {
                slot.queued = true;
                true
            }
            _ => false,
        }
    });
    if queue {
        READY.with(|ready| ready.borrow_mut().push_back(id));
    }
}

/// The task being polled right now, if any.
pub(crate) fn current() -> Option<TaskId> {
    CURRENT.with(Cell::get)
}

/// Number of tasks alive (spawned, not finished or cancelled).
pub fn task_count() -> usize {
    TASKS.with(|tasks| tasks.borrow().live)
}

fn insert(future: BoxFuture) -> TaskId {
    let id = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        tasks.live += 1;
        let index = match tasks.free.pop() {
            Some(index) => index,
            None => {
                tasks.slots.push(Slot {
                    generation: 0,
                    future: None,
                    waker: None,
                    queued: false,
                    cancelled: false,
                    live: false,
                });
                (tasks.slots.len() - 1) as u32
            }
        };
        let slot = &mut tasks.slots[index as usize];
        slot.generation = slot.generation.wrapping_add(1);
        let id = TaskId {
            index,
            generation: slot.generation,
        };
        slot.future = Some(future);
        slot.waker = Some(Waker::from(Arc::new(TaskWaker(id))));
        slot.queued = false;
        slot.cancelled = false;
        slot.live = true;
        id
    });
    schedule(id);
    id
}

/// Frees a slot and returns what it held, to be dropped by the caller
/// outside the borrow (dropping a future may cancel other tasks).
fn release(tasks: &mut Tasks, id: TaskId) -> Option<BoxFuture> {
    let slot = tasks.slots.get_mut(id.index as usize)?;
    if !slot.live || slot.generation != id.generation {
        return None;
    }
    slot.live = false;
    slot.waker = None;
    tasks.live -= 1;
    tasks.free.push(id.index);
    slot.future.take()
}

/// Cancels a task: its future is dropped now (or right after its current
/// poll), which withdraws the host waits it holds.
fn cancel(id: TaskId) {
    let dropped = TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        let slot = tasks.slots.get_mut(id.index as usize)?;
        if !slot.live || slot.generation != id.generation {
            return None;
        }
        if slot.future.is_none() {
            // Being polled right now: drop it when the poll returns.
            slot.cancelled = true;
            return None;
        }
        release(&mut tasks, id)
    });
    drop(dropped);
}

/// Polls every ready task until none is ready. Called by the export macro
/// after `entrypoint` and after each `on-message`.
pub fn run_until_stalled() {
    while let Some(id) = READY.with(|ready| ready.borrow_mut().pop_front()) {
        let taken = TASKS.with(|tasks| {
            let mut tasks = tasks.borrow_mut();
            let slot = tasks.slots.get_mut(id.index as usize)?;
            if !slot.live || slot.generation != id.generation {
                return None;
            }
            slot.queued = false;
            Some((slot.future.take()?, slot.waker.clone()?))
        });
        let Some((mut future, waker)) = taken else {
            continue;
        };
        CURRENT.with(|c| c.set(Some(id)));
        let poll = future.as_mut().poll(&mut Context::from_waker(&waker));
        CURRENT.with(|c| c.set(None));
        let dropped = TASKS.with(|tasks| {
            let mut tasks = tasks.borrow_mut();
            let slot = &mut tasks.slots[id.index as usize];
            if poll.is_pending() && !slot.cancelled {
                slot.future = Some(future);
                return None;
            }
            slot.future = Some(future);
            release(&mut tasks, id)
        });
        drop(dropped);
    }
}

/// What a finished task left for its [`Task`] handle.
struct Outcome<T> {
    value: Option<T>,
    finished: bool,
    waiter: Option<Waker>,
}

/// A handle to a spawned task: await it for the task's result.
///
/// Dropping the handle cancels the task, withdrawing its timers, event waits,
/// motions and job requests on the host. Call [`Task::detach`] to let the
/// task run on without a handle.
#[must_use = "dropping a Task cancels it; use .detach() to let it run"]
pub struct Task<T> {
    id: TaskId,
    outcome: Rc<RefCell<Outcome<T>>>,
    detached: bool,
}

impl<T> Task<T> {
    /// Lets the task run to completion with nobody awaiting it.
    pub fn detach(mut self) {
        self.detached = true;
    }

    /// Cancels the task now (the same as dropping the handle).
    pub fn cancel(self) {}

    /// Whether the task has finished.
    pub fn is_finished(&self) -> bool {
        self.outcome.borrow().finished
    }
}

impl<T> Future for Task<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut outcome = self.outcome.borrow_mut();
        match outcome.value.take() {
            Some(value) => Poll::Ready(value),
            None if outcome.finished => panic!("a Task was polled after it returned its value"),
            None => {
                outcome.waiter = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        if !self.detached && !self.outcome.borrow().finished {
            cancel(self.id);
        }
    }
}

/// Starts `future` as a task. It is first polled before the current
/// `entrypoint` or `on_message` returns to the host.
pub fn spawn<F>(future: F) -> Task<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let outcome = Rc::new(RefCell::new(Outcome {
        value: None,
        finished: false,
        waiter: None,
    }));
    let shared = outcome.clone();
    let id = insert(Box::pin(async move {
        let value = future.await;
        let waiter = {
            let mut outcome = shared.borrow_mut();
            outcome.value = Some(value);
            outcome.finished = true;
            outcome.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.wake();
        }
    }));
    Task {
        id,
        outcome,
        detached: false,
    }
}
