//! `host serve --agones`: the server reports to Agones' SDK server (the
//! sidecar of its GameServer) through `game-host-agones`, when the host is
//! built with the `agones` feature. Agones' SDK compiles its gRPC
//! definitions with `protoc`, so the feature is off by default: a host
//! built without it (the one `cargo install --path host` gives) needs
//! nothing but Rust, and says in one line how to get the feature when
//! `--agones` is asked of it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use game_host_server::Server;

/// The Agones SDK link of a running server.
pub struct Sidecar {
    #[cfg(feature = "agones")]
    agones: game_host_agones::Agones,
}

/// Whether this host can speak to Agones: an error saying how to build one
/// that can, if not.
pub fn available() -> Result<()> {
    if cfg!(feature = "agones") {
        return Ok(());
    }
    anyhow::bail!(
        "--agones: this host was built without Agones' SDK: build it with the `agones` feature \
         (`cargo install --path host --features agones`; Agones' SDK needs protoc: `apt-get \
         install protobuf-compiler`)"
    )
}

impl Sidecar {
    /// Connects to the SDK server for `server`, whose control surface
    /// listens on `control`; `address`: and waits for the address Agones
    /// reports for the game server (a node of a fleet advertises it).
    pub fn start(server: Arc<Server>, control: SocketAddr, address: bool) -> Result<Sidecar> {
        available()?;
        #[cfg(feature = "agones")]
        return Ok(Sidecar {
            agones: game_host_agones::Agones::start(server, control, address)?,
        });
        #[cfg(not(feature = "agones"))]
        {
            let _ = (server, control, address);
            unreachable!("refused by `available`")
        }
    }

    /// The game server's `HOST:PORT` as Agones reports it, if it did.
    pub fn address(&self) -> Option<&str> {
        #[cfg(feature = "agones")]
        return self.agones.address();
        #[cfg(not(feature = "agones"))]
        None
    }

    /// The server is ready for players.
    pub fn ready(&self) {
        #[cfg(feature = "agones")]
        self.agones.ready();
    }

    /// The server drained: tells Agones to shut it down, within `within`.
    pub fn shutdown(self, within: Duration) -> Result<()> {
        #[cfg(feature = "agones")]
        return self.agones.shutdown(within);
        #[cfg(not(feature = "agones"))]
        {
            let _ = within;
            Ok(())
        }
    }
}
