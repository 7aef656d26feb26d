//! A certificate authority of a test's own (rcgen), and certificates it
//! signs for loopback names, written as PEM files: what Redis over TLS and
//! `host serve --tls-cert` are tested with.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, StreamOwned};

/// A CA: its PEM file is `ca_file`.
pub struct TestCa {
    params: CertificateParams,
    key: KeyPair,
    pub ca_file: PathBuf,
}

/// A certificate the CA signed, and its key, as files.
pub struct Issued {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// The certificate, DER: what a client is shown.
    pub der: Vec<u8>,
}

impl TestCa {
    /// A CA whose certificate is written to `dir/ca.pem`.
    pub fn new(dir: &Path) -> TestCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "game-host test CA");
        let cert = params.self_signed(&key).unwrap();
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, cert.pem()).unwrap();
        TestCa {
            params,
            key,
            ca_file,
        }
    }

    /// A certificate for `127.0.0.1` (and `localhost`), written to
    /// `dir/NAME.pem` and `dir/NAME.key`.
    pub fn issue(&self, dir: &Path, name: &str) -> Issued {
        self.issue_for(dir, name, &["127.0.0.1", "localhost"])
    }

    /// A certificate for `names` (DNS names or addresses), written to
    /// `dir/NAME.pem` and `dir/NAME.key`.
    pub fn issue_for(&self, dir: &Path, name: &str, names: &[&str]) -> Issued {
        let key = KeyPair::generate().unwrap();
        let names = names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>();
        let params = CertificateParams::new(names).unwrap();
        let cert = params
            .signed_by(&key, &Issuer::from_params(&self.params, &self.key))
            .unwrap();
        let issued = Issued {
            cert: dir.join(format!("{name}.pem")),
            key: dir.join(format!("{name}.key")),
            der: cert.der().to_vec(),
        };
        std::fs::write(&issued.cert, cert.pem()).unwrap();
        std::fs::write(&issued.key, key.serialize_pem()).unwrap();
        issued
    }
}

/// A client that trusts the test's CA alone. It resumes no session, so
/// each connection is shown the certificate the server has now.
pub fn trusting(ca: &Path) -> Arc<ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.resumption = rustls::client::Resumption::disabled();
    Arc::new(config)
}

pub type Tls = StreamOwned<ClientConnection, TcpStream>;

/// A TLS connection to `addr`, its handshake done.
pub fn connect(addr: &str, config: &Arc<ClientConfig>) -> Tls {
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let connection = ClientConnection::new(config.clone(), name).unwrap();
    let mut stream = StreamOwned::new(connection, tcp);
    while stream.conn.is_handshaking() {
        stream
            .conn
            .complete_io(&mut stream.sock)
            .unwrap_or_else(|e| panic!("the TLS handshake with {addr} failed: {e}"));
    }
    stream
}

/// An https request: its status and body.
pub fn https(addr: &str, config: &Arc<ClientConfig>, method: &str, path: &str) -> (u16, String) {
    let mut stream = connect(addr, config);
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut bytes = Vec::new();
    // The server may close without a close_notify after `Connection: close`.
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

/// The first message of the player's stream at `path` of the server at
/// `addr`, over wss: its snapshot, which holds the spinning cube (panics
/// if not).
pub fn cube_over_wss(addr: &str, config: &Arc<ClientConfig>, path: &str) -> serde_json::Value {
    let request = format!("wss://{addr}{path}");
    let (mut socket, _) = tungstenite::client(request, connect(addr, config)).unwrap();
    let first = socket.read().unwrap().into_text().unwrap();
    let snapshot: serde_json::Value = serde_json::from_str(first.as_str()).unwrap();
    assert!(
        snapshot["entities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "cube"),
        "{snapshot}"
    );
    snapshot
}
