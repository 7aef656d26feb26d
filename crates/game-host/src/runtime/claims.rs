//! [`Claims`]: how a frame's worker takes its tasks from the counter all
//! workers share, a run of a few at a time. Taking them one at a time
//! cost two atomic operations per task on a cache line the workers pass
//! back and forth: with 10,000 one-call tasks on 2 threads, about a sixth
//! of the frame. A run keeps a worker's tasks in increasing order, so
//! turns ([`Turns`]) and the merge of writes in task order hold as before.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::guest::turns::Turns;

/// The longest run a worker claims at once. Runs shrink as the frame's
/// tasks run out (a quarter of each worker's share of what is left), so
/// the last ones are still shared out one by one; and where tasks wait for
/// their turns ([`Turns::waits_seen`]) runs are one task, since a task
/// waiting in a run holds back the rest of it, which no other worker may
/// take.
const MOST: usize = 32;

/// The run of tasks one worker has claimed and not yet begun.
#[derive(Default)]
pub(super) struct Claims {
    next: usize,
    end: usize,
}

impl Claims {
    /// Worker `worker`'s next task of the `count` in the frame, claimed
    /// from `counter` when its run is spent, and said on `turns` before it
    /// begins; an index of `count` or more when none is left.
    pub fn take(
        &mut self,
        counter: &AtomicUsize,
        count: usize,
        turns: &Turns,
        worker: usize,
    ) -> usize {
        if self.next < self.end {
            let index = self.next;
            self.next += 1;
            turns.at(worker, index);
            return index;
        }
        // The lowest index this worker can get, said before taking it: a
        // task's turn must never come while an earlier one may yet start.
        let seen = counter.load(Ordering::SeqCst);
        turns.at(worker, seen);
        let run = match turns.waits_seen() {
            true => 1,
            false => (count.saturating_sub(seen) / (turns.places() * 4)).clamp(1, MOST),
        };
        let first = counter.fetch_add(run, Ordering::SeqCst);
        if first < count {
            turns.at(worker, first);
            (self.next, self.end) = (first + 1, (first + run).min(count));
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_workers_take_every_task_once_each_in_increasing_order() {
        let (counter, turns, count) = (AtomicUsize::new(0), Turns::new(2), 1_000);
        let mut taken: [Vec<usize>; 2] = Default::default();
        let mut claims: [Claims; 2] = Default::default();
        // Alternate the workers, as two threads might.
        'frame: loop {
            for worker in 0..2 {
                let index = claims[worker].take(&counter, count, &turns, worker);
                if index >= count {
                    break 'frame;
                }
                taken[worker].push(index);
            }
        }
        // The other worker drains what it claimed.
        for worker in 0..2 {
            loop {
                let index = claims[worker].take(&counter, count, &turns, worker);
                if index >= count {
                    break;
                }
                taken[worker].push(index);
            }
        }
        for list in &taken {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "out of order");
        }
        let mut all: Vec<usize> = taken.concat();
        all.sort();
        assert_eq!(all, (0..count).collect::<Vec<_>>());
        // Both workers got tasks.
        assert!(taken.iter().all(|list| !list.is_empty()));
    }

    #[test]
    fn runs_are_long_at_first_short_at_the_end_and_single_after_a_wait() {
        let (counter, turns, count) = (AtomicUsize::new(0), Turns::new(2), 1_000);
        let mut claims = Claims::default();
        // Each run's length, as the shared counter moves.
        let (mut runs, mut seen) = (Vec::new(), 0);
        while claims.take(&counter, count, &turns, 0) < count {
            let now = counter.load(Ordering::SeqCst);
            if now != seen {
                runs.push(now - seen);
                seen = now;
            }
        }
        assert_eq!(runs.first(), Some(&MOST));
        assert_eq!(runs.last(), Some(&1));
        assert_eq!(runs.iter().sum::<usize>(), count);
        // A wait for a turn in this frame: one at a time from then on.
        turns.begin();
        let (counter, mut claims) = (AtomicUsize::new(0), Claims::default());
        turns.at(1, 0); // worker 1 on task 0
        turns.at(0, 5);
        std::thread::scope(|scope| {
            scope.spawn(|| turns.wait_for(5));
            std::thread::sleep(std::time::Duration::from_millis(20));
            turns.idle(1);
        });
        assert!(turns.waits_seen());
        claims.take(&counter, count, &turns, 0);
        assert_eq!(counter.load(Ordering::SeqCst), 1, "a run of one task");
        // Still in the next frame, not in the one after.
        turns.begin();
        assert!(turns.waits_seen());
        turns.begin();
        assert!(!turns.waits_seen());
    }
}
