//! Command-line interface: `host run` (one game), `host serve` (many
//! worlds on loop threads), `host replay` (a recording checked), `host new`
//! (a script project), `host check` (a script's types, without running it)
//! and `host build` (a script's component, to ship), with the engine
//! options they share.

mod build;
mod check;
#[cfg(feature = "render")]
mod drawing;
#[cfg(not(feature = "render"))]
mod drawing_absent;
mod engine_args;
mod extensions;
mod fleet;
#[cfg(not(feature = "fleet"))]
mod fleet_absent;
#[cfg(feature = "fleet")]
mod fleet_member;
mod new;
mod play_args;
mod ranges;
mod recorded;
mod replay;
mod run;
mod serve;
mod serve_output;
mod sidecar;
mod state_dir;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Runs WebAssembly game scripts frame by frame.
#[derive(Debug, Parser)]
#[command(name = "host", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load scripts and run the game loop.
    Run(run::RunArgs),
    /// Run many worlds (each a scene plus its own instances of the scripts)
    /// on dedicated loop threads, with an HTTP control surface, Prometheus
    /// metrics and health checks.
    Serve(Box<serve::ServeArgs>),
    /// Make a script project (Rust, Python, JavaScript or TypeScript) in a new
    /// directory, ready for `host run` and `host run --watch`.
    New(new::NewArgs),
    /// Check a script's types without running it: `cargo check` for a crate,
    /// pyright for Python, `tsc` for JavaScript and TypeScript (against the editor types,
    /// written or refreshed first). Exits 1 on errors, 2 if a checker is
    /// missing.
    Check(check::CheckArgs),
    /// Run a recording (`run --record`, `serve --record-worlds`) again,
    /// headless, and check every frame's scene against it: exits 0 when they
    /// agree, else names the first frame that diverges.
    Replay(replay::ReplayArgs),
    /// Build a script (a crate, or a Python, JavaScript or TypeScript script)
    /// into one self-contained component file, to ship. `host run` needs no
    /// build: it builds crates itself and runs the others live.
    Build(build::BuildArgs),
}

pub fn main(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Serve(args) => serve::serve(*args),
        Command::Replay(args) => replay::replay(args),
        Command::New(args) => new::new(args),
        Command::Build(args) => build::build(args),
        Command::Check(args) => check::check(args),
    }
}
