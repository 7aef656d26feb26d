//! `host check SCRIPT`: a script's types checked without running it, by its
//! language's checker (`cargo check`, pyright, `tsc`); Python and
//! JavaScript against the editor types, written or refreshed first.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use game_host::game_types::GameTypes;
use game_host_build::check::{self, Checked};
use game_host_build::{ScriptSource, editor_types, project};

use super::engine_args::parse_game;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The script: a crate directory, or a Python, JavaScript or TypeScript
    /// script (its directory, or its `.py` / `.js` / `.ts` file).
    script: PathBuf,

    /// First bring the project's game types (`wit/game.wit`, and a Rust
    /// project's `src/game.rs`) to this description of the game (as
    /// `host run --game` takes it): the check then says what the script
    /// gets wrong against it.
    #[arg(long, value_name = "FILE", value_parser = parse_game)]
    game: Option<Arc<GameTypes>>,
}

/// Writes `game`'s types into the project of `source`, saying which files
/// changed.
fn update_game(source: &ScriptSource, game: &GameTypes) -> Result<()> {
    let (dir, rust) = match source {
        ScriptSource::Crate(dir) if !dir.join("Cargo.toml").is_file() => anyhow::bail!(
            "`{}` is no script project (no Cargo.toml, app.py, app.js or app.ts)",
            dir.display()
        ),
        ScriptSource::Crate(dir) => (dir.as_path(), true),
        ScriptSource::Foreign(_, entry) => (editor_types::project_dir(entry), false),
        ScriptSource::File(file) => anyhow::bail!(
            "`{}` is a built component: give `--game` its project",
            file.display()
        ),
    };
    for file in project::update_game(dir, rust, game)? {
        eprintln!(
            "updated `{}` to game `{}`'s description",
            dir.join(file).display(),
            game.name
        );
    }
    Ok(())
}

/// Exits 0 when the checker finds no errors, 1 when it does (printed above
/// the last line), 2 when the check cannot run: the checker (or the tool
/// writing the types) is missing, or the path is not a script.
pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let shown = args.script.display();
    let checked = ScriptSource::new(&args.script).and_then(|source| {
        if let Some(game) = &args.game {
            update_game(&source, game)?;
        }
        check::check(&source)
    });
    let checked = match checked {
        Ok(checked) => checked,
        Err(error) => {
            eprintln!("error: {error:#}");
            return Ok(ExitCode::from(2));
        }
    };
    Ok(match checked {
        Checked::Clean { checker } => {
            eprintln!("`{shown}`: no errors ({checker})");
            ExitCode::SUCCESS
        }
        Checked::Errors { checker } => {
            eprintln!("`{shown}`: {checker} found errors (above)");
            ExitCode::from(1)
        }
        Checked::Missing(missing) => {
            eprintln!("cannot check `{shown}`: {missing}");
            ExitCode::from(2)
        }
    })
}
