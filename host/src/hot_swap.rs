//! Hot-swap: watch script sources, rebuild and compile changed scripts on a
//! background thread, and swap them in at a frame boundary.
//!
//! The frame thread only ever calls [`HotReloader::apply`], which takes
//! finished builds off a channel without waiting. A `.wasm` source is
//! reloaded when the file changes; a crate directory is rebuilt with cargo
//! when anything under `src/` or its `Cargo.toml` changes; a Python script
//! when a `.py` module in its directory changes, a JavaScript script when
//! its module changes (both with their componentize tool). A build or compile
//! that fails (a half-written file, a syntax error, a component that no
//! longer fits the API) is reported once and retried on the next change;
//! the running version is untouched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use uuid::Uuid;

use crate::cargo_build::BuildOutput;
use crate::engine::{ScriptComponent, ScriptEngine};
use crate::runtime::{Runtime, SwapReport};
use crate::source::ScriptSource;
use crate::sync::LockExt;

/// How long the watcher waits for a burst of file events to settle.
const DEBOUNCE: Duration = Duration::from_millis(100);

/// A new version of a watched script, built and compiled.
struct Built {
    source: usize,
    result: Result<(ScriptComponent, Duration)>,
}

/// The outcome of one swap attempt, as returned by [`HotReloader::apply`].
#[derive(Debug)]
pub enum SwapOutcome {
    /// The instance runs the new code.
    Swapped {
        /// What the swap did.
        report: SwapReport,
        /// Time spent building (for crates) and compiling the new code.
        build_time: Duration,
    },
    /// Building, compiling or swapping failed; the old code keeps running.
    Failed {
        /// The script's source path.
        source: PathBuf,
        /// The cause, on one line.
        error: String,
    },
}

/// A watched source.
struct Watched {
    source: ScriptSource,
    /// For sources whose builds differ every time (Python, JavaScript): a
    /// fingerprint of the sources last built, so that an event that changed
    /// nothing (the build itself reading the files, a save without edits)
    /// starts no build.
    fingerprint: Option<String>,
}

/// Watches script sources and swaps changed scripts into a [`Runtime`].
pub struct HotReloader {
    /// Watched sources, by index.
    sources: Arc<Mutex<Vec<Watched>>>,
    /// The instances running each watched source, by index.
    instances: Vec<Vec<Uuid>>,
    /// `None` only while dropping.
    debouncer: Option<Debouncer<RecommendedWatcher>>,
    changes: Sender<usize>,
    built: Receiver<Built>,
    _worker: JoinHandle<()>,
}

impl HotReloader {
    /// Starts the watcher and the background build thread.
    pub fn new(engine: Arc<ScriptEngine>) -> Result<Self> {
        let sources: Arc<Mutex<Vec<Watched>>> = Arc::default();
        let (changes, changed) = channel::<usize>();
        let (built_tx, built) = channel::<Built>();

        let watched = sources.clone();
        let notify = changes.clone();
        let debouncer = new_debouncer(DEBOUNCE, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let sources = watched.lock_unpoisoned();
            let mut touched: Vec<usize> = Vec::new();
            for event in events {
                for (index, watched) in sources.iter().enumerate() {
                    if watched.source.is_touched_by(&event.path) && !touched.contains(&index) {
                        touched.push(index);
                    }
                }
            }
            for index in touched {
                let _ = notify.send(index);
            }
        })
        .context("failed to start the file watcher")?;

        let worker_sources = sources.clone();
        let worker = std::thread::Builder::new()
            .name("hot-swap-builder".into())
            .spawn(move || build_loop(&engine, &worker_sources, &changed, &built_tx))
            .context("failed to start the hot-swap build thread")?;

