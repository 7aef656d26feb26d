//! # game-host-bevy: scripts in a Bevy game
//!
//! [`GameHostPlugin`] runs game-host scripts (WebAssembly components, and
//! Python and JavaScript sources on the live runtimes) inside a Bevy app,
//! with the host's sandbox: CPU deadlines, memory limits and quotas, a
//! failing script stopped alone and reported as a [`ScriptFailed`]
//! message and a log line.
//!
//! - Scripts are assets ([`ScriptAsset`]: `.wasm`, `.py`, `.js`, `.ts`) attached to
//!   entities with [`Script`], compiled by the asset loader on Bevy's task
//!   pools; each is instantiated on the background queue and starts at the
//!   next step after it is ready ([`ScriptStarted`]), and a changed asset
//!   is hot-swapped, its state handed over, as `host run --watch` does.
//! - Scripts reach the entities the game marks [`ScriptVisible`] (or, with
//!   [`ScriptReach::Named`], every named, transformed one), and those they
//!   spawn ([`BevyScene`]): `find` looks up `Name`, transform calls read and
//!   write `Transform` in place. Each carries its script id as
//!   [`ScriptEntity`].
//! - The game's own components, resources and message types reach scripts
//!   by name once registered ([`ScriptApp`]): components through
//!   `game-data` and `queries` (every entity with a set of components, its
//!   fields as columns), resources through `resources` (with `Time`), and
//!   messages both ways through `game-messages` and `events`. A game that
//!   names itself ([`GameHostPlugin::game`]) has them typed too: the
//!   registrations are its description ([`ScriptTypes`]), and scripts made
//!   for it (`host new --game`) call `get-spin` / `set-spin` with records,
//!   no names crossing.
//! - Scripts run in the [`ScriptSystems`] set of the plugin's schedule
//!   (`FixedUpdate` by default); keys reach them as in the host, and the
//!   game sends them channel messages through [`ScriptInbox`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use game_host_bevy::{GameHostPlugin, Script, ScriptAccess, ScriptApp, ScriptVisible};
//!
//! #[derive(Component, Reflect, Default)]
//! #[reflect(Component, Default)]
//! struct Spin { speed: f32 }
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, AssetPlugin::default(), GameHostPlugin::default()))
//!     .register_script_component::<Spin>(ScriptAccess::ReadWrite)
//!     .add_systems(Startup, |mut commands: Commands, assets: Res<AssetServer>| {
//!         commands.spawn((Name::new("cube"), Transform::default(), ScriptVisible));
//!         commands.spawn(Script(assets.load("spinning_cube.wasm")));
//!     })
//!     .run();
//! ```

mod assets;
mod data;
mod describe;
mod engine;
mod events;
mod host;
mod input;
mod live;
mod lookup;
mod making;
mod plugin;
mod query;
mod reflect;
mod registry;
mod scene;

pub use assets::{Script, ScriptAsset, ScriptLoader};
pub use describe::ScriptTypes;
pub use events::{ScriptFailed, ScriptStarted};
pub use host::ScriptHost;
pub use input::{ScriptInbox, key_of};
pub use plugin::{GameHostPlugin, ScriptSystems};
pub use registry::{ScriptAccess, ScriptApp, ScriptComponents, ScriptMessages, ScriptResources};
pub use scene::{BevyScene, ScriptEntity, ScriptReach, ScriptVisible};
