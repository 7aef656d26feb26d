//! The restart policy: an instance that fails can be started again from
//! its component, with fresh state and the same id, after a backoff in
//! frames that doubles with each restart, up to a limit; then it stays down.
//! [`Restarts`] keeps the restarts waiting for their frame; the runtime
//! starts them.

use uuid::Uuid;

use crate::guest::engine::ScriptComponent;
use crate::guest::instance::ScriptInstance;
use crate::scene::EntityId;

/// What happens to an instance that fails (traps, runs past its deadline,
/// exceeds a limit or a quota).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restarts allowed per instance; 0 (the default) leaves a failed
    /// instance down.
    pub max_restarts: u32,
    /// Frames from the failure to the first restart; each further restart
    /// waits twice as long as the one before.
    pub backoff_frames: u64,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            max_restarts: 0,
            backoff_frames: 30,
        }
    }
}

/// A restart waiting for its frame.
pub(super) struct Restart {
    pub id: Uuid,
    pub component: ScriptComponent,
    /// The entities the failed instance spawned: the restart's own.
    pub spawned: Vec<EntityId>,
    /// Which restart this is: 1 for the first.
    pub attempt: u32,
    /// The frame boundary it happens at (before frame `due + 1`).
    due: u64,
}

/// The restarts waiting for their frame, under one policy.
pub(super) struct Restarts {
    policy: RestartPolicy,
    pending: Vec<Restart>,
}

impl Restarts {
    pub fn new(policy: RestartPolicy) -> Self {
        Restarts {
            policy,
            pending: Vec::new(),
        }
    }

    /// Schedules a restart of `failed`, which failed in frame `frame`, if
    /// the policy allows another one.
    pub fn schedule(&mut self, failed: &ScriptInstance, frame: u64) {
        let policy = self.policy;
        let attempt = failed.restarts() + 1;
        let name = failed.component().name();
        if attempt > policy.max_restarts {
            if policy.max_restarts > 0 {
                tracing::error!(
                    target: "host",
                    "script `{name}` ({}) failed after {} restart(s); leaving it disabled",
                    failed.id(),
                    policy.max_restarts
                );
            }
            return;
        }
        let backoff = policy
            .backoff_frames
            .saturating_mul(1u64 << (attempt - 1).min(32));
        let due = frame.saturating_add(backoff);
        tracing::warn!(
            target: "host",
            "script `{name}` ({}) will restart at frame {} (restart {attempt} of {})",
            failed.id(),
            due + 1,
            policy.max_restarts
        );
        self.pending.push(Restart {
            id: failed.id(),
            component: failed.component().clone(),
            spawned: failed.spawned_entities(),
            attempt,
            due,
        });
    }

    /// Takes a restart due at the boundary after frame `frame`, and says
    /// it is starting.
    pub fn take_due(&mut self, frame: u64) -> Option<Restart> {
        let at = self.pending.iter().position(|r| r.due <= frame)?;
        let restart = self.pending.swap_remove(at);
        tracing::warn!(
            target: "host",
            "restarting script `{}` ({}) with fresh state (restart {} of {})",
            restart.component.name(),
            restart.id,
            restart.attempt,
            self.policy.max_restarts
        );
        Some(restart)
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether instance `id` waits for a restart.
    pub fn contains(&self, id: Uuid) -> bool {
        self.pending.iter().any(|r| r.id == id)
    }
}
