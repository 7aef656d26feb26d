//! The script's executor: one value, [`Executor`], behind one thread-local.
//!
//! Task state is async-task's: [`spawn`] makes a task with
//! `async_task::Builder::metadata` (the task number) and `spawn_local`, and
//! returns its [`Task`] handle. async-task keeps each task's state in one
//! word of documented flags (scheduled, running, completed, closed, handle
//! alive); a task is polled when it is spawned and afterwards only when
//! something woke it: a host wait it awaits completed (delivered with the
//! reserved wake message), or another task it awaits finished. The host
//! does not call a script whose tasks are all waiting, so sleeping tasks
//! cost nothing per frame.
//!
//! The SDK does not use wit-bindgen's own async support: that needs the
//! component model's async ABI, which the host leaves off because it makes
//! every host-to-guest call about three times dearer, and its `spawn`
//! returns no handle that could cancel the task.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;

use async_task::{Builder, Runnable};

/// A handle to a spawned task; await it for the task's result.
///
/// Dropping the handle cancels the task (its future is dropped, which
/// withdraws its timers, event waits, motions and job requests on the host).
/// [`Task::detach`] lets the task run on without a handle;
/// [`Task::cancel`] cancels it and returns its result if it had finished.
/// The metadata is the task's number, as the host shows it in wait
/// listings.
pub type Task<T> = async_task::Task<T, u32>;

/// The executor's state: the run queue and the task being polled. (The
/// waits registered with the host are `wait`'s, which asks this module
/// for the current task; nothing here knows about waits.)
pub(crate) struct Executor {
    /// Tasks woken and not yet polled, in wake order.
    ready: RefCell<VecDeque<Runnable<u32>>>,
    /// Number of the task being polled; 0 outside any task.
    current: Cell<u32>,
    /// Numbers handed out so far.
    numbered: Cell<u32>,
    /// Tasks spawned and not yet finished or cancelled.
    live: Cell<usize>,
}

thread_local! {
    static EXECUTOR: Executor = const {
        Executor {
            ready: RefCell::new(VecDeque::new()),
            current: Cell::new(0),
            numbered: Cell::new(0),
            live: Cell::new(0),
        }
    };
}

/// Runs `f` with the script's executor.
fn with<R>(f: impl FnOnce(&Executor) -> R) -> R {
    EXECUTOR.with(f)
}

/// Counts a task as live from spawn until its future is dropped (finished
/// or cancelled, polled or not).
struct Live;

impl Live {
    fn new() -> Self {
        with(|ex| ex.live.set(ex.live.get() + 1));
        Live
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // The thread-local may be gone when the instance is torn down.
        let _ = EXECUTOR.try_with(|ex| ex.live.set(ex.live.get() - 1));
    }
}

/// Starts `future` as a task. It is first polled before the current
/// `entrypoint` or `on_message` returns to the host.
pub fn spawn<F>(future: F) -> Task<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let number = with(|ex| {
        let number = ex.numbered.get().wrapping_add(1).max(1);
        ex.numbered.set(number);
        number
    });
    let live = Live::new();
    let future = async move {
        let _live = live;
        future.await
    };
    let schedule = |runnable: Runnable<u32>| with(|ex| ex.ready.borrow_mut().push_back(runnable));
    let (runnable, task) = Builder::new()
        .metadata(number)
        .spawn_local(move |_| future, schedule);
    runnable.schedule();
    task
}

/// Number of tasks alive (spawned, not finished or cancelled).
pub fn task_count() -> usize {
    with(|ex| ex.live.get())
}

/// The number of the task being polled right now; 0 outside any task.
pub(crate) fn current_task() -> u32 {
    with(|ex| ex.current.get())
}

/// Polls every ready task until none is ready. Called by the export macro
/// after `entrypoint` and after each `on-message`; inlined there, so a
/// call with no task to run costs one check.
#[inline]
pub fn run_until_stalled() {
    if with(|ex| ex.ready.borrow().is_empty()) {
        return;
    }
    run_ready();
}

/// The loop of [`run_until_stalled`].
#[inline(never)]
fn run_ready() {
    while let Some(runnable) = with(|ex| ex.ready.borrow_mut().pop_front()) {
        let number = *runnable.metadata();
        let outer = with(|ex| ex.current.replace(number));
        runnable.run();
        with(|ex| ex.current.set(outer));
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use futures::channel::oneshot;

    use super::*;

    /// Sets its flag when dropped: shows that a task's future was dropped.
    struct DropFlag(Rc<Cell<bool>>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    #[test]
    fn tasks_run_when_woken_and_hand_their_value_to_awaiters() {
        let (tx, rx) = oneshot::channel::<u32>();
        let producer = spawn(async move { rx.await.unwrap() * 2 });
        let seen = Rc::new(Cell::new(0));
        let sink = seen.clone();
        spawn(async move { sink.set(producer.await) }).detach();
        run_until_stalled();
        assert_eq!(task_count(), 2);
        assert_eq!(seen.get(), 0);
        tx.send(21).unwrap();
        run_until_stalled();
        assert_eq!(seen.get(), 42);
        assert_eq!(task_count(), 0);
    }

    #[test]
    fn dropping_or_cancelling_a_task_drops_its_future() {
        let dropped = Rc::new(Cell::new(false));
        let flag = DropFlag(dropped.clone());
        let (_tx, rx) = oneshot::channel::<()>();
        let task = spawn(async move {
            let _flag = flag;
            let _ = rx.await;
        });
        run_until_stalled();
        assert_eq!(task_count(), 1);
        drop(task);
        run_until_stalled();
        assert!(dropped.get());
        assert_eq!(task_count(), 0);

        let (_tx, rx) = oneshot::channel::<()>();
        let pending = spawn(async move {
            let _ = rx.await;
        });
        let result = Rc::new(Cell::new(Some(())));
        let out = result.clone();
        spawn(async move { out.set(pending.cancel().await) }).detach();
        run_until_stalled();
        assert_eq!(result.get(), None, "an unfinished task yields no value");
        assert_eq!(task_count(), 0);
    }

    #[test]
    fn tasks_are_numbered_and_see_their_number_while_polled() {
        let first = spawn(async { current_task() });
        let second = spawn(async { current_task() });
        assert_ne!(first.metadata(), second.metadata());
        let numbers = Rc::new(Cell::new((0, 0)));
        let out = numbers.clone();
        let expected = (*first.metadata(), *second.metadata());
        spawn(async move { out.set((first.await, second.await)) }).detach();
        run_until_stalled();
        assert_eq!(numbers.get(), expected);
        assert_eq!(current_task(), 0);
    }
}
