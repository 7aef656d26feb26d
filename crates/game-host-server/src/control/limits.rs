//! [`ControlLimits`]: what the control surface allows one client.

use std::time::Duration;

/// What the control surface allows one client. The defaults follow what
/// servers facing the internet use (nginx's 60 s header and body timeouts
/// are for slow networks; a control surface on a cluster network answers
/// machines, so its are shorter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlLimits {
    /// Largest request body; larger ones get 413 (the bodies this surface
    /// takes are a few hundred bytes of JSON).
    pub max_body: usize,
    /// Time to send a request's headers, and most time a kept-alive
    /// connection may sit idle between requests.
    pub header_timeout: Duration,
    /// Time to send a request's body.
    pub body_timeout: Duration,
    /// Connections open at once; further ones are closed on accept.
    pub max_connections: usize,
    /// On shutdown, how long answers under way get before every connection
    /// is closed.
    pub drain: Duration,
}

impl Default for ControlLimits {
    fn default() -> Self {
        ControlLimits {
            max_body: 64 << 10,
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(10),
            max_connections: 256,
            drain: Duration::from_secs(2),
        }
    }
}
