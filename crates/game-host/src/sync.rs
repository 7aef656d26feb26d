//! Locks that survive a panic elsewhere. A leaf: every layer may use it.
//!
//! The host keeps running when a thread panicked while holding a lock (a
//! panicking log sink, a worker that died): the data is taken as that panic
//! left it, which for every lock here is a consistent value.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locking that ignores poisoning.
pub trait LockExt<T: ?Sized> {
    /// The guard, whether or not another thread panicked holding the lock.
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> LockExt<T> for Mutex<T> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Read and write locking that ignores poisoning.
pub trait RwLockExt<T: ?Sized> {
    /// A read guard, whether or not a writer panicked.
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T>;
    /// A write guard, whether or not a writer panicked.
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockExt<T> for RwLock<T> {
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_still_locks() {
        let lock = std::sync::Arc::new(Mutex::new(1));
        let held = lock.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poison it");
        })
        .join();
        assert!(lock.is_poisoned());
        *lock.lock_unpoisoned() += 1;
        assert_eq!(*lock.lock_unpoisoned(), 2);
    }
}
