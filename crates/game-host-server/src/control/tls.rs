//! https and wss on the control surface's one port (rustls): the
//! certificate and key come from two PEM files, as a certificate
//! authority's client (certbot, cert-manager) writes them.
//!
//! They are read again while the surface serves, when either file changes
//! (looked at every [`CHECK_EVERY`]: a renewal needs no signal, and SIGHUP
//! keeps the meaning `host serve` gives it, a drain). A pair that does not
//! load (a file torn mid-write, a key of another certificate) is refused
//! in one line and the certificate in use kept, so a bad renewal never
//! takes the surface down. Each connection's handshake must end within the
//! header timeout, as its headers must.
//!
//! The crypto is rustls' aws-lc-rs provider, the one the fleet's Redis
//! client already builds.

use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, anyhow};
use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use super::tls_files::TlsFiles;
use game_host::files::read_capped;
use game_host::sync::RwLockExt;

/// The largest PEM file read: a certificate chain is a few kilobytes.
const MAX_PEM: u64 = 1 << 20;

/// How often the files are looked at for a change.
const CHECK_EVERY: Duration = Duration::from_secs(2);

/// The certificate every handshake gets: the one loaded last.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read_unpoisoned().clone())
    }
}

/// The surface's TLS: what accepts a connection's handshake, and the
/// certificate it presents.
pub(crate) struct Tls {
    files: TlsFiles,
    provider: Arc<CryptoProvider>,
    current: Arc<Current>,
    acceptor: TlsAcceptor,
}

impl Tls {
    /// Loads the certificate and key of `files`, or says in one line why
    /// they cannot serve.
    pub fn load(files: TlsFiles) -> Result<Tls> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let key = certified(&files, &provider)?;
        let current = Arc::new(Current(RwLock::new(Arc::new(key))));
        let mut config = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .context("TLS: no protocol version to serve")?
            .with_no_client_auth()
            .with_cert_resolver(current.clone());
        // The surface speaks HTTP/1.1 alone (a WebSocket upgrades it).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            files,
            provider,
            current,
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// A connection's handshake: the stream it then speaks.
    pub async fn accept(
        &self,
        stream: tokio::net::TcpStream,
    ) -> std::io::Result<tokio_rustls::server::TlsStream<tokio::net::TcpStream>> {
        self.acceptor.accept(stream).await
    }

    /// Reads the files again: the next handshakes get their certificate.
    /// When they do not load, the one in use stays, and the error says why.
    pub fn reload(&self) -> Result<()> {
        let key = certified(&self.files, &self.provider)?;
        *self.current.0.write_unpoisoned() = Arc::new(key);
        Ok(())
    }

    /// Reloads when the files change, until the surface stops.
    pub async fn keep_fresh(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        let mut seen = stamp(&self.files);
        let mut ticks = tokio::time::interval(CHECK_EVERY);
        loop {
            tokio::select! {
                _ = stop.changed() => return,
                _ = ticks.tick() => {}
            }
            let now = stamp(&self.files);
            if now == seen {
                continue;
            }
            seen = now;
            match self.reload() {
                Ok(()) => tracing::info!(
                    "TLS: certificate `{}` loaded again (the files changed)",
                    self.files.cert.display()
                ),
                Err(error) => tracing::warn!("TLS: {error:#}; the certificate in use is kept"),
            }
        }
    }
}

/// When each file was last written, and its length: what a renewal
/// changes.
fn stamp(files: &TlsFiles) -> [Option<(SystemTime, u64)>; 2] {
    let of = |path: &Path| {
        let metadata = std::fs::metadata(path).ok()?;
        Some((metadata.modified().ok()?, metadata.len()))
    };
    [of(&files.cert), of(&files.key)]
}

/// The certificates of the PEM file at `path` (the `what`), in order.
pub(super) fn certificates(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let shown = path.display();
    let pem =
        read_capped(path, MAX_PEM).with_context(|| format!("cannot read the {what} `{shown}`"))?;
    CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| anyhow!("the {what} `{shown}` is not PEM: {error}"))
}

/// The certificate chain and key of `files`, checked to belong together.
fn certified(files: &TlsFiles, provider: &CryptoProvider) -> Result<CertifiedKey> {
    let cert = files.cert.display();
    let key = files.key.display();
    let chain = certificates(&files.cert, "TLS certificate")?;
    if chain.is_empty() {
        return Err(anyhow!(
            "the TLS certificate `{cert}` holds no certificate (a PEM file: the server's \
             certificate, then its chain)"
        ));
    }
    let pem = read_capped(&files.key, MAX_PEM)
        .with_context(|| format!("cannot read the TLS key `{key}`"))?;
    let private = PrivateKeyDer::from_pem_slice(&pem).map_err(|error| {
        anyhow!("the TLS key `{key}` holds no private key (PEM: PKCS#8, PKCS#1 or SEC1): {error}")
    })?;
    CertifiedKey::from_der(chain, private, provider).map_err(|error| {
        anyhow!("the TLS key `{key}` does not serve the certificate `{cert}`: {error}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A certificate for `127.0.0.1` and its key, self-signed, written to
    /// `dir` as `NAME.pem` and `NAME.key`.
    fn pair(dir: &Path, name: &str) -> TlsFiles {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let files = TlsFiles {
            cert: dir.join(format!("{name}.pem")),
            key: dir.join(format!("{name}.key")),
        };
        std::fs::write(&files.cert, cert.pem()).unwrap();
        std::fs::write(&files.key, key.serialize_pem()).unwrap();
        files
    }

    fn presented(tls: &Tls) -> Vec<u8> {
        tls.current.0.read_unpoisoned().cert[0].to_vec()
    }

    #[test]
    fn a_reload_swaps_the_certificate_and_a_bad_pair_keeps_the_one_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let first = pair(dir.path(), "first");
        let tls = Tls::load(first.clone()).unwrap();
        let before = presented(&tls);

        // Renewed in place: the next handshakes get the new certificate.
        let second = pair(dir.path(), "second");
        std::fs::copy(&second.cert, &first.cert).unwrap();
        std::fs::copy(&second.key, &first.key).unwrap();
        tls.reload().unwrap();
        let after = presented(&tls);
        assert_ne!(before, after);

        // A key of another certificate: refused, and the one in use kept.
        let third = pair(dir.path(), "third");
        std::fs::copy(&third.key, &first.key).unwrap();
        let error = format!("{:#}", tls.reload().unwrap_err());
        assert!(error.contains("does not serve the certificate"), "{error}");
        assert_eq!(presented(&tls), after);

        // A torn certificate file.
        std::fs::write(&first.cert, "-----BEGIN CERTIFICATE-----\nMIIB").unwrap();
        assert!(tls.reload().is_err());
        assert_eq!(presented(&tls), after);
    }

    #[test]
    fn files_that_cannot_serve_are_named_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let good = pair(dir.path(), "good");
        let missing = TlsFiles {
            cert: dir.path().join("nowhere.pem"),
            key: good.key.clone(),
        };
        let error = format!("{:#}", Tls::load(missing).err().unwrap());
        assert!(
            error.starts_with("cannot read the TLS certificate `"),
            "{error}"
        );
        let swapped = TlsFiles {
            cert: good.key.clone(),
            key: good.cert.clone(),
        };
        let error = format!("{:#}", Tls::load(swapped).err().unwrap());
        assert!(error.contains("holds no certificate"), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
}
