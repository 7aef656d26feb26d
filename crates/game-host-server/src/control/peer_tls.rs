//! TLS between the nodes of a fleet whose nodes serve TLS (`--tls-cert`):
//! a node relays requests and forwards streams to another over TLS, as a
//! player reaches it, so nothing the nodes pass each other (the fleet's
//! token among it) crosses the network in the clear.
//!
//! A node trusts another whose certificate is valid for one of the DNS
//! names of its own certificate (the fleet's nodes share the game's
//! names: one certificate, or one wildcard), issued under the nodes' CA
//! (`--peer-ca FILE`) or else the platform's roots, as a browser would
//! trust it. The address it connects to is the other node's advertised
//! one, whatever its name.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::tls::certificates;
use super::tls_files::TlsFiles;

/// How a node connects to the fleet's other nodes over TLS.
pub(crate) struct PeerTls {
    connector: TlsConnector,
    /// The name asked for (SNI): this node's certificate's first.
    name: ServerName<'static>,
}

impl PeerTls {
    /// Trusts the nodes whose certificates are valid for a name of the
    /// certificate in `files`, under the CA in `ca` (PEM) or else the
    /// platform's roots; says in one line why it cannot.
    pub fn load(files: &TlsFiles, ca: Option<&Path>) -> Result<PeerTls> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let chain = certificates(&files.cert, "TLS certificate")?;
        let names = own_names(chain.first().context("the TLS certificate holds none")?)
            .with_context(|| format!("the TLS certificate `{}`", files.cert.display()))?;
        let mut roots = RootCertStore::empty();
        match ca {
            Some(ca) => {
                let certs = certificates(ca, "nodes' CA (--peer-ca)")?;
                if certs.is_empty() {
                    bail!(
                        "the nodes' CA `{}` (--peer-ca) holds no certificate (PEM)",
                        ca.display()
                    );
                }
                for cert in certs {
                    roots.add(cert).map_err(|error| {
                        anyhow!(
                            "the nodes' CA `{}` (--peer-ca) is not a CA: {error}",
                            ca.display()
                        )
                    })?;
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(found.certs);
            }
        }
        if roots.is_empty() {
            bail!(
                "TLS between the fleet's nodes: no CA to trust them under (give --peer-ca FILE, \
                 the CA that issued the nodes' certificate)"
            );
        }
        let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .context("TLS between the fleet's nodes")?;
        let name = names[0].clone();
        let verifier = Arc::new(OwnNames { inner, names });
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS: no protocol version to speak")?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        // Every node is asked for the same name: one node's session is no
        // use to another.
        config.resumption = rustls::client::Resumption::disabled();
        Ok(PeerTls {
            connector: TlsConnector::from(Arc::new(config)),
            name,
        })
    }

    /// The TLS of a connection to another node.
    pub async fn connect(&self, stream: TcpStream) -> std::io::Result<TlsStream<TcpStream>> {
        self.connector.connect(self.name.clone(), stream).await
    }
}

/// The DNS names `cert` is valid for, a wildcard's as a name under it.
fn own_names(cert: &CertificateDer<'_>) -> Result<Vec<ServerName<'static>>> {
    let parsed = webpki::EndEntityCert::try_from(cert).map_err(|error| anyhow!("{error}"))?;
    let names: Vec<ServerName<'static>> = parsed
        .valid_dns_names()
        .filter_map(|name| {
            let name = match name.strip_prefix("*.") {
                Some(parent) => format!("node.{parent}"),
                None => name.to_owned(),
            };
            ServerName::try_from(name).ok()
        })
        .collect();
    if names.is_empty() {
        bail!(
            "names no DNS name, which the fleet's nodes would check each other's certificates \
             against (an address alone is not enough)"
        );
    }
    Ok(names)
}

/// Checks a node's certificate as a browser would, for any of this node's
/// own names (whatever address it was reached at).
#[derive(Debug)]
struct OwnNames {
    inner: Arc<WebPkiServerVerifier>,
    names: Vec<ServerName<'static>>,
}

impl ServerCertVerifier for OwnNames {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let mut refused = rustls::Error::General("no name to check".into());
        for name in &self.names {
            match (self.inner).verify_server_cert(end_entity, intermediates, name, ocsp, now) {
                Ok(verified) => return Ok(verified),
                Err(error) => refused = error,
            }
        }
        Err(refused)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        signed: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, signed)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        signed: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, signed)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate for `names`, DER.
    fn certificate(names: &[&str]) -> CertificateDer<'static> {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(names)
            .unwrap()
            .self_signed(&key)
            .unwrap();
        cert.der().clone()
    }

    #[test]
    fn a_node_checks_the_others_for_the_dns_names_of_its_own_certificate() {
        let names = own_names(&certificate(&[
            "*.game.example",
            "play.example",
            "127.0.0.1",
        ]))
        .unwrap()
        .iter()
        .map(|name| name.to_str().into_owned())
        .collect::<Vec<_>>();
        assert_eq!(names, ["node.game.example", "play.example"]);
        let error = own_names(&certificate(&["127.0.0.1"])).unwrap_err();
        assert!(
            error.to_string().starts_with("names no DNS name"),
            "{error}"
        );
    }
}
