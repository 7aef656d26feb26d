//! [`Usage`]: what one instance holds on the host or has asked for, against
//! its [`Quotas`], and the one way it grows, [`Usage::charge`]. Every quota
//! a script can exceed by asking (requests per call, pending waits, update
//! subscriptions, messages per frame, entities, transform handles) is
//! checked here and only here, with its error; the store data and the host
//! implementations charge before they act, so a flood traps inside the
//! call that floods, before the host keeps anything. Log lines and queued
//! wakes are budgets the host keeps by dropping, not by failing the script
//! (the log identity, `ScriptState::push_wake`).

use crate::limits::Quotas;

/// One thing a script asks for that a quota bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charge {
    /// A request to the runtime in this call, with `queued` made already.
    Request { queued: usize },
    /// A wait registered (a timer, an event wait or listener, a motion, a
    /// job request).
    Wait,
    /// A wait withdrawn (cancelled).
    WaitWithdrawn,
    /// An update subscription made.
    Subscription,
    /// An update subscription withdrawn.
    Unsubscription,
    /// A message sent in frame `frame`.
    Message { frame: u64 },
    /// Entities spawned.
    Entities(u64),
    /// A transform handle handed to the script, with `held` held already.
    Handle { held: usize },
}

/// What an instance holds on the host, for its quotas: counts the runtime
/// knew when the current call began, plus what the calls since its commands
/// were last applied asked for.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Usage {
    /// Pending waits, as the runtime counted them.
    pub known_waits: usize,
    /// Subscriptions, as the runtime counted them.
    pub known_subscriptions: usize,
    /// Waits registered minus waits cancelled since the last apply.
    new_waits: i64,
    /// Subscribes minus unsubscribes since the last apply.
    new_subscriptions: i64,
    /// Messages sent in `sent_frame`.
    sent: usize,
    sent_frame: u64,
    /// Entities spawned over the instance's life.
    entities: u64,
}

impl Usage {
    /// Counts `charge`, or fails (naming the quota) when it would take the
    /// instance past `quotas`; a failed charge counts nothing.
    pub fn charge(&mut self, quotas: &Quotas, charge: Charge) -> wasmtime::Result<()> {
        let exceeded = |what: &str, limit: u64| {
            Err(wasmtime::format_err!(
                "quota exceeded: more than {limit} {what}"
            ))
        };
        match charge {
            Charge::Request { queued } if queued >= quotas.requests_per_call => {
                return exceeded(
                    "requests to the host in one frame",
                    quotas.requests_per_call as u64,
                );
            }
            Charge::Request { .. } => {}
            Charge::Wait => {
                if self.known_waits as i64 + self.new_waits + 1 > quotas.waits as i64 {
                    return exceeded("pending waits", quotas.waits as u64);
                }
                self.new_waits += 1;
            }
            Charge::WaitWithdrawn => self.new_waits -= 1,
            Charge::Subscription => {
                if self.known_subscriptions as i64 + self.new_subscriptions + 1
                    > quotas.subscriptions as i64
                {
                    return exceeded("update subscriptions", quotas.subscriptions as u64);
                }
                self.new_subscriptions += 1;
            }
            Charge::Unsubscription => self.new_subscriptions -= 1,
            Charge::Message { frame } => {
                let sent = if self.sent_frame == frame {
                    self.sent
                } else {
                    0
                };
                if sent + 1 > quotas.messages_per_frame {
                    return exceeded(
                        "messages sent in one frame",
                        quotas.messages_per_frame as u64,
                    );
                }
                self.sent_frame = frame;
                self.sent = sent + 1;
            }
            Charge::Entities(count) => {
                if self.entities + count > quotas.entities {
                    return exceeded("entities spawned", quotas.entities);
                }
                self.entities += count;
            }
            Charge::Handle { held } if held >= quotas.handles => {
                return exceeded(
                    "transform-component handles held at once",
                    quotas.handles as u64,
                );
            }
            Charge::Handle { .. } => {}
        }
        Ok(())
    }

    /// Forgets the per-apply counts once the runtime took the commands.
    pub fn commands_taken(&mut self) {
        self.new_waits = 0;
        self.new_subscriptions = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_quota_fails_one_past_its_limit_and_a_failed_charge_counts_nothing() {
        let quotas = Quotas {
            waits: 2,
            subscriptions: 1,
            messages_per_frame: 1,
            entities: 3,
            handles: 1,
            requests_per_call: 5,
            ..Quotas::default()
        };
        let mut usage = Usage::default();
        usage.charge(&quotas, Charge::Wait).unwrap();
        usage.charge(&quotas, Charge::Wait).unwrap();
        let error = usage.charge(&quotas, Charge::Wait).unwrap_err();
        assert_eq!(
            error.to_string(),
            "quota exceeded: more than 2 pending waits"
        );
        usage.charge(&quotas, Charge::WaitWithdrawn).unwrap();
        usage.charge(&quotas, Charge::Wait).unwrap();

        usage.charge(&quotas, Charge::Subscription).unwrap();
        assert!(usage.charge(&quotas, Charge::Subscription).is_err());
        usage.commands_taken();
        usage.known_subscriptions = 1;
        assert!(usage.charge(&quotas, Charge::Subscription).is_err());

        usage.charge(&quotas, Charge::Message { frame: 7 }).unwrap();
        assert!(usage.charge(&quotas, Charge::Message { frame: 7 }).is_err());
        usage.charge(&quotas, Charge::Message { frame: 8 }).unwrap();

        usage.charge(&quotas, Charge::Entities(2)).unwrap();
        let error = usage.charge(&quotas, Charge::Entities(2)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "quota exceeded: more than 3 entities spawned"
        );
        usage.charge(&quotas, Charge::Entities(1)).unwrap();

        usage.charge(&quotas, Charge::Handle { held: 0 }).unwrap();
        assert!(usage.charge(&quotas, Charge::Handle { held: 1 }).is_err());
        usage
            .charge(&quotas, Charge::Request { queued: 4 })
            .unwrap();
        assert!(
            usage
                .charge(&quotas, Charge::Request { queued: 5 })
                .is_err()
        );
    }
}
