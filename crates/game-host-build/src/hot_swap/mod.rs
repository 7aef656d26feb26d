//! Hot-swap: watch script sources, rebuild and compile changed scripts on a
//! background thread, and swap them in at a frame boundary.
//!
//! The frame thread only ever calls [`HotSwapper::apply`], which takes
//! finished builds off a channel without waiting. A `.wasm` source is
//! reloaded when the file changes; a crate directory is rebuilt with cargo
//! when anything under `src/` or its `Cargo.toml` changes; a Python script
//! when a `.py` module in its directory changes, a JavaScript script when
//! its module changes (both with their componentize tool). Each source has a
//! content fingerprint: an event that changed no source (cargo opening
//! `Cargo.toml`, a save without edits) starts no build, so an idle session
//! builds nothing and a save builds once. A build or compile that fails (a
//! half-written file, a syntax error, a component that no longer fits the
//! API) is reported once, in the tool's own shape, and retried on the next
//! change; the running version is untouched, and a line says when the script
//! runs again. A script whose every instance has failed waits for its next
//! edit, which starts it anew.
//!
//! This module is the frame thread's side (watching, swapping, starting
//! again); `builder` is the build thread's.

mod builder;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use uuid::Uuid;

use builder::{Built, Request, Watched, build_loop};

use crate::source::ScriptSource;
use game_host::runtime::{Runtime, SwapReport};
use game_host::sync::LockExt;
use game_host::{ScriptComponent, ScriptEngine};

/// How long the watcher waits for a burst of file events to settle.
const DEBOUNCE: Duration = Duration::from_millis(100);

/// The outcome of one swap attempt, as returned by [`HotSwapper::apply`].
#[derive(Debug)]
pub enum SwapOutcome {
    /// The instance runs the new code.
    Swapped {
        /// What the swap did.
        report: SwapReport,
        /// Time spent building (for crates) and compiling the new code.
        build_time: Duration,
    },
    /// Every instance of the source had failed; the new version was started
    /// in their place (as many instances as were watched).
    Started {
        /// The script's name.
        script: String,
        /// The new instances.
        instances: Vec<Uuid>,
        /// Time spent building and compiling the new code.
        build_time: Duration,
    },
    /// Building, compiling or swapping failed; the old code keeps running.
    Failed {
        /// The script's source path.
        source: PathBuf,
        /// The cause: a first line, then the tool's diagnostics as it
        /// printed them.
        error: String,
    },
}

/// The instances the frame thread keeps for one watched source.
struct Running {
    /// The instances running the source.
    ids: Vec<Uuid>,
    /// How many to start again when every one has failed.
    wanted: usize,
    /// Whether the last outcome was a failure (a build, a swap, or every
    /// instance failing): the next success then says the script runs again.
    failing: bool,
}

/// Watches script sources and swaps changed scripts into a [`Runtime`].
pub struct HotSwapper {
    /// Watched sources, by index.
    sources: Arc<Mutex<Vec<Watched>>>,
    /// The instances of each watched source, by index.
    running: Vec<Running>,
    /// How many script errors the runtime had at the last check: instances
    /// are looked for only when that changes.
    errors_seen: usize,
    /// `None` only while dropping.
    debouncer: Option<Debouncer<RecommendedWatcher>>,
    requests: Sender<Request>,
    built: Receiver<Built>,
    _worker: JoinHandle<()>,
}

