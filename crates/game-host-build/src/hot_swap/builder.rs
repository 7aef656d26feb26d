//! The build thread of hot-swap: builds and compiles each watched source
//! whose content changed, and hands the result to the frame thread.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cargo_build::BuildOutput;
use crate::source::ScriptSource;
use game_host::sync::LockExt;
use game_host::{ScriptComponent, ScriptEngine};

/// A new version of a watched script, built and compiled.
pub(super) struct Built {
    pub(super) source: usize,
    pub(super) result: Result<(ScriptComponent, Duration)>,
}

/// What the watcher asks the build thread for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Request {
    /// A file event touched source `index`: build it if its content changed.
    Changed(usize),
    /// Build source `index` now, whatever its content.
    Forced(usize),
}

impl Request {
    fn index(self) -> usize {
        match self {
            Request::Changed(index) | Request::Forced(index) => index,
        }
    }
}

/// A watched source, as the watcher and the build thread share it.
pub(super) struct Watched {
    pub(super) source: ScriptSource,
    /// A fingerprint of the content last built, so that an event that
    /// changed nothing starts no build.
    pub(super) fingerprint: Option<String>,
}

/// The source's fingerprint once it holds still: a save that truncates and
/// then writes is read whole, not between the two.
fn settled_fingerprint(source: &ScriptSource) -> Option<String> {
    let mut now = source.fingerprint();
    for _ in 0..20 {
        std::thread::sleep(SETTLE);
        let again = source.fingerprint();
        if again == now {
            break;
        }
        now = again;
    }
    now
}

/// How long a source's content must hold still before it is built.
const SETTLE: Duration = Duration::from_millis(30);

/// What the build thread remembers of one source.
#[derive(Default)]
struct Tried {
    /// The digest of the component last loaded, while no error followed
    /// it: the same code again (a comment edit to a crate) needs no swap.
    digest: Option<String>,
    /// The last error reported, so the same one is not reported twice.
    error: Option<String>,
}

/// The background thread: builds and compiles each source whose content
/// changed, skipping components identical to the one running.
pub(super) fn build_loop(
    engine: &ScriptEngine,
    sources: &Mutex<Vec<Watched>>,
    requested: &Receiver<Request>,
    built: &Sender<Built>,
) {
    let mut tried: HashMap<usize, Tried> = HashMap::new();
    while let Ok(first) = requested.recv() {
        // Coalesce requests that queued up during the last build.
        let mut pending = vec![first];
        while let Ok(more) = requested.try_recv() {
            match pending.iter_mut().find(|p| p.index() == more.index()) {
                Some(queued) if more == Request::Forced(more.index()) => *queued = more,
                Some(_) => {}
                None => pending.push(more),
            }
        }
        for request in pending {
            let index = request.index();
            let (source, seen) = {
                let watched = &sources.lock_unpoisoned()[index];
                (watched.source.clone(), watched.fingerprint.clone())
            };
            let now = settled_fingerprint(&source);
            if matches!(request, Request::Changed(_)) && now.is_some() && now == seen {
                continue; // an event that changed no source
            }
            sources.lock_unpoisoned()[index].fingerprint = now;
            tracing::info!("`{}` changed; building", source.path().display());
            let started = Instant::now();
            let tried = tried.entry(index).or_default();
            // On the background pool, below the frames' priority: the
            // game keeps its frame rate while the script builds.
            let load = || source.load(engine, BuildOutput::Capture);
            let result = game_host::background::run(load).and_then(|component| {
                let digest = component.digest_hex();
                if tried.digest.as_ref() == Some(&digest) {
                    return Ok(None);
                }
                component.warm_up().with_context(|| {
                    format!("failed to load script `{}`", source.path().display())
                })?;
                tried.digest = Some(digest);
                Ok(Some(component))
            });
            let result = match result {
                Ok(None) => {
                    tracing::info!(
                        "`{}` builds the component already running; nothing to swap",
                        source.path().display()
                    );
                    continue;
                }
                Ok(Some(component)) => {
                    tried.error = None;
                    Ok((component, started.elapsed()))
                }
                Err(error) => {
                    // After an error, the next good build swaps even if it
                    // equals the running version: the author sees it land.
                    tried.digest = None;
                    let text = format!("{error:#}");
                    if tried.error.as_ref() == Some(&text) {
                        continue; // reported already
                    }
                    tried.error = Some(text);
                    Err(error)
                }
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
