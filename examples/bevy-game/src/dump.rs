//! `--dump-scene`: the runtime's scene as JSON, in `host run
//! --dump-scene`'s form.

use std::path::PathBuf;

use anyhow::Result;
use bevy::prelude::World;
use game_host_bevy::ScriptHost;

/// Writes the runtime's scene, as `host run --dump-scene` does.
pub fn write(world: &mut World, file: Option<&PathBuf>) -> Result<()> {
    let Some(file) = file else { return Ok(()) };
    anyhow::ensure!(
        world.contains_resource::<ScriptHost>(),
        "no scene to dump: no script ran"
    );
    let dump = ScriptHost::with_runtime(world, |runtime| runtime.inspect().dump());
    std::fs::write(file, dump.to_json())
        .map_err(|e| anyhow::anyhow!("failed to write scene dump `{}`: {e}", file.display()))
}
