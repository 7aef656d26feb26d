//! [`Keeping`]: what keeps one world beyond its frames, built in one place
//! for a world that starts and for one that resumes (from a state
//! directory, or handed over by a fleet): its recording
//! (`--record-worlds`), and with a state directory its journal (the log),
//! its seat log and what suspends it at a shutdown. A new world is entered
//! in the server's directory (a fleet's) here too, and taken out again if
//! it cannot be kept.

use anyhow::{Context, Result};

use crate::config::ServerConfig;
use crate::durable::{Durable, Manifest, SeatLog, WorldFiles};
use game_host::ScriptComponent;
use game_host::record::{Journal, Recorder, Recording, RunSettings, Suspender};
use game_host::runtime::Runtime;

/// What keeps one world, before it is given to the world's runtime.
pub(crate) struct Keeping {
    recorder: Option<Recorder>,
    journal: Option<Journal>,
    seat_log: Option<SeatLog>,
}

/// What keeps one world, once its runtime is observed: what the world and
/// its hub hold.
pub(crate) struct Kept {
    /// The players' seats, written as they change.
    pub seat_log: Option<SeatLog>,
    /// Suspends the world (rather than end it) when the server stops, so
    /// that it resumes.
    pub suspender: Option<Suspender>,
}

impl Keeping {
    /// For world `id`, starting with `settings` and `scripts`: recorded if
    /// the server records worlds; kept in the state directory if it has one
    /// (`durable`), its folder made with `manifest` and the world entered
    /// in the server's directory. On failure nothing is left behind: the
    /// folder is removed and the world taken out of the directory again.
    pub fn start(
        id: u64,
        config: &ServerConfig,
        durable: Option<&Durable>,
        manifest: &Manifest,
        settings: &RunSettings,
        scripts: &[(ScriptComponent, u32)],
    ) -> Result<Keeping> {
        let recorder = match &config.record_dir {
            Some(dir) => {
                let path = dir.join(format!("world-{id}.rec"));
                let recorder = Recorder::create(&path, settings.clone(), scripts)
                    .with_context(|| format!("world {id} could not be recorded"))?;
                Some(recorder)
            }
            None => None,
        };
        let Some(durable) = durable else {
            return Ok(Keeping {
                recorder,
                journal: None,
                seat_log: None,
            });
        };
        let files = WorldFiles::of(&durable.state.dir, id);
        let manifest = files
            .create(manifest)
            .with_context(|| format!("world {id} could not be kept"))?;
        let directory = durable.state.directory.as_ref();
        if let Some(directory) = directory {
            directory
                .create(id, &manifest)
                .inspect_err(|_| files.remove())
                .with_context(|| format!("world {id} could not be entered in the fleet"))?;
        }
        // A world that cannot be kept is taken out of the fleet again.
        let abandon = |_: &anyhow::Error| {
            files.remove();
            if let Some(directory) = directory {
                directory.abandon(id);
            }
        };
        let journal = Journal::create(
            &durable.writer,
            &files.log(),
            settings.clone(),
            scripts,
            durable.state.flush_every,
        )
        .inspect_err(abandon)
        .with_context(|| format!("world {id} could not be kept"))?;
        let seat_log = SeatLog::open(&files.seats(), durable.mirror()).inspect_err(abandon)?;
        Ok(Keeping {
            recorder,
            journal: Some(journal),
            seat_log: Some(seat_log),
        })
    }

    /// For world `id` of the state directory, resumed from `recording`
    /// (its log, read back): its journal goes on writing the same log, and
    /// its seat log the same seats.
    pub fn resume(id: u64, durable: &Durable, recording: &Recording) -> Result<Keeping> {
        let files = WorldFiles::of(&durable.state.dir, id);
        let journal = Journal::resume(
            &durable.writer,
            &files.log(),
            recording,
            durable.state.flush_every,
        )?;
        Ok(Keeping {
            recorder: None,
            journal: Some(journal),
            seat_log: Some(SeatLog::open(&files.seats(), durable.mirror())?),
        })
    }

    /// Has `runtime` observed by the recorder and the journal, and gives
    /// what the world holds.
    pub fn keep(self, runtime: &mut Runtime) -> Kept {
        if let Some(recorder) = self.recorder {
            runtime.observe(Box::new(recorder));
        }
        let suspender = self.journal.map(|journal| {
            let suspender = journal.suspender();
            runtime.observe(Box::new(journal));
            suspender
        });
        Kept {
            seat_log: self.seat_log,
            suspender,
        }
    }
}