impl HotSwapper {
    /// Starts the watcher and the background build thread.
    pub fn new(engine: Arc<ScriptEngine>) -> Result<Self> {
        let sources: Arc<Mutex<Vec<Watched>>> = Arc::default();
        let (requests, requested) = channel::<Request>();
        let (built_tx, built) = channel::<Built>();

        let watched = sources.clone();
        let notify = requests.clone();
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
                let _ = notify.send(Request::Changed(index));
            }
        })
        .context("failed to start the file watcher")?;

        let worker_sources = sources.clone();
        let worker = std::thread::Builder::new()
            .name("hot-swap-builder".into())
            .spawn(move || build_loop(&engine, &worker_sources, &requested, &built_tx))
            .context("failed to start the hot-swap build thread")?;

        Ok(HotSwapper {
            sources,
            running: Vec::new(),
            errors_seen: 0,
            debouncer: Some(debouncer),
            requests,
            built,
            _worker: worker,
        })
    }

    /// Watches `path` (anything [`ScriptSource::new`] accepts) and swaps
    /// the given instances to each new version. Should they all fail, the
    /// next version starts as many again.
    pub fn watch(&mut self, path: &Path, instances: Vec<Uuid>) -> Result<()> {
        let wanted = instances.len();
        self.add(path, instances, wanted)
    }

    /// Watches `path`, a script that could not be started (it failed to
    /// build, load or start): its next good version starts `instances`
    /// instances.
    pub fn watch_failed(&mut self, path: &Path, instances: usize) -> Result<()> {
        self.add(path, Vec::new(), instances)?;
        if let Some(running) = self.running.last_mut() {
            running.failing = true;
        }
        Ok(())
    }

    fn add(&mut self, path: &Path, ids: Vec<Uuid>, wanted: usize) -> Result<()> {
        let path = path
            .canonicalize()
            .with_context(|| format!("cannot watch `{}`", path.display()))?;
        let watcher = self
            .debouncer
            .as_mut()
            .expect("the watcher lives as long as the swapper")
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
        self.running.push(Running {
            ids,
            wanted,
            failing: false,
        });
        Ok(())
    }

    /// Rebuilds source `index` now, as if it had changed.
    pub fn trigger(&self, index: usize) {
        let _ = self.requests.send(Request::Forced(index));
    }

    /// Whether some watched source runs no instance and waits for an edit.
    pub fn is_waiting(&self) -> bool {
        self.running
            .iter()
            .any(|r| r.ids.is_empty() && r.wanted > 0)
    }

    /// Swaps in every new version that finished building since the last
    /// call, and starts it where every instance had failed. Never waits;
    /// call it between frames.
    pub fn apply(&mut self, runtime: &mut Runtime) -> Vec<SwapOutcome> {
        self.notice_failures(runtime);
        let mut outcomes = Vec::new();
        while let Ok(Built { source, result }) = self.built.try_recv() {
            let path = self.source_path(source);
            let (component, build_time) = match result {
                Ok(built) => built,
                Err(error) => {
                    self.running[source].failing = true;
                    outcomes.push(failed(&path, &error));
                    continue;
                }
            };
            let running = &mut self.running[source];
            running.ids.retain(|id| runtime.inspect().is_alive(*id));
            let mut ok = !running.ids.is_empty() || running.wanted == 0;
            if running.ids.is_empty() && running.wanted > 0 {
                match start(runtime, &component, running.wanted) {
                    Ok(ids) => {
                        tracing::info!(
                            script = component.name(),
                            instances = ids.len(),
                            build = ?build_time,
                            "started the new version"
                        );
                        running.ids = ids.clone();
                        outcomes.push(SwapOutcome::Started {
                            script: component.name().to_owned(),
                            instances: ids,
                            build_time,
                        });
                        ok = true;
                    }
                    Err(error) => outcomes.push(failed(&path, &error)),
                }
            } else {
                // An instance waiting for a restart (--max-restarts) comes
                // back from the version it failed in; the running ones swap.
                let live: Vec<Uuid> = running
                    .ids
                    .iter()
                    .copied()
                    .filter(|id| runtime.inspect().instance(*id).is_some())
                    .collect();
                for id in &live {
                    match runtime.hot_swap(*id, &component) {
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
                        Err(error) => {
                            ok = false;
                            // The runtime's error starts by saying the old
                            // version keeps running, as `failed` does.
                            let causes: Vec<String> =
                                error.chain().skip(1).map(ToString::to_string).collect();
                            let error = match causes.is_empty() {
                                true => error,
                                false => anyhow::anyhow!(causes.join(": ")),
                            };
                            outcomes.push(failed(&path, &error));
                        }
                    }
                }
            }
            if ok && std::mem::take(&mut running.failing) {
                tracing::info!("`{}` is running again", path.display());
            }
            if !ok {
                running.failing = true;
            }
        }
        self.errors_seen = runtime.inspect().errors().len();
        outcomes
    }

    /// Drops the instances that failed since the last call; says so when a
    /// source has none left.
    fn notice_failures(&mut self, runtime: &Runtime) {
        if runtime.inspect().errors().len() == self.errors_seen {
            return;
        }
        self.errors_seen = runtime.inspect().errors().len();
        for (index, running) in self.running.iter_mut().enumerate() {
            let before = running.ids.len();
            running.ids.retain(|id| runtime.inspect().is_alive(*id));
            if before > 0 && running.ids.is_empty() {
                running.failing = true;
                let path = self.sources.lock_unpoisoned()[index]
                    .source
                    .path()
                    .to_owned();
                tracing::warn!(
                    "every instance of `{}` has failed; waiting for an edit to start it again",
                    path.display()
                );
            }
        }
    }

    fn source_path(&self, index: usize) -> PathBuf {
        self.sources.lock_unpoisoned()[index]
            .source
            .path()
            .to_owned()
    }
}

/// Starts `count` instances of `component`; on a failure, despawns the
/// ones already started.
fn start(runtime: &mut Runtime, component: &ScriptComponent, count: usize) -> Result<Vec<Uuid>> {
    let mut ids = Vec::with_capacity(count);
    for _ in 0..count {
        match runtime.spawn(component) {
            Ok(id) => ids.push(id),
            Err(error) => {
                for id in ids {
                    runtime.despawn(id);
                }
                return Err(error);
            }
        }
    }
    Ok(ids)
}

fn failed(path: &Path, error: &anyhow::Error) -> SwapOutcome {
    // The first line names the script; a tool's diagnostics follow as it
    // printed them (a caret must stay under its column).
    let error = format!("{error:#}");
    tracing::error!(
        "hot-swap of `{}` failed; the old version keeps running: {error}",
        path.display()
    );
    SwapOutcome::Failed {
        source: path.to_owned(),
        error,
    }
}

impl Drop for HotSwapper {
    fn drop(&mut self) {
        // Stop watching; once the watcher's sender and ours are gone the
        // build thread's channel closes and it ends after any build in
        // progress (it is not joined, so exiting never waits for cargo).
        self.debouncer.take();
    }
}
