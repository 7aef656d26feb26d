//! [`ScriptState`]: the data each script instance's `Store` holds: its
//! identity, WASI context, resource table, the commands and wakes it has
//! pending, its quotas and usage, and the job API extensions call.

mod access;
pub(crate) mod view;

use std::sync::Arc;
use std::time::Duration;

use uuid::Uuid;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::determinism::seed_wasi;
use crate::grants::Grants;
use crate::guest::bindings::runtime::FrameClock as WitFrameClock;
use crate::guest::bindings::tasks::Wake;
use crate::guest::command::Command;
use crate::guest::deadline::CallDeadline;
use crate::guest::entity_guard::EntityGuard;
use crate::guest::limiter::ScriptLimiter;
use crate::guest::live::LiveSources;
use crate::guest::pending::PendingWrites;
use crate::guest::players::PlayerInbox;
use crate::guest::profile::ScriptProfile;
use crate::guest::shared::RuntimeShared;
use crate::guest::turns::Turns;
use crate::guest::usage::{Charge, Usage};
use crate::input::PlayerEvent;
use crate::input::{Event, EventFilter};
use crate::jobs::{ErasedKey, Job, JobRegistry};
use crate::limits::{Quotas, ScriptLimits};
use crate::log::{LogLevel, LogSource, ScriptIdentity, ScriptStdio};
use crate::scene::SharedScene;
use crate::time::{FrameClock, FrameTime};

/// Host-side count of an instance's `transform-component` handles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandleStats {
    /// Handles handed to the guest so far.
    pub created: u64,
    /// Handles the guest holds now.
    pub live: usize,
    /// Highest `ResourceTable` index ever handed out; stays small when
    /// dropped handles are really deleted (their slots are reused).
    pub highest_index: u32,
}

/// `Store` data of one script instance. The host implementation of every
/// WIT interface is a trait implemented on it (the `imports` module;
/// extensions such as terrain add their own).
pub struct ScriptState {
    pub(crate) identity: Arc<ScriptIdentity>,
    pub(crate) table: ResourceTable,
    pub(crate) wasi: WasiCtx,
    /// The runtime's frame clock (see [`Self::now`]).
    pub(crate) clock: FrameClock,
    /// The scene: private, so that only this module and its children reach
    /// it, and the host functions only through `view`, with a proof of the
    /// grants made by `access`.
    scene: SharedScene,
    /// Commands made since they were last applied.
    pub(crate) commands: Vec<Command>,
    /// Completed waits not yet delivered to the script.
    pub(crate) wakes: Vec<Wake>,
    /// Whether wakes were dropped because the script never took them.
    wakes_dropped: bool,
    jobs: Arc<JobRegistry>,
    /// Host-side bookkeeping of live resource handles.
    pub(crate) handles: HandleStats,
    /// Calls made into the instance (entrypoint, updates, wakes).
    pub(crate) calls: u64,
    /// Refuses memory and table growth past the script's limits.
    pub(crate) limiter: ScriptLimiter,
    /// The CPU budget of the call under way.
    pub(crate) deadline: CallDeadline,
    pub(crate) quotas: Quotas,
    pub(crate) usage: Usage,
    /// A live Python or JavaScript script's sources, which its runtime
    /// component reads (`game:live/sources`).
    pub(crate) live: Option<Arc<LiveSources>>,
    /// The world's players, and the player events not yet taken.
    pub(crate) players: PlayerInbox,
    /// What the instance may do (its component's grants).
    pub(crate) grants: Arc<Grants>,
    /// Which entities it may change.
    pub(crate) writes: EntityGuard,
    /// Which entities it may read.
    pub(crate) reads: EntityGuard,
    /// Its profile, while it is profiled.
    pub(crate) profile: Option<Box<ScriptProfile>>,
    /// Its scene writes during a frame's dispatch (see `guest::store::view`).
    pub(crate) pending: PendingWrites,
    /// Where the runtime's frame workers are, and this instance's place in
    /// the frame being dispatched (`None` outside a dispatch).
    pub(crate) turns: Arc<Turns>,
    pub(crate) task: Option<usize>,
}

