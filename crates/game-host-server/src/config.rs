//! [`ServerConfig`], how a server runs, and [`WorldSpec`], what one of its
//! worlds runs.

use std::path::PathBuf;
use std::time::Duration;

use game_host::GrantFile;
use game_host::guest::engine::ScriptComponent;
use game_host::runtime::RuntimeConfig;

/// How a [`Server`](crate::Server) runs.
#[derive(Clone)]
pub struct ServerConfig {
    /// Loop threads (0: one per core).
    pub threads: usize,
    /// The runtime of every world; its `hz` is the server's frame rate, its
    /// `seed` the server's, from which each world's is derived.
    pub runtime: RuntimeConfig,
    /// How long one world's frame may take (`None`: the whole frame budget).
    pub world_budget: Option<Duration>,
    /// A world over its budget this many frames in a row is stopped.
    pub overrun_frames: u32,
    /// Most worlds at once (`None`: no limit).
    pub max_worlds: Option<usize>,
    /// Most script instances alive at once over all worlds: the engine's
    /// instance pool (`None`: no limit). A world that would not fit is
    /// refused as "full", like one past `max_worlds`.
    pub max_instances: Option<usize>,
    /// Instances of the worlds the server is asked for (their scripts): the
    /// unit in which `/readyz` and `game_server_world_slots_free` count
    /// free room in the instance pool.
    pub instances_per_world: usize,
    /// Record each world to `world-ID.rec` in this directory (replay with
    /// `host replay`); the runtime's jobs should then be
    /// [`JobDelivery::Lockstep`](game_host::jobs::JobDelivery::Lockstep).
    pub record_dir: Option<PathBuf>,
    /// Keep every world durable in a state directory (see [`durable`](crate::durable)).
    pub state: Option<crate::durable::StateConfig>,
    /// Frames between a recording's checkpoints of every entity.
    pub checkpoint_every: u64,
    /// Whether the engine's NaNs are canonical, as recordings note
    /// ([`EngineOptions::deterministic_floats`](game_host::EngineOptions::deterministic_floats)).
    pub canonical_nans: bool,
    /// Players a world admits at once, at most.
    pub max_players: usize,
    /// Frames between two updates of the entities that changed, to players'
    /// clients, for worlds that do not ask for their own
    /// ([`WorldSpec::stream_every`]).
    pub stream_every: u32,
    /// Bytes of updates each world keeps for players' clients that fall
    /// behind ([`StreamSettings::kept_bytes`](crate::stream::StreamSettings::kept_bytes)).
    pub stream_kept_bytes: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            threads: 0,
            runtime: RuntimeConfig::default(),
            world_budget: None,
            overrun_frames: 30,
            max_worlds: None,
            max_instances: None,
            instances_per_world: 1,
            record_dir: None,
            state: None,
            checkpoint_every: 60,
            canonical_nans: false,
            max_players: 64,
            stream_every: 1,
            stream_kept_bytes: crate::stream::DEFAULT_KEPT_BYTES,
        }
    }
}

/// What a new world runs.
#[derive(Clone, Default)]
pub struct WorldSpec {
    /// One instance of each, started in order.
    pub scripts: Vec<ScriptComponent>,
    /// End the world after this many frames (`None`: run until stopped).
    pub frames: Option<u64>,
    /// The world's seed (`None`: derived from the server's seed, the
    /// runtime's, and the world's id; see
    /// [`world_seed`](game_host::determinism::world_seed)).
    pub seed: Option<u64>,
    /// Send the entities that changed to players' clients every this many
    /// frames (`None`: the server's [`ServerConfig::stream_every`]).
    /// Messages to players go every frame.
    pub stream_every: Option<u32>,
    /// The step (in world units) the stream's binary form rounds positions
    /// and scales to (`None`: a millimetre, [`DEFAULT_PRECISION`](crate::stream::DEFAULT_PRECISION));
    /// from 1e-6 to 1.
    pub stream_precision: Option<f32>,
    /// Grants that narrow the server's ([`RuntimeConfig::grants`]) for this
    /// world's scripts; they can take away, never add.
    pub grants: Option<GrantFile>,
    /// Which of players' input reaches this world's ordinary event waits
    /// (`None`: the server's, [`RuntimeConfig::open_to_players`]).
    pub open_to_players: Option<game_host::players::OpenToPlayers>,
    /// Started by the public join (`POST /play`) for this game (`--play
    /// GAME`): players join it that way (and only it), and the join stops
    /// it once no client has been connected to it for a while. Kept with a
    /// durable world, so that it stays so when it resumes, is handed over
    /// or fails over (a node whose `--play` is another game, or none,
    /// leaves it to its players).
    pub play: Option<String>,
}
