//! Where `host serve` puts its results: each ended world's scene
//! (`--dump-worlds`) and the metrics file (`--metrics-json`), written as
//! they come.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use game_host::files::{ensure_writable_dir, write_atomic};
use game_host_server::{Server, WorldReport};
use serde_json::json;

/// How often `--metrics-json` is rewritten while the server runs.
pub const METRICS_EVERY: Duration = Duration::from_secs(2);

/// Where results go, written as they come so a crash loses little: each
/// world's dump when it ends, the metrics file every few seconds and at
/// exit, each by writing a temporary file and renaming it.
pub struct Output {
    dumps: Option<PathBuf>,
    metrics: Option<PathBuf>,
    /// Every world that ended, oldest first.
    pub reports: Vec<WorldReport>,
}

impl Output {
    /// Checks both paths now, so an unusable one fails at start: the dump
    /// directory is created and written into, the metrics file written.
    pub fn open(dumps: Option<PathBuf>, metrics: Option<PathBuf>) -> Result<Output> {
        if let Some(dir) = &dumps {
            ensure_writable_dir(dir).context("--dump-worlds")?;
        }
        let output = Output {
            dumps,
            metrics,
            reports: Vec::new(),
        };
        if let Some(file) = &output.metrics {
            write_atomic(file, b"{}\n").context("--metrics-json")?;
        }
        Ok(output)
    }

    /// Takes the reports of worlds that ended and writes their dumps.
    pub fn take(&mut self, server: &Server) {
        for report in server.take_ended() {
            if let Some(dir) = &self.dumps {
                let file = dir.join(format!("world-{}.json", report.id.0));
                if let Err(error) = write_atomic(&file, report.scene.to_json().as_bytes()) {
                    tracing::error!("{error:#}");
                }
            }
            self.reports.push(report);
        }
    }

    /// Rewrites the metrics file: each thread's figures and each ended
    /// world's end.
    pub fn write_metrics(&self, server: &Server) {
        let Some(file) = &self.metrics else {
            return;
        };
        let worlds: Vec<_> = self
            .reports
            .iter()
            .map(|r| {
                json!({
                    "id": r.id, "thread": r.thread, "frames": r.frames,
                    "reason": r.reason, "errors": r.errors,
                })
            })
            .collect();
        let body = json!({ "threads": server.totals(), "worlds": worlds });
        if let Err(error) = write_atomic(file, format!("{body:#}\n").as_bytes()) {
            tracing::error!("{error:#}");
        }
    }
}