impl ScriptState {
    /// Store data for an instance of script `name` with a locked-down WASI
    /// context: no preopened directories, no environment, no network;
    /// stdout and stderr go to the log; clocks read game time and random
    /// numbers come from the world's seed and `ordinal`, the instance's
    /// place among those of its runtime ([`RuntimeShared::next_ordinal`]).
    /// `id` is given when a hot-swap keeps the old instance's id.
    pub(crate) fn new(
        name: Arc<str>,
        id: Option<Uuid>,
        shared: &RuntimeShared,
        ordinal: u64,
    ) -> Self {
        let identity = Arc::new(ScriptIdentity::new(
            name,
            id.unwrap_or_else(Uuid::now_v7),
            shared.log.clone(),
            shared.clock.clone(),
            shared.quotas,
        ));
        let mut wasi = WasiCtxBuilder::new();
        wasi.stdout(ScriptStdio::stdout(identity.clone()))
            .stderr(ScriptStdio::stderr(identity.clone()));
        seed_wasi(&mut wasi, &shared.clock, shared.seed, ordinal);
        let wasi = wasi.build();
        ScriptState {
            identity,
            table: ResourceTable::new(),
            wasi,
            clock: shared.clock.clone(),
            scene: shared.scene.clone(),
            commands: Vec::new(),
            wakes: Vec::new(),
            wakes_dropped: false,
            jobs: shared.jobs.clone(),
            handles: HandleStats::default(),
            calls: 0,
            limiter: ScriptLimiter::default(),
            deadline: CallDeadline::new(Duration::MAX, &ScriptLimits::unlimited()),
            quotas: shared.quotas,
            usage: Usage::default(),
            live: None,
            players: PlayerInbox::new(shared.players.clone(), shared.commands.clone()),
            grants: Arc::new(Grants::all()),
            writes: EntityGuard::default(),
            reads: EntityGuard::default(),
            profile: None,
            pending: PendingWrites::default(),
            turns: shared.turns.clone(),
            task: None,
        }
    }

    /// Gives the instance `grants`: its quotas lowered, its writes checked.
    pub(crate) fn grant(&mut self, grants: &Arc<Grants>) {
        if grants.is_all() {
            return;
        }
        self.quotas = grants.quotas(self.quotas);
        self.writes = EntityGuard::new(&grants.writes);
        self.reads = EntityGuard::new(&grants.reads);
        self.grants = grants.clone();
    }

    /// Fails (a trap naming the channel) unless the instance may send on
    /// `channel`.
    pub(crate) fn may_send(&self, channel: &str) -> wasmtime::Result<()> {
        if self.grants.send.allows(channel) {
            return Ok(());
        }
        Err(wasmtime::format_err!(
            "grants: script `{}` may not send on channel `{channel}`: its grants' send allows {}",
            self.identity.name,
            self.grants.send
        ))
    }

    /// Fails (a trap naming the channel, or the keys) unless the instance
    /// may wait for or listen to what `filter` matches.
    fn may_listen(&self, filter: &EventFilter) -> wasmtime::Result<()> {
        let name = &self.identity.name;
        match filter {
            EventFilter::Message(channel) if !self.grants.listen.allows(channel) => {
                Err(wasmtime::format_err!(
                    "grants: script `{name}` may not listen to channel `{channel}`: its grants' \
                     listen allows {}",
                    self.grants.listen
                ))
            }
            EventFilter::KeyPressed(_)
            | EventFilter::KeyReleased(_)
            | EventFilter::AnyKeyPressed
                if !self.grants.keys =>
            {
                Err(wasmtime::format_err!(
                    "grants: script `{name}` may not read key input: its grants say keys = false"
                ))
            }
            _ => Ok(()),
        }
    }

    /// The frame being dispatched (every call of a frame reads the same).
    #[inline]
    pub(crate) fn now(&self) -> FrameTime {
        self.clock.now()
    }

    /// The frame being dispatched, as the WIT record scripts get.
    #[inline]
    pub(crate) fn frame_clock(&self) -> WitFrameClock {
        let time = self.now();
        WitFrameClock {
            frame: time.frame,
            delta_time: time.delta,
            time: time.time,
        }
    }

    /// Takes the wakes queued for the script (for `on-wake`, or 0.1's
    /// `take-wakes`).
    pub(crate) fn take_wakes(&mut self) -> Vec<Wake> {
        std::mem::take(&mut self.wakes)
    }

    /// Gives back the list [`Self::take_wakes`] took once its wakes were
    /// delivered, so the next frame's wakes reuse its allocation.
    pub(crate) fn return_wakes(&mut self, mut delivered: Vec<Wake>) {
        if self.wakes.is_empty() {
            delivered.clear();
            self.wakes = delivered;
        }
    }

    /// Queues a command for the runtime, within the instance's quotas:
    /// traps (naming the quota) when the script asks for more than it may.
    /// Charges one message to the instance's quota, as `events.send`
    /// does: a message a game takes counts as one sent to scripts.
    pub(crate) fn charge_message(&mut self) -> wasmtime::Result<()> {
        let frame = self.clock.frame();
        self.usage.charge(&self.quotas, Charge::Message { frame })
    }

