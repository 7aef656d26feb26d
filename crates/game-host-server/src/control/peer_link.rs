//! [`PeerLink`]: how a node connects to the fleet's other nodes, to relay
//! a request or forward a stream: over TCP, or over TLS where the nodes
//! serve TLS (`peer_tls`).

#[cfg(feature = "tls")]
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

#[cfg(feature = "tls")]
use super::peer_tls::PeerTls;

/// A connection to another node.
pub(crate) trait PeerIo: AsyncRead + AsyncWrite + Unpin + Send {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send> PeerIo for T {}

/// How this node reaches the others.
#[derive(Clone, Default)]
pub(crate) struct PeerLink {
    #[cfg(feature = "tls")]
    tls: Option<Arc<PeerTls>>,
}

impl PeerLink {
    /// Over TLS, as `tls` says.
    #[cfg(feature = "tls")]
    pub fn tls(tls: PeerTls) -> PeerLink {
        PeerLink {
            tls: Some(Arc::new(tls)),
        }
    }

    /// A connection to the node at `address`, its TLS shaken hands.
    pub async fn connect(&self, address: &str) -> std::io::Result<Box<dyn PeerIo>> {
        let stream = TcpStream::connect(address).await?;
        #[cfg(feature = "tls")]
        if let Some(tls) = &self.tls {
            return Ok(Box::new(tls.connect(stream).await?));
        }
        Ok(Box::new(stream))
    }

    /// The WebSocket scheme of its streams.
    pub fn ws(&self) -> &'static str {
        #[cfg(feature = "tls")]
        if self.tls.is_some() {
            return "wss";
        }
        "ws"
    }
}
