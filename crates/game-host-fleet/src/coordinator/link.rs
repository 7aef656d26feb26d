//! [`Link`]: a node's link to its fleet's Redis, made from a
//! [`FleetConfig`]: its identity, its connection settings, and the mirror
//! that copies its logs there.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use redis::IntoConnectionInfo;

use super::conn::Conn;
use super::mirror::Mirror;
use super::records;

/// How a node joins a fleet.
#[derive(Clone)]
pub struct FleetConfig {
    /// Redis: `redis://HOST:PORT/`, or `rediss://HOST:PORT/` over TLS.
    pub url: String,
    /// Redis's password (read from a file, so that it is not on a
    /// command line); one in the URL is used when this is `None`.
    pub password: Option<String>,
    /// How long a node's lease lasts without being renewed: a node silent
    /// this long is taken for dead, and its worlds resume elsewhere.
    pub lease: Duration,
    /// For a `rediss://` Redis: the certificates (PEM) its certificate is
    /// checked against, instead of the system's trusted ones (a private
    /// CA's).
    pub ca: Option<Vec<u8>>,
}

impl std::fmt::Debug for FleetConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetConfig")
            .field("url", &redacted(&self.url))
            .field("password", &self.password.as_ref().map(|_| "(set)"))
            .field("lease", &self.lease)
            .field("ca", &self.ca.as_ref().map(|_| "(given)"))
            .finish()
    }
}

/// A URL without the password it may hold (`redis://:secret@host/` is
/// shown `redis://***@host/`).
pub(crate) fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***{}", &url[..scheme], &url[at..])
        }
        _ => url.to_owned(),
    }
}

impl FleetConfig {
    /// The shortest lease: renewals go out at a fifth of it.
    pub const MIN_LEASE: Duration = Duration::from_millis(500);
}

/// A node's link to its fleet's Redis: its identity, its connection
/// settings, and the mirror that copies its logs there.
pub struct Link {
    client: redis::Client,
    /// This node's id: new at every start (a node that comes back is a new
    /// node, and its old worlds are claimed like any dead node's).
    pub node: String,
    pub lease: Duration,
    pub(crate) mirror: Arc<Mirror>,
}

impl Link {
    /// Connects to Redis (once, to check that it answers and takes the
    /// password) and starts the mirror's thread.
    pub fn connect(config: &FleetConfig) -> Result<Arc<Link>> {
        if config.lease < FleetConfig::MIN_LEASE {
            bail!(
                "a fleet lease of {} ms is too short (at least {} ms)",
                config.lease.as_millis(),
                FleetConfig::MIN_LEASE.as_millis()
            );
        }
        let mut info = config
            .url
            .as_str()
            .into_connection_info()
            .with_context(|| format!("`{}` is not a Redis URL", redacted(&config.url)))?;
        if let Some(password) = &config.password {
            info.redis.password = Some(password.clone());
        }
        if info.redis.password.is_none() {
            bail!(
                "the fleet's Redis must be authenticated: give its password with \
                 --fleet-password-file FILE"
            );
        }
        let tls = matches!(info.addr, redis::ConnectionAddr::TcpTls { .. });
        if tls {
            // The one provider built in; another crate's earlier choice
            // stands.
            let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        }
        let client = match (&config.ca, tls) {
            (Some(_), false) => bail!(
                "a CA file is for a Redis reached over TLS: give a `rediss://` URL, not `{}`",
                redacted(&config.url)
            ),
            (Some(ca), true) => redis::Client::build_with_tls(
                info,
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(ca.clone()),
                },
            )
            .map_err(|error| anyhow::anyhow!("the fleet's CA file is not usable: {error}"))?,
            (None, _) => redis::Client::open(info)
                .with_context(|| format!("`{}` is not a Redis URL", redacted(&config.url)))?,
        };
        let mut conn = Conn::new(client.clone());
        let pong: String = conn
            .run(|con| redis::cmd("PING").query(con))
            .map_err(|error| match error.kind() {
                redis::ErrorKind::AuthenticationFailed => {
                    anyhow::anyhow!("the fleet's Redis refused the password: {error}")
                }
                _ if error.code() == Some("WRONGPASS") => {
                    anyhow::anyhow!("the fleet's Redis refused the password: {error}")
                }
                _ if tls && error.to_string().contains("certificate") => anyhow::anyhow!(
                    "cannot reach the fleet's Redis at {}: {error} (its certificate is checked \
                     against {}: give its CA's with --fleet-ca-file)",
                    redacted(&config.url),
                    match config.ca {
                        Some(_) => "the CA file given",
                        None => "the system's trusted certificates",
                    }
                ),
                _ => anyhow::anyhow!(
                    "cannot reach the fleet's Redis at {}: {error}",
                    redacted(&config.url)
                ),
            })?;
        if pong != "PONG" {
            bail!("the fleet's Redis answered PING with `{pong}`");
        }
        let node = uuid::Uuid::now_v7().to_string();
        let mirror = Mirror::start(Conn::new(client.clone()), node.clone())?;
        Ok(Arc::new(Link {
            client,
            node,
            lease: config.lease,
            mirror,
        }))
    }

    /// Keeps a component's bytes in Redis by their SHA-256, so that
    /// any node resumes a world of it without the file.
    pub fn share_component(&self, bytes: &[u8]) -> Result<()> {
        let sha256 = records::digest(bytes);
        self.keep_component(&mut self.conn(), &sha256, bytes)
            .with_context(|| format!("component {sha256} could not be kept in the fleet's Redis"))
    }

    /// A connection of its own, for one thread.
    pub(crate) fn conn(&self) -> Conn {
        Conn::new(self.client.clone())
    }

    /// A connection for renewing the lease: each command within a fifth of
    /// the lease, so that a slow Redis is noticed before the lease lapses.
    pub(crate) fn lease_conn(&self) -> Conn {
        let timeout = (self.lease / 5).max(std::time::Duration::from_millis(100));
        Conn::with_timeout(self.client.clone(), timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_a_url_is_not_shown() {
        assert_eq!(
            redacted("redis://:secret@127.0.0.1:6379/"),
            "redis://***@127.0.0.1:6379/"
        );
        assert_eq!(redacted("redis://user:secret@host/0"), "redis://***@host/0");
        assert_eq!(
            redacted("redis://127.0.0.1:6379/"),
            "redis://127.0.0.1:6379/"
        );
        let config = FleetConfig {
            url: "redis://:secret@h/".into(),
            password: Some("other-secret".into()),
            lease: Duration::from_secs(2),
            ca: None,
        };
        let shown = format!("{config:?}");
        assert!(
            !shown.contains("secret@") && !shown.contains("other-secret"),
            "{shown}"
        );
    }
}
