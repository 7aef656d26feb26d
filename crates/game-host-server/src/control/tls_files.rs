//! [`TlsFiles`]: where the control surface's certificate and key are.

use std::path::PathBuf;

/// The PEM files of the surface's certificate (followed by its chain) and
/// its private key, for https and wss (a server built with the `tls`
/// feature).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}
