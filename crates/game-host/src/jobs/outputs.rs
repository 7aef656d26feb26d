//! [`JobOutputs`]: the bounded cache of one job kind's finished outputs.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, RwLock};

use super::Job;
use crate::sync::RwLockExt;

/// Finished outputs of job kind `J`, shared between the runtime (which
/// fills it) and script instances (which read it). Holds at most a fixed
/// number of outputs; the oldest are evicted first.
pub struct JobOutputs<J: Job> {
    capacity: usize,
    inner: RwLock<Inner<J>>,
}

struct Inner<J: Job> {
    outputs: HashMap<J::Key, Arc<J::Output>>,
    order: VecDeque<J::Key>,
}

impl<J: Job> JobOutputs<J> {
    /// An empty cache holding at most `capacity` outputs.
    pub fn new(capacity: usize) -> Self {
        JobOutputs {
            capacity: capacity.max(1),
            inner: RwLock::new(Inner {
                outputs: HashMap::new(),
                order: VecDeque::new(),
            }),
        }
    }

    /// The output for `key`, if it is done and still kept.
    pub fn get(&self, key: &J::Key) -> Option<Arc<J::Output>> {
        self.inner.read_unpoisoned().outputs.get(key).cloned()
    }

    /// Whether the output for `key` is kept.
    pub fn contains(&self, key: &J::Key) -> bool {
        self.inner.read_unpoisoned().outputs.contains_key(key)
    }

    /// Keeps an output, evicting the oldest beyond the capacity.
    pub fn insert(&self, key: J::Key, output: J::Output) {
        let mut inner = self.inner.write_unpoisoned();
        if inner
            .outputs
            .insert(key.clone(), Arc::new(output))
            .is_none()
        {
            inner.order.push_back(key);
        }
        while inner.order.len() > self.capacity {
            if let Some(old) = inner.order.pop_front() {
                inner.outputs.remove(&old);
            }
        }
    }

    /// Number of outputs kept.
    pub fn len(&self) -> usize {
        self.inner.read_unpoisoned().outputs.len()
    }

    /// Whether no output is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Square;

    impl Job for Square {
        type Key = u32;
        type Output = u64;
        const NAME: &'static str = "square";

        fn run(&self, key: &u32) -> u64 {
            u64::from(*key).pow(2)
        }
    }

    #[test]
    fn evicts_oldest_beyond_capacity() {
        let outputs = JobOutputs::<Square>::new(3);
        for n in 0..5 {
            outputs.insert(n, Square.run(&n));
        }
        assert_eq!(outputs.len(), 3);
        assert!(!outputs.contains(&1));
        assert_eq!(outputs.get(&4).as_deref(), Some(&16));
    }
}
