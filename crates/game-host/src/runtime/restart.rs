//! The restart policy: an instance that fails can be started again from
//! its component, with fresh state and the same id, after a backoff in
//! frames that doubles with each restart, up to a limit; then it stays down.

use uuid::Uuid;

use super::Runtime;
use crate::guest::engine::ScriptComponent;
use crate::guest::instance::ScriptInstance;

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
    id: Uuid,
    component: ScriptComponent,
    /// Which restart this is: 1 for the first.
    attempt: u32,
    /// The frame boundary it happens at (before frame `due + 1`).
    due: u64,
}

impl Restart {
    /// The instance that restarts.
    pub(super) fn id(&self) -> Uuid {
        self.id
    }
}

impl Runtime {
    /// Schedules a restart of `failed` if the policy allows another one.
    pub(super) fn schedule_restart(&mut self, failed: &ScriptInstance) {
        let policy = self.restart_policy;
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
        let due = self.frame().saturating_add(backoff);
        tracing::warn!(
            target: "host",
            "script `{name}` ({}) will restart at frame {} (restart {attempt} of {})",
            failed.id(),
            due + 1,
            policy.max_restarts
        );
        self.restarts.push(Restart {
            id: failed.id(),
            component: failed.component().clone(),
            attempt,
            due,
        });
    }

    /// Starts the restarts due at this frame boundary.
    pub(super) fn run_due_restarts(&mut self) {
        let now = self.shared.clock.now();
        let mut index = 0;
        while index < self.restarts.len() {
            if self.restarts[index].due > now.frame {
                index += 1;
                continue;
            }
            let restart = self.restarts.swap_remove(index);
            let mut instance = match self.instantiate(&restart.component, Some(restart.id)) {
                Ok(instance) => instance,
                Err(error) => {
                    tracing::error!(target: "host", "restart failed: {error:#}");
                    continue;
                }
            };
            instance.set_restarts(restart.attempt);
            tracing::warn!(
                target: "host",
                "restarting script `{}` ({}) with fresh state (restart {} of {})",
                restart.component.name(),
                restart.id,
                restart.attempt,
                self.restart_policy.max_restarts
            );
            if let Err(failed) = self.start(instance) {
                self.schedule_restart(&failed.0);
            }
        }
    }
}
