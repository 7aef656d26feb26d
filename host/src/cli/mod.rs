//! Command-line interface: `host run` (one game) and `host serve` (many
//! worlds on loop threads), with the engine options they share.

mod engine_args;
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
}

pub fn main(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Serve(args) => serve::serve(args),
    }
}

fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("`{text}` is not a non-negative number")),
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("`{text}` is not a positive number")),
    }
}
