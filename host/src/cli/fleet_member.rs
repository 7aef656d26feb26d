//! This server's membership of a fleet (the `fleet` feature): its link to
//! Redis, made from `--fleet`'s options; the node (`game-host-fleet`'s
//! [`Node`]), which is the server's world directory from its start and
//! joins once the control surface listens; its working copy of the worlds
//! it runs; and the components it shares with the other nodes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use game_host::ScriptComponent;
use game_host::files::read_capped;
use game_host::secrets::FLEET_PASSWORD_ENV as PASSWORD_ENV;
use game_host_fleet::{FleetConfig, Link, Node};
use game_host_server::{Server, WorldDirectory};

use super::fleet::{FleetArgs, Joining};
use super::state_dir::loader;

/// This server as a node of a fleet.
pub struct Membership {
    link: Arc<Link>,
    node: Arc<Node>,
    /// `--advertise`: where other nodes send clients for this node's worlds.
    advertise: Option<String>,
}

impl Membership {
    /// Connects to the fleet's Redis, when `args` give one.
    pub fn connect(args: &FleetArgs) -> Result<Option<Membership>> {
        let Some(url) = &args.fleet else {
            return Ok(None);
        };
        let password = match &args.fleet_password_file {
            Some(file) => Some(read_password(file)?),
            None => std::env::var(PASSWORD_ENV).ok().filter(|p| !p.is_empty()),
        };
        let ca =
            match &args.fleet_ca_file {
                Some(file) => Some(read_capped(file, 1 << 20).with_context(|| {
                    format!("--fleet-ca-file: cannot read `{}`", file.display())
                })?),
                None => None,
            };
        let link = Link::connect(&FleetConfig {
            url: url.clone(),
            password,
            lease: Duration::from_millis(args.fleet_lease_ms),
            ca,
        })
        .context("--fleet")?;
        Ok(Some(Membership {
            node: Node::new(link.clone()),
            link,
            advertise: args.advertise.clone(),
        }))
    }

    /// The directory the server keeps its worlds in: the node.
    pub fn directory(&self) -> Arc<dyn WorldDirectory> {
        self.node.clone()
    }

    /// Joins the fleet as the node whose control surface is `joining`'s,
    /// resuming the worlds handed to it with the scripts given or those
    /// kept in its working copy.
    pub fn join(&self, joining: Joining<'_>) -> Result<()> {
        let addr = match (&self.advertise, joining.reported) {
            (Some(addr), _) => addr.clone(),
            (None, Some(reported)) => {
                tracing::info!("fleet: advertising {reported}, Agones' address for this server");
                reported.to_owned()
            }
            (None, None) => joining.control.addr().to_string(),
        };
        if addr.starts_with("0.0.0.0:") || addr.starts_with("[::]:") {
            bail!("--fleet: other nodes cannot reach `{addr}`: give --advertise HOST:PORT");
        }
        let load = loader(
            joining.engine.clone(),
            joining.dir.to_owned(),
            joining.given.to_vec(),
        );
        (self.node).join(
            joining.server,
            addr,
            joining.control.scheme(),
            Arc::new(load),
        )
    }

    /// On SIGTERM: hands every world to the other nodes.
    pub fn drain(&self, server: &Server) {
        self.node.drain(server);
    }

    /// Once the server shut down: leaves the fleet.
    pub fn leave(&self, server: &Server) {
        self.node.leave(server);
    }

    /// This node's working copy of the worlds it runs: a new folder named
    /// by the node's id, in `state_dir` or in the system's temporary
    /// folder. The fleet's Redis holds the worlds; each start of a node is
    /// a new node, with a folder of its own, so nothing another node (or an
    /// earlier start) left is touched.
    pub fn working_dir(&self, state_dir: Option<&Path>) -> Result<PathBuf> {
        let name = format!("host-fleet-node-{}", self.link.node);
        let dir = match state_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("--state-dir: cannot make `{}`", dir.display()))?;
                dir.join(name)
            }
            None => std::env::temp_dir().join(name),
        };
        // Made here, and never one already there.
        std::fs::create_dir(&dir).with_context(|| {
            format!("--fleet: cannot make the working copy `{}`", dir.display())
        })?;
        Ok(dir)
    }

    /// Shares the components this node keeps in `dir` for `scripts` with
    /// the fleet, so that any node resumes their worlds.
    pub fn share_components(&self, dir: &Path, scripts: &[ScriptComponent]) -> Result<()> {
        for script in scripts {
            let path = dir
                .join("components")
                .join(format!("{}.wasm", script.digest_hex()));
            if let Ok(bytes) = std::fs::read(&path) {
                self.link.share_component(&bytes)?;
            }
        }
        Ok(())
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
