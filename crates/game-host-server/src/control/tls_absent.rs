//! A server built without the `tls` feature: it serves plain http and ws,
//! and refuses a certificate in one line saying how to build one that
//! serves it.

use std::convert::Infallible;

use anyhow::{Result, bail};
use tokio::sync::watch;

use super::tls_files::TlsFiles;

/// Never made: loading fails.
pub(crate) struct Tls {
    never: Infallible,
}

impl Tls {
    pub fn load(files: TlsFiles) -> Result<Tls> {
        bail!(
            "cannot serve https with `{}`: this server was built without TLS (game-host-server's \
             `tls` feature; for `host`: `cargo install --path host --features tls`)",
            files.cert.display()
        )
    }

    pub async fn accept(&self, _: tokio::net::TcpStream) -> std::io::Result<tokio::net::TcpStream> {
        match self.never {}
    }

    pub async fn keep_fresh(self: std::sync::Arc<Self>, _: watch::Receiver<bool>) {
        match self.never {}
    }
}
