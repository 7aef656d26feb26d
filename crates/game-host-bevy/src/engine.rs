//! The plugin's script engine, made when it is first needed (the first
//! script loaded, or the first step), so after the app is built: by then
//! the game has registered its components and resources, and a game that
//! names itself ([`GameHostPlugin::game`](crate::GameHostPlugin::game)) has
//! them described for scripts as types (`describe`), as `host run --game`
//! gives a description file. Whichever needs it first (the asset loader's
//! task, or the first step) makes it; the other waits for it.

use std::sync::{Arc, OnceLock};

use bevy::log::{error, info, warn};
use game_host::{EngineOptions, ScriptEngine};

use crate::describe::ScriptTypes;

/// The engine, made once on first use; `None` if it failed to start.
pub(crate) struct LazyEngine {
    options: EngineOptions,
    game: Option<String>,
    types: ScriptTypes,
    engine: OnceLock<Option<Arc<ScriptEngine>>>,
}

impl LazyEngine {
    pub(crate) fn new(options: EngineOptions, game: Option<String>, types: ScriptTypes) -> Self {
        LazyEngine {
            options,
            game,
            types,
            engine: OnceLock::new(),
        }
    }

    /// The engine, made on the first call.
    pub(crate) fn get(&self) -> Option<&Arc<ScriptEngine>> {
        self.engine.get_or_init(|| self.make()).as_ref()
    }

    fn make(&self) -> Option<Arc<ScriptEngine>> {
        let mut options = self.options.clone();
        // A description the game gives itself wins over its registrations.
        if let (Some(game), None) = (&self.game, &options.game) {
            self.types.close();
            match self.types.describe(game) {
                Ok((types, left_out)) => {
                    for why in left_out {
                        warn!("game `{game}`'s types: {why}");
                    }
                    info!(
                        "game `{game}`'s types: {} typed for scripts",
                        types.summary()
                    );
                    options.game = Some(Arc::new(types));
                }
                Err(why) => error!(
                    "scripts get no game types: what is registered makes no description of \
                     game `{game}`: {why}"
                ),
            }
        }
        match ScriptEngine::new(options) {
            Ok(engine) => Some(Arc::new(engine)),
            Err(e) => {
                error!("scripts cannot run: the script engine failed to start: {e:#}");
                None
            }
        }
    }
}
