//! Applying what scripts asked for during a call: the deferred
//! [`Command`]s, turned into subscriptions, waits, messages and jobs.

use super::Runtime;
use super::waits::{Wait, WaitKey};
use crate::guest::Command;
use crate::input::Event;
use crate::{ScriptError, ScriptExport};

impl Runtime {
    /// Applies the commands the instance in `slot` made since the last time.
    pub(super) fn apply_commands_of(&mut self, slot: u32) {
        let Some(instance) = self.slots.get_mut(slot) else {
            return;
        };
        if !instance.has_commands() {
            return;
        }
        // Swap buffers with the instance: no allocation per frame.
        let mut commands = std::mem::take(&mut self.command_buffer);
        instance.swap_commands(&mut commands);
        let now = self.shared.clock.now().frame;
        // Scripts to stop for a quota, each once (the frame's biggest
        // sender to players, this one past the views' caps).
        let mut over_budget: Vec<(u32, String)> = Vec::new();
        for command in commands.drain(..) {
            match command {
                Command::Subscribe(id) => self.subscriptions.subscribe(slot, id),
                Command::Unsubscribe(id) => self.subscriptions.unsubscribe(slot, id),
                Command::WaitFrames { token, frames } => {
                    let due = now + u64::from(frames.max(1));
                    self.waits.add_timer((slot, token), now, due);
                }
                Command::WaitSeconds { token, seconds } => {
                    let frames = (seconds / self.shared.clock.dt() - 1e-9).ceil();
                    let frames = if frames >= 1.0 {
                        frames.min(1e15) as u64
                    } else {
                        1
                    };
                    self.waits.add_timer((slot, token), now, now + frames);
                }
                Command::Cancel(token) => self.cancel_wait((slot, token)),
                Command::WaitEvent {
                    token,
                    filter,
                    persistent,
                } => self.waits.add_event((slot, token), filter, persistent),
                Command::Send(message) => self
                    .events
                    .schedule_message(now + 1, Event::Message(message)),
                Command::MoveTo {
                    token,
                    entity,
                    target,
                    speed,
                } => self.waits.add_motion((slot, token), entity, target, speed),
                Command::ListenPlayers(token) => self.waits.add_players((slot, token)),
                Command::ToPlayers { to, message } => {
                    let bytes = message.channel.len() + message.payload.len();
                    let budget = self.player_bytes_per_frame;
                    match self.outbox.charge(now, slot, bytes, budget) {
                        Ok(()) => self.send_to_players(to, message),
                        // Past the budget: the message is dropped, and the
                        // frame's biggest sender stopped.
                        Err(over) => {
                            if let Some(stop) = over.stop {
                                over_budget.push((stop, over.cause));
                                if stop == slot {
                                    // Nothing more it asked for is done.
                                    break;
                                }
                            }
                        }
                    }
                }
                Command::View(change) => {
                    // Past a cap: the script is stopped, as for any quota.
                    if let Err(cause) = self.views.apply(change) {
                        over_budget.push((slot, cause));
                        break;
                    }
                }
                Command::Job { token, kind, key } => {
                    // A reused token replaces the older wait, job included.
                    self.cancel_wait((slot, token));
                    match self.jobs.request((slot, token), kind, key) {
                        Ok(job) => self.waits.add_job((slot, token), kind, job),
                        Err(error) => tracing::error!(target: "host", "{error:#}"),
                    }
                }
            }
        }
        commands.clear();
        self.command_buffer = commands;
        for (stop, cause) in over_budget {
            self.stop(stop, cause);
        }
    }

    /// Withdraws one wait, and its job request if it is one.
    pub(super) fn cancel_wait(&mut self, key: WaitKey) {
        if let Some(Wait::Job { kind, job }) = self.waits.cancel(key) {
            self.jobs.withdraw(key, kind, job);
        }
    }

    /// Withdraws everything the instance in `slot` holds on the host: its
    /// subscriptions and its waits (job requests included).
    pub(super) fn release_host_state(&mut self, slot: u32) {
        self.subscriptions.remove_slot(slot);
        for (key, wait) in self.waits.remove_slot(slot) {
            if let Wait::Job { kind, job } = wait {
                self.jobs.withdraw(key, kind, job);
            }
        }
    }

    /// Stops the instance in `slot` for `cause` (a quota it went past while
    /// its commands were applied), as a failed call stops one: the error is
    /// recorded, naming it, and it restarts if the policy says so.
    fn stop(&mut self, slot: u32, cause: String) {
        let frame = self.frame();
        let Some(mut stopped) = self.slots.take(slot) else {
            return;
        };
        self.record(ScriptError {
            script: stopped.name().to_owned(),
            instance: stopped.id(),
            export: ScriptExport::OnUpdate,
            frame,
            cause,
            guest_stderr: None,
            backtrace: None,
        });
        self.keep_profile(&mut stopped);
        self.restarts.schedule(&stopped, frame);
        self.release_host_state(slot);
    }
}
