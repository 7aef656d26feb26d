//! `host serve --fleet URL`: this server as a node of a fleet coordinated
//! through Redis (`game-host-fleet`), when the host is built with the
//! `fleet` feature: its options here, and its membership elsewhere
//! (`fleet_member`: the node, its working copy of the worlds it runs, and
//! the components it shares with the other nodes; `fleet_absent`, in a host
//! built without the fleet). Redis's client and its TLS are in the fleet's
//! crate alone, so a host built without the feature has neither, and says
//! in one line how to get it when `--fleet` is asked of it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use game_host::{ScriptComponent, ScriptEngine};
use game_host_server::Server;
use game_host_server::control::ControlServer;

/// Worlds a node makes room for when `--max-worlds` does not say.
pub const DEFAULT_ROOM: usize = 64;

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Join the fleet coordinated by the Redis server at URL
    /// (`redis://HOST:PORT/`, or `rediss://HOST:PORT/` over TLS, checked
    /// against the system's trusted certificates or --fleet-ca-file). New
    /// worlds go to the node with the most
    /// room, any node answers for any world (relaying to its node), a world whose
    /// node dies resumes on another from its log in Redis, and SIGTERM
    /// hands this node's worlds to the others live. Starts no --worlds of
    /// its own unless asked, and makes room for --max-worlds (default 64).
    #[arg(long, value_name = "URL", conflicts_with = "record_worlds")]
    pub fleet: Option<String>,

    /// A file holding the Redis password (`requirepass`) [default:
    /// $GAME_HOST_FLEET_PASSWORD]. A fleet's Redis must be authenticated.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    pub fleet_password_file: Option<PathBuf>,

    /// With a `rediss://` engine: a PEM file of the certificates (a private
    /// CA's) its certificate is checked against, instead of the system's.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    pub fleet_ca_file: Option<PathBuf>,

    /// A node silent this long (it missed four renewals of its lease) is
    /// taken for dead, and its worlds resume on the others.
    #[arg(long, value_name = "MS", default_value_t = 2000, requires = "fleet",
          value_parser = clap::value_parser!(u64).range(500..=600_000))]
    pub fleet_lease_ms: u64,

    /// The address (`HOST:PORT`) other nodes reach this node at, to relay
    /// requests and forward players' streams for its worlds, and where
    /// its players are told to reconnect when its worlds move here
    /// [default: with --agones, the address and port Agones gives its
    /// GameServer; else the address it listens on].
    #[arg(long, value_name = "HOST:PORT", requires = "fleet")]
    pub advertise: Option<String>,
}

/// What a node joins its fleet with, once its control surface listens
/// (read only by a host built with the fleet).
#[cfg_attr(not(feature = "fleet"), allow(dead_code))]
pub struct Joining<'a> {
    pub server: &'a Arc<Server>,
    pub control: &'a ControlServer,
    /// The worlds handed to it load their scripts with this engine, from
    /// the scripts `given` on its command line or those kept in `dir`.
    pub engine: &'a Arc<ScriptEngine>,
    pub dir: &'a Path,
    pub given: &'a [ScriptComponent],
    /// The address Agones reports for the node's game server, advertised
    /// when --advertise is not given.
    pub reported: Option<&'a str>,
}
