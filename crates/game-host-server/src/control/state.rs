//! [`ControlState`]: what every request handler of the control surface
//! shares, and the [`Catalog`] of scripts new worlds may run.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tokio::sync::Semaphore;

use super::auth::ControlToken;
use super::limits::ControlLimits;
use super::origins::AllowedOrigins;
use super::peer_link::PeerLink;
use super::playing::Playing;
use crate::Server;
use crate::stream::StreamLimits;
use game_host::guest::engine::ScriptComponent;
use game_host::predictor::PredictorFiles;

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
    /// The public join (`POST /play`), when the server has one.
    pub play: Option<Playing>,
    /// Pages of these origins may let players in (`POST /play`, a
    /// player's stream) besides the server's own.
    pub origins: AllowedOrigins,
    /// How this node reaches the fleet's others.
    pub peers: PeerLink,
}

/// What `POST /worlds` may start.
#[derive(Clone, Default)]
pub struct Catalog {
    /// Scripts by name; a world with no `scripts` in its body runs all.
    pub scripts: Vec<ScriptComponent>,
    /// Frames of a world whose body names none (`None`: until stopped).
    pub frames: Option<u64>,
    /// The browser forms of some of the scripts (`host build
    /// --predictor`), served to the players of the worlds that run them.
    pub predictors: Vec<PredictorFiles>,
}
