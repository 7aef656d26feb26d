//! A certificate authority of a test's own (rcgen), and certificates it
//! signs for loopback names, written as PEM files: what Redis over TLS and
//! `host serve --tls-cert` are tested with.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};

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
        let key = KeyPair::generate().unwrap();
        let params =
            CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
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
