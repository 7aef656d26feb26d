//! An extension reached from Python and JavaScript: a script of each that
//! imports the terrain extension's interface (`game:terrain/terrain`,
//! `host/tests/foreign/{py,js}-terrain`) calls its functions and waits on
//! a tile, live (how `host run` loads it) and built into its own component
//! (`host build`), and logs what the host generated; the same sources on a
//! host without the extension are refused, naming the interface, and so
//! are they under grants that leave it out, at load.
//!
//! Nothing in the SDK, the builders or the CLI names terrain: the builder
//! found the extension's WIT by its crate's layout, and the script's
//! sources said they import it.
//!
//! Needs componentize-py and componentize-js on PATH (`./test.sh` installs them).

mod common;

use std::path::PathBuf;

use game_host::{EngineOptions, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, ScriptSource};
use game_host_terrain::{RESOLUTION, Tile, TileCoord, tile_size};

/// The scripts, by language.
fn scripts() -> [(&'static str, PathBuf); 2] {
    let foreign = common::workspace().join("host/tests/foreign");
    [
        ("python", foreign.join("py-terrain/app.py")),
        ("javascript", foreign.join("js-terrain/app.js")),
    ]
}

/// Runs `script` until it logs its tile (at most 30 frames) and checks the
/// tile size and the tile it logged against the extension's own.
fn runs_and_reads_the_tile(language: &str, script: &ScriptComponent) {
    let (mut runtime, log) = common::runtime();
    runtime.spawn(script).unwrap();
    let logged = |prefix: &str| {
        (log.messages().into_iter()).find_map(|m| m.strip_prefix(prefix).map(str::to_owned))
    };
    for _ in 0..30 {
        if logged("tile 3,-2 ").is_some() {
            break;
        }
        runtime.run_frames(1);
    }
    assert!(
        common::error_lines(&runtime).is_empty(),
        "{language}: {:?}",
        common::error_lines(&runtime)
    );
    let number = |text: &str| -> f32 {
        let value: f64 = text
            .parse()
            .unwrap_or_else(|_| panic!("{language}: `{text}`"));
        value as f32
    };
    let size = logged("tile size ").unwrap_or_else(|| panic!("{language}: {:?}", log.messages()));
    assert_eq!(number(&size), tile_size(1), "{language}");

    let line = logged("tile 3,-2 ").unwrap_or_else(|| panic!("{language}: {:?}", log.messages()));
    let words: Vec<&str> = line.split_whitespace().collect();
    let field = |name: &str| {
        let at = words.iter().position(|w| *w == name);
        let value = at.and_then(|at| words.get(at + 1));
        value.unwrap_or_else(|| panic!("{language}: no `{name}` in `{line}`"))
    };
    let tile = Tile::generate(TileCoord {
        level: 0,
        x: 3,
        y: -2,
    });
    assert_eq!(number(field("min")), tile.min, "{language}: {line}");
    assert_eq!(number(field("max")), tile.max, "{language}: {line}");
    assert_eq!(
        number(field("first")),
        tile.heights[0],
        "{language}: {line}"
    );
    assert_eq!(
        field("samples").parse::<u32>().unwrap(),
        RESOLUTION * RESOLUTION,
        "{language}: {line}"
    );
}

#[test]
fn python_and_javascript_scripts_call_terrain_live_and_built() {
    let engine = common::engine();
    for (language, path) in scripts() {
        let source = ScriptSource::new(&path).unwrap();
        let live = source
            .load(&engine, BuildOutput::Capture)
            .unwrap_or_else(|e| panic!("{language}: {e:#}"));
        runs_and_reads_the_tile(language, &live);

        let (name, bytes) = source
            .build(BuildOutput::Capture, Some(&common::cache_dir()))
            .unwrap_or_else(|e| panic!("{language}: {e:#}"));
        let built = engine
            .load_bytes(&name, &bytes)
            .unwrap_or_else(|e| panic!("{language}: {e:#}"));
        runs_and_reads_the_tile(language, &built);
    }
}

#[test]
fn a_host_without_the_extension_refuses_them_naming_the_interface() {
    let core = ScriptEngine::new(EngineOptions {
        cache_dir: Some(common::cache_dir()),
        ..EngineOptions::default()
    })
    .unwrap();
    for (language, path) in scripts() {
        let error = ScriptSource::new(&path)
            .and_then(|source| source.load(&core, BuildOutput::Capture))
            .map(drop)
            .unwrap_err();
        let text = format!("{error:#}");
        assert!(
            text.contains(
                "it imports `game:terrain/terrain@0.1.0`, an extension's interface this host does \
                 not provide"
            ),
            "{language}: {text}"
        );
    }
}

#[test]
fn grants_that_leave_terrain_out_refuse_them_at_load() {
    let engine = common::engine();
    let file: game_host::GrantFile =
        toml::from_str("[default]\nimports = [\"log\", \"runtime\", \"tasks\"]\n").unwrap();
    let (mut runtime, _log) = common::runtime_with(game_host::RuntimeConfig {
        grants: game_host::GrantPolicy::new(file).unwrap(),
        ..game_host::RuntimeConfig::default()
    });
    for (language, path) in scripts() {
        let source = ScriptSource::new(&path).unwrap();
        let live = source.load(&engine, BuildOutput::Capture).unwrap();
        let error = format!("{:#}", runtime.spawn(&live).unwrap_err());
        assert!(
            error.contains("imports `game:terrain/terrain`, which its grants do not include"),
            "{language}: {error}"
        );
    }
}
