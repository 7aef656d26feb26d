//! [`ControlState`]: what every request handler of the control surface
//! shares.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use tokio::sync::Semaphore;

use super::auth::ControlToken;
use super::handlers::Catalog;
use super::limits::ControlLimits;
use crate::Server;
use crate::fleet::Node;
use crate::stream::StreamLimits;

/// What every request handler shares.
pub(crate) struct ControlState {
    /// The address the server listens on.
    pub listen: std::net::SocketAddr,
    pub server: Arc<Server>,
    pub catalog: Catalog,
    pub token: Option<ControlToken>,
    pub limits: ControlLimits,
    pub streams: StreamLimits,
    /// Streams open now, within `streams.max_streams`.
    pub stream_slots: Arc<Semaphore>,
    pub starting: AtomicBool,
    /// The fleet this server is a node of, once it joined.
    pub fleet: OnceLock<Arc<Node>>,
}
