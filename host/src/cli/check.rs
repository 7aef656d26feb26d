//! `host check SCRIPT`: a script's types checked without running it, by its
//! language's checker (`cargo check`, pyright, `tsc`); Python and
//! JavaScript against the editor types, written or refreshed first.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use game_host_build::ScriptSource;
use game_host_build::check::{self, Checked};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The script: a crate directory, or a Python or JavaScript script (its
    /// directory, or its `.py` / `.js` file).
    script: PathBuf,
}

/// Exits 0 when the checker finds no errors, 1 when it does (printed above
/// the last line), 2 when the check cannot run: the checker (or the tool
/// writing the types) is missing, or the path is not a script.
pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let shown = args.script.display();
    let checked = ScriptSource::new(&args.script).and_then(|source| check::check(&source));
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
