//! Command-line interface: `host run` (one game), `host serve` (many
//! worlds on loop threads), `host replay` (a recording checked), `host new`
//! (a script project) and `host build` (a script's component, to ship),
//! with the engine options they share.

mod build;
mod engine_args;
mod new;
mod replay;
mod run;
mod serve;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// The built-in default script: the spinning-cube example, built from the
/// workspace's source for wasm32-wasip2 by `build.rs` and embedded here, so
/// an installed `host` runs it from anywhere.
const DEFAULT_SCRIPT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/spinning_cube.wasm"));

/// The default script's name in logs and errors.
const DEFAULT_SCRIPT_NAME: &str = "spinning_cube";

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
    Serve(serve::ServeArgs),
    /// Make a script project (Rust, Python or JavaScript) in a new
    /// directory, ready for `host run` and `host run --watch`.
    New(new::NewArgs),
    /// Run a recording (`run --record`, `serve --record-worlds`) again,
    /// headless, and check every frame's scene against it: exits 0 when they
    /// agree, else names the first frame that diverges.
    Replay(replay::ReplayArgs),
    /// Build a script (a crate, or a Python or JavaScript script) into one
    /// self-contained component file, to ship. `host run` needs no build:
    /// it builds crates itself and runs Python and JavaScript live.
    Build(build::BuildArgs),
}

pub fn main(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Serve(args) => serve::serve(args),
        Command::Replay(args) => replay::replay(args),
        Command::New(args) => new::new(args),
        Command::Build(args) => build::build(args),
    }
}

/// A clap value parser for a number from `min` to `max`: an option out of
/// range (or not finite) is a usage error naming the range, never a panic
/// later where the number becomes a duration or a frame count.
fn number_in(
    min: f64,
    max: f64,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text| match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && (min..=max).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a number from {min} to {max}")),
    }
}

/// Frames per second a world may run at.
const HZ: (f64, f64) = (0.1, 1000.0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_range_are_usage_errors() {
        let hz = number_in(HZ.0, HZ.1);
        assert_eq!(hz("60"), Ok(60.0));
        for bad in ["1e-300", "0", "-1", "1e300", "inf", "NaN", "fast"] {
            let error = hz(bad).unwrap_err();
            assert_eq!(error, format!("`{bad}` is not a number from 0.1 to 1000"));
        }
        assert_eq!(number_in(0.0, 10.0)("0"), Ok(0.0));
    }
}