        Ok(HotReloader {
            sources,
            instances: Vec::new(),
            debouncer: Some(debouncer),
            changes,
            built,
            _worker: worker,
        })
    }

    /// Watches `path` (anything [`ScriptSource::new`] accepts) and swaps
    /// the given instances to each new version.
    pub fn watch(&mut self, path: &Path, instances: Vec<Uuid>) -> Result<()> {
        let path = path
            .canonicalize()
            .with_context(|| format!("cannot watch `{}`", path.display()))?;
        let watcher = self
            .debouncer
            .as_mut()
            .expect("the watcher lives as long as the reloader")
            .watcher();
        let source = ScriptSource::new(&path)?;
        for (dir, recursive) in source.watch_dirs() {
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            watcher
                .watch(&dir, mode)
                .with_context(|| format!("cannot watch `{}`", dir.display()))?;
        }
        tracing::info!(path = %source.path().display(), "watching for changes");
        let fingerprint = source.fingerprint();
        self.sources.lock_unpoisoned().push(Watched {
            source,
            fingerprint,
        });
        self.instances.push(instances);
        Ok(())
    }

    /// Rebuilds source `index` now, as if it had changed.
    pub fn trigger(&self, index: usize) {
        let _ = self.changes.send(index);
    }

    /// Swaps in every new version that finished building since the last
    /// call. Never waits; call it between frames.
    pub fn apply(&mut self, runtime: &mut Runtime) -> Vec<SwapOutcome> {
        let mut outcomes = Vec::new();
        while let Ok(Built { source, result }) = self.built.try_recv() {
            let path = self.source_path(source);
            let (component, build_time) = match result {
                Ok(built) => built,
                Err(error) => {
                    outcomes.push(failed(&path, &error));
                    continue;
                }
            };
            self.instances[source].retain(|id| runtime.instance(*id).is_some());
            for id in &self.instances[source] {
                match runtime.replace(*id, &component) {
                    Ok(report) => {
                        tracing::info!(
                            script = %report.script,
                            id = %report.instance,
                            old_bytes = report.old_size,
                            new_bytes = report.new_size,
                            build = ?build_time,
                            pause = ?report.pause,
                            state = if report.restored { "handed over" } else { "restarted" },
                            "hot-swapped"
                        );
                        outcomes.push(SwapOutcome::Swapped { report, build_time });
                    }
                    Err(error) => outcomes.push(failed(&path, &error)),
                }
            }
        }
        outcomes
    }

    fn source_path(&self, index: usize) -> PathBuf {
        self.sources.lock_unpoisoned()[index]
            .source
            .path()
            .to_owned()
    }
}

fn failed(path: &Path, error: &anyhow::Error) -> SwapOutcome {
    let error = format!("{error:#}").replace('\n', " | ");
    tracing::error!(
        "hot-swap of `{}` failed; the old version keeps running: {error}",
        path.display()
    );
    SwapOutcome::Failed {
        source: path.to_owned(),
        error,
    }
}

impl Drop for HotReloader {
    fn drop(&mut self) {
        // Stop watching; once the watcher's sender and ours are gone the
        // build thread's channel closes and it ends after any build in
        // progress (it is not joined, so exiting never waits for cargo).
        self.debouncer.take();
    }
}

/// The background thread: builds and compiles each changed source, skipping
/// versions identical to the last one tried (so each version, good or bad,
/// is reported once).
fn build_loop(
    engine: &ScriptEngine,
    sources: &Mutex<Vec<Watched>>,
    changed: &Receiver<usize>,
    built: &Sender<Built>,
) {
    let mut last_tried: HashMap<usize, Vec<u8>> = HashMap::new();
    while let Ok(first) = changed.recv() {
        // Coalesce changes that queued up during the last build.
        let mut pending = vec![first];
        while let Ok(more) = changed.try_recv() {
            if !pending.contains(&more) {
                pending.push(more);
            }
        }
        for index in pending {
            let (source, seen) = {
                let watched = &sources.lock_unpoisoned()[index];
                (watched.source.clone(), watched.fingerprint.clone())
            };
            if seen.is_some() {
                let now = source.fingerprint();
                if now.is_some() && now == seen {
                    continue; // an event that changed no source
                }
                sources.lock_unpoisoned()[index].fingerprint = now;
            }
            let started = Instant::now();
            let result = source
                .build(BuildOutput::Capture, engine.cache_dir())
                .and_then(|(name, bytes)| {
                    if last_tried.get(&index) == Some(&bytes) {
                        return Ok(None);
                    }
                    let loaded = engine
                        .load_bytes(&name, &bytes)
                        .and_then(|component| component.warm_up().map(|()| component))
                        .with_context(|| {
                            format!("failed to load script `{}`", source.path().display())
                        });
                    last_tried.insert(index, bytes);
                    loaded.map(Some)
                });
            let result = match result {
                Ok(None) => continue, // unchanged, e.g. a comment edit or a repeated event
                Ok(Some(component)) => Ok((component, started.elapsed())),
                Err(error) => Err(error),
            };
            if built
                .send(Built {
                    source: index,
                    result,
                })
                .is_err()
            {
                return;
            }
        }
    }
}
