//! [`LiveSources`]: the sources of one version of a live Python or
//! JavaScript script, which its language's runtime component reads at run
//! time (`game:live/sources`, implemented in `imports`). A leaf: the store
//! data holds them, the builders make them.

use sha2::{Digest, Sha256};

/// The sources of one version of a live script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSources {
    /// The script's directory as its author names it: errors show
    /// `<root>/<path>`.
    pub root: String,
    /// Each source file: its path relative to `root` (with `/`), its text.
    pub files: Vec<(String, String)>,
}

impl LiveSources {
    /// SHA-256 over the files (paths and texts, in order), mixed with the
    /// runtime's own digest: which code an instance of this version runs.
    pub fn digest(&self, runtime: &[u8; 32]) -> [u8; 32] {
        let mut hash = Sha256::new();
        hash.update(runtime);
        for (path, text) in &self.files {
            for part in [path, text] {
                hash.update((part.len() as u64).to_le_bytes());
                hash.update(part);
            }
        }
        hash.finalize().into()
    }
}

/// The host-internal `game:live` package (`wit/live.wit` of this crate):
/// what the live Python and JavaScript runtimes import and export beside
/// `game:engine`, for the builders that make those runtimes.
pub const LIVE_WIT: &str = include_str!("../../wit/live.wit");

/// The version [`LIVE_WIT`] declares (read at build time).
pub const LIVE_VERSION: &str = env!("GAME_LIVE_VERSION");

/// The newest `game:engine` package, as the host was built with it: each
/// file of the workspace's `wit/` (one per interface) as (file name, text),
/// for the builders that hand it to componentize-py and -js.
pub const ENGINE_WIT: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/engine_wit.rs"));

/// Every interface of the newest `game:engine` package (`wit/`), sorted,
/// each with whether it declares functions (`types` and `input` hold only
/// records): what the Python and JavaScript loaders bind. Made from the WIT
/// when the crate is built.
pub const ENGINE_INTERFACES: &[(&str, bool)] =
    include!(concat!(env!("OUT_DIR"), "/engine_interfaces.rs"));
