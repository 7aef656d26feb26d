//! `host serve --fleet URL`: this server as a node of a fleet coordinated
//! through Redis (see the server's `fleet` and `engine` modules): its
//! options, its working copy of the worlds it runs, and the components it
//! shares with the other nodes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use game_host::files::read_capped;
use game_host::{ScriptComponent, ScriptEngine};
use game_host_server::Server;
use game_host_server::control::ControlServer;
use game_host_server::engine::{FleetConfig, Link};
use game_host_server::fleet::Node;

use super::state_dir::loader;

use game_host::secrets::FLEET_PASSWORD_ENV as PASSWORD_ENV;

/// Worlds a node makes room for when `--max-worlds` does not say.
pub const DEFAULT_ROOM: usize = 64;

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Join the fleet coordinated by the Redis server at URL
    /// (`redis://HOST:PORT/`, or `rediss://HOST:PORT/` over TLS, checked
    /// against the system's trusted certificates or --fleet-ca-file). New
    /// worlds go to the node with the most
    /// room, any node answers for any world (by a redirect), a world whose
    /// node dies resumes on another from its log in Redis, and SIGTERM
    /// hands this node's worlds to the others live. Starts no --worlds of
    /// its own unless asked, and makes room for --max-worlds (default 64).
    #[arg(long, value_name = "URL", conflicts_with = "record_worlds")]
    pub fleet: Option<String>,

    /// A file holding the Redis password (`requirepass`) [default:
    /// $GAME_HOST_FLEET_PASSWORD]. A fleet's engine must be authenticated.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    fleet_password_file: Option<PathBuf>,

    /// With a `rediss://` engine: a PEM file of the certificates (a private
    /// CA's) its certificate is checked against, instead of the system's.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    fleet_ca_file: Option<PathBuf>,

    /// A node silent this long (it missed four renewals of its lease) is
    /// taken for dead, and its worlds resume on the others.
    #[arg(long, value_name = "MS", default_value_t = 2000, requires = "fleet",
          value_parser = clap::value_parser!(u64).range(500..=600_000))]
    fleet_lease_ms: u64,

    /// The address (`HOST:PORT`) other nodes send clients to for this
    /// node's worlds [default: the address it listens on].
    #[arg(long, value_name = "HOST:PORT", requires = "fleet")]
    advertise: Option<String>,
}

impl FleetArgs {
    /// Connects to the fleet's engine, when a fleet is given.
    pub fn link(&self) -> Result<Option<Arc<Link>>> {
        let Some(url) = &self.fleet else {
            return Ok(None);
        };
        let password = match &self.fleet_password_file {
            Some(file) => Some(read_password(file)?),
            None => std::env::var(PASSWORD_ENV).ok().filter(|p| !p.is_empty()),
        };
        let ca =
            match &self.fleet_ca_file {
                Some(file) => Some(read_capped(file, 1 << 20).with_context(|| {
                    format!("--fleet-ca-file: cannot read `{}`", file.display())
                })?),
                None => None,
            };
        let link = Link::connect(&FleetConfig {
            url: url.clone(),
            password,
            lease: Duration::from_millis(self.fleet_lease_ms),
            ca,
        })
        .context("--fleet")?;
        Ok(Some(link))
    }

    /// Joins the fleet as the node whose control surface is `control`,
    /// resuming the worlds handed to it with the scripts `given` or those
    /// kept in `dir`.
    pub fn join(
        &self,
        link: Arc<Link>,
        server: &Arc<Server>,
        control: &ControlServer,
        (engine, dir, given): (&Arc<ScriptEngine>, &Path, &[ScriptComponent]),
    ) -> Result<Arc<Node>> {
        let addr = match &self.advertise {
            Some(addr) => addr.clone(),
            None => control.addr().to_string(),
        };
        if addr.starts_with("0.0.0.0:") || addr.starts_with("[::]:") {
            bail!("--fleet: other nodes cannot reach `{addr}`: give --advertise HOST:PORT");
        }
        let load = loader(engine.clone(), dir.to_owned(), given.to_vec());
        let node = Node::join(link, server, addr, Arc::new(load))?;
        control.join_fleet(node.clone());
        Ok(node)
    }
}

/// A password file's text, without its line end.
fn read_password(file: &Path) -> Result<String> {
    let bytes = read_capped(file, 4096)
        .with_context(|| format!("--fleet-password-file: cannot read `{}`", file.display()))?;
    let text = String::from_utf8(bytes)
        .ok()
        .map(|text| text.trim_end_matches(['\r', '\n']).to_owned())
        .filter(|text| !text.is_empty())
        .with_context(|| {
            format!(
                "--fleet-password-file: `{}` holds no password",
                file.display()
            )
        })?;
    Ok(text)
}

/// This node's working copy of the worlds it runs: a new folder named by
/// the node's id, in `state_dir` or in the system's temporary folder. The
/// fleet's engine holds the worlds; each start of a node is a new node,
/// with a folder of its own, so nothing another node (or an earlier start)
/// left is touched.
pub fn working_dir(state_dir: Option<&Path>, link: &Link) -> Result<PathBuf> {
    let name = format!("host-fleet-node-{}", link.node);
    let dir = match state_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("--state-dir: cannot make `{}`", dir.display()))?;
            dir.join(name)
        }
        None => std::env::temp_dir().join(name),
    };
    // Made here, and never one already there.
    std::fs::create_dir(&dir)
        .with_context(|| format!("--fleet: cannot make the working copy `{}`", dir.display()))?;
    Ok(dir)
}

/// Shares the components this node keeps in `dir` for `scripts` with the
/// fleet, so that any node resumes their worlds.
pub fn share_components(link: &Link, dir: &Path, scripts: &[ScriptComponent]) -> Result<()> {
    for script in scripts {
        let path = dir
            .join("components")
            .join(format!("{}.wasm", script.digest_hex()));
        if let Ok(bytes) = std::fs::read(&path) {
            link.share_component(&bytes)?;
        }
    }
    Ok(())
}
