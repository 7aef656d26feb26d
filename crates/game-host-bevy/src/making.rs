//! [`Making`]: the instances a host's steps asked for, made on the
//! background queue (`game_host::background::queue`), away from the step:
//! each new script's, and each swapped script's new version. A step hands
//! over what it planned ([`Making::queue`]); a later step takes what is
//! ready ([`Making::next_ready`]), a plan's at a time, in the order the
//! plans came.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use anyhow::{Result, anyhow};
use bevy::prelude::Entity;
use game_host::runtime::{Prepared, Preparing};

/// What an instance is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// A script's start.
    Start,
    /// A running script's new version.
    Swap,
}

/// An instance for an entity's script, the step numbered `number` asked
/// for, ready (or why it could not be made).
pub(crate) struct Made {
    pub entity: Entity,
    pub number: u64,
    pub purpose: Purpose,
    pub prepared: Result<Prepared>,
}

/// An instance to make: for an entity's script, numbered, for a purpose.
pub(crate) type Order = (Entity, u64, Purpose, Preparing);

/// Instances being made, a plan's at a time.
#[derive(Default)]
pub(crate) struct Making {
    plans: VecDeque<Plan>,
    /// Instances asked for so far: each one's number tells it from one
    /// asked for the same entity earlier.
    asked: u64,
}

/// The instances of one plan.
struct Plan {
    /// Each one's entity, number and purpose, in the order asked.
    scripts: Vec<(Entity, u64, Purpose)>,
    /// Each one, or why it could not be made, in that order.
    built: Receiver<Vec<Result<Prepared>>>,
}

impl Making {
    /// A number for the next instance asked for.
    pub(crate) fn number(&mut self) -> u64 {
        self.asked += 1;
        self.asked
    }

    /// Has `orders` made on the background queue, one after another.
    pub(crate) fn queue(&mut self, orders: Vec<Order>) {
        if orders.is_empty() {
            return;
        }
        let scripts = orders.iter().map(|&(e, n, p, _)| (e, n, p)).collect();
        let (sender, built) = channel();
        game_host::background::queue(move || {
            let built = orders
                .into_iter()
                .map(|(.., order)| order.build())
                .collect();
            // The host may be gone: then so are its scripts.
            let _ = sender.send(built);
        });
        self.plans.push_back(Plan { scripts, built });
    }

    /// The instances of the oldest plan, once all are made.
    pub(crate) fn next_ready(&mut self) -> Option<Vec<Made>> {
        let plan = self.plans.front()?;
        let built = match plan.built.try_recv() {
            Ok(built) => built,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => plan
                .scripts
                .iter()
                .map(|_| Err(anyhow!("its instance was lost while it was being made")))
                .collect(),
        };
        let plan = self.plans.pop_front()?;
        let made = plan.scripts.into_iter().zip(built);
        Some(
            made.map(|((entity, number, purpose), prepared)| Made {
                entity,
                number,
                purpose,
                prepared,
            })
            .collect(),
        )
    }
}