    pub(crate) fn push_command(&mut self, command: Command) -> wasmtime::Result<()> {
        match &command {
            Command::Send(message) | Command::ToPlayers { message, .. } => {
                self.may_send(&message.channel)?
            }
            Command::WaitEvent { filter, .. } => self.may_listen(filter)?,
            Command::MoveTo { entity, .. } => {
                self.may_write(*entity)?;
            }
            _ => {}
        }
        let queued = self.commands.len();
        self.usage
            .charge(&self.quotas, Charge::Request { queued })?;
        let charge = match &command {
            // Bounded by the requests a call may make, and by the views'
            // own caps.
            Command::View(_) => {
                self.commands.push(command);
                return Ok(());
            }
            Command::WaitFrames { .. }
            | Command::WaitSeconds { .. }
            | Command::WaitEvent { .. }
            | Command::MoveTo { .. }
            | Command::Job { .. }
            | Command::ListenPlayers(_) => Charge::Wait,
            Command::Cancel(_) => Charge::WaitWithdrawn,
            Command::Subscribe(_) => Charge::Subscription,
            Command::Unsubscribe(_) => Charge::Unsubscription,
            Command::Send(_) | Command::ToPlayers { .. } => Charge::Message {
                frame: self.clock.frame(),
            },
        };
        self.usage.charge(&self.quotas, charge)?;
        self.commands.push(command);
        Ok(())
    }

    /// Forgets the per-apply counts once the runtime took the commands.
    pub(crate) fn commands_taken(&mut self) {
        self.usage.commands_taken();
    }

    /// Asks for the job of kind `J` with `key`; the script's wait `token`
    /// completes at the frame boundary after it is done. For the host
    /// functions of a job kind's WIT interface. Traps (with the kind's name)
    /// if the runtime has not registered kind `J`.
    pub fn request_job<J: Job>(&mut self, token: u64, key: J::Key) -> wasmtime::Result<()> {
        if !self.grants.starts_job(J::NAME) {
            wasmtime::bail!(
                "grants: script `{}` may not start `{}` jobs: its grants' jobs leave it out",
                self.identity.name,
                J::NAME
            );
        }
        let Some(kind) = self.jobs.kind_of::<J>() else {
            wasmtime::bail!(
                "the script requested a `{}` job, but this runtime has no such job kind \
                 (registered: {:?})",
                J::NAME,
                self.jobs.names()
            );
        };
        self.push_command(Command::Job {
            token,
            kind,
            key: ErasedKey(Box::new(key)),
        })
    }

    /// The finished output of the job of kind `J` with `key`, if it is done
    /// and still kept.
    pub fn job_output<J: Job>(&self, key: &J::Key) -> Option<Arc<J::Output>> {
        self.jobs.outputs::<J>()?.get(key)
    }

    /// Queues a completed wait for the script's next `on-wake` (or 0.1's
    /// `take-wakes`); returns whether it is the first one queued since the
    /// script last got them. Wakes past the quota (a 0.1 script that never
    /// takes its wakes) are dropped, with a warning, instead of growing the
    /// host's memory.
    pub(crate) fn push_wake(&mut self, wake: Wake) -> bool {
        if self.wakes.len() >= self.quotas.queued_wakes {
            if !self.wakes_dropped {
                self.wakes_dropped = true;
                self.identity.log(
                    LogLevel::Warn,
                    LogSource::Host,
                    format!(
                        "{} completed waits queued and not yet delivered; \
                         dropping further ones",
                        self.quotas.queued_wakes
                    ),
                );
            }
            return false;
        }
        self.wakes.push(wake);
        self.wakes.len() == 1
    }

    /// Keeps player events for the script's next `take-events`; the first
    /// time older ones are dropped before it takes them, a warning says so.
    /// Players' input goes only as far as the script's grants: key presses
    /// with `keys`, messages on channels its `listen` allows (as for
    /// `events`); joins and leaves always.
    pub(crate) fn push_player_events(&mut self, events: &[PlayerEvent]) {
        let grants = &self.grants;
        let allowed = |event: &&PlayerEvent| match event {
            PlayerEvent::Input(input) => match &input.event {
                Event::KeyPressed(_) | Event::KeyReleased(_) => grants.keys,
                Event::Message(message) => grants.listen.allows(&message.channel),
            },
            _ => true,
        };
        let dropped = if events.iter().all(|event| allowed(&event)) {
            self.players.push(events)
        } else {
            let kept: Vec<PlayerEvent> = events.iter().filter(allowed).cloned().collect();
            self.players.push(&kept)
        };
        if dropped {
            self.identity.log(
                LogLevel::Warn,
                LogSource::Host,
                format!(
                    "more than {} player events arrived before the script took them; \
                     dropping the oldest",
                    super::players::KEPT_PLAYER_EVENTS
                ),
            );
        }
    }
}

impl WasiView for ScriptState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
