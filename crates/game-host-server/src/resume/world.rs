//! A durable world made again from its files. Its instances' memory is
//! not in them (the engine cannot capture a running instance whole), so
//! its runtime starts its scripts afresh and replays its log from frame 1
//! to the log's last whole frame, checked against every scene digest the
//! log holds; then the world goes on writing the same log, and its players
//! take their seats again with the same tokens.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::RecordedLoader;
use crate::config::ServerConfig;
use crate::durable::{Durable, WorldFiles, read_seats};
use crate::keeping::Keeping;
use crate::stream::{DEFAULT_PRECISION, Seats, StreamSettings, WorldHub};
use crate::world::{MAX_STREAM_EVERY, World, WorldId, check_precision, world_runtime};
use game_host::files::read_capped;
use game_host::players::{PlayerEvent, PlayerId};
use game_host::record::{RecordedInput, Recording, replay};

/// The largest log read back (a world at 60 Hz writes a few MB an hour).
const MAX_LOG: u64 = 1 << 30;

/// World `id` of the state directory, resumed: its runtime at the log's
/// last whole frame, observed by its journal again ([`Keeping::resume`]). `reserve` holds room
/// for the instances its log's header starts (bounded as a recording's
/// are), before any script is loaded or any frame replayed: a log that
/// asks for more than the server has fails its world alone, at once.
pub(crate) fn resume_world<R>(
    id: WorldId,
    config: &ServerConfig,
    durable: &Durable,
    load: &RecordedLoader<'_>,
    reserve: impl FnOnce(usize) -> Result<R>,
) -> Result<(World, R)> {
    let files = WorldFiles::of(&durable.state.dir, id.0);
    let manifest = files.read_manifest()?;
    if manifest.id != id.0 {
        bail!("its manifest names world {}, not the folder's", manifest.id);
    }
    if !(1..=MAX_STREAM_EVERY).contains(&manifest.stream_every) {
        bail!(
            "its manifest's `stream_every` {} is not from 1 to {MAX_STREAM_EVERY}",
            manifest.stream_every
        );
    }
    let precision = manifest.stream_precision.unwrap_or(DEFAULT_PRECISION);
    check_precision(precision).context("its manifest's `stream_precision` is out of range")?;
    let log = files.log();
    let header = Recording::read_header(&log).context("its log's header is refused")?;
    let room = reserve(header.instances())?;
    let mut recording = read_log(&log, id)?;
    recording.cut_to_last_frame();
    let header = &recording.header;
    if header.hz != config.runtime.hz {
        bail!(
            "its log runs at {} Hz and this server at {} Hz (give --hz {})",
            header.hz,
            config.runtime.hz,
            header.hz
        );
    }
    if header.canonical_nans != config.canonical_nans {
        bail!(
            "its log was written with canonical NaNs {}, and this server runs with them {} \
             (--portable-floats)",
            on_off(header.canonical_nans),
            on_off(config.canonical_nans)
        );
    }
    let scripts = header
        .scripts
        .iter()
        .map(|recorded| {
            let script = load(recorded).with_context(|| format!("script `{}`", recorded.name))?;
            if script.digest_hex() != recorded.sha256 {
                bail!(
                    "script `{}` is not the one its log names (SHA-256 {}, not {})",
                    recorded.name,
                    script.digest_hex(),
                    recorded.sha256
                );
            }
            Ok(script)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut runtime = world_runtime(
        config,
        header.seed,
        manifest.grants.as_ref(),
        &header.open_to_players,
        manifest.restart(),
        header.player_bytes_per_frame,
    )?;
    let report = replay(&recording, &mut runtime, &scripts)?;
    if let Some(divergence) = report.divergence {
        let text = divergence.to_string();
        bail!(
            "its replay does not reach the state its log holds: {}",
            text.lines().next().unwrap_or_default()
        );
    }
    let kept = Keeping::resume(id.0, durable, &recording)?.keep(&mut runtime);

    // Its players: those with a seat take it again; a seat whose join the
    // log lost joins at the next frame, and a player the log has joined
    // whose seat was removed leaves then.
    let held = read_seats(&files.seats())?;
    let seats = &held.seats;
    let mut joined = BTreeSet::new();
    // Ids go on after every player the seat log or the log ever had.
    let mut last = held.last_admitted;
    // Each player's last command applied: a client sends again what it has
    // no ack for, and the world must not apply it twice.
    let mut commands: std::collections::BTreeMap<PlayerId, u64> = Default::default();
    for (_, input) in &recording.inputs {
        if let RecordedInput::Player(PlayerEvent::Commands(applied)) = input
            && let Some(command) = applied.commands.last()
        {
            commands.insert(applied.player, command.seq);
        }
        match input {
            RecordedInput::Player(PlayerEvent::Joined(player)) => {
                last = last.max(*player);
                joined.insert(*player)
            }
            RecordedInput::Player(PlayerEvent::Left(player)) => joined.remove(player),
            _ => false,
        };
    }
    let mut events: Vec<PlayerEvent> = seats
        .keys()
        .filter(|player| !joined.contains(player))
        .map(|player| PlayerEvent::Joined(*player))
        .collect();
    events.extend(
        joined
            .iter()
            .filter(|player| !seats.contains_key(player))
            .map(|player| PlayerEvent::Left(*player)),
    );
    let hub = WorldHub::with_seats(
        StreamSettings {
            every: manifest.stream_every,
            precision,
            kept_bytes: config.stream_kept_bytes,
        },
        config.max_players,
        (
            manifest.play.clone(),
            header.scripts.iter().map(|s| s.sha256.clone()).collect(),
        ),
        header.open_to_players.clone(),
        (Seats::restored(seats, last), kept.seat_log),
        events,
    );
    // Only for players still in the world.
    hub.commands_resumed((commands.into_iter()).filter(|(player, _)| seats.contains_key(player)));
    let world = World::new(id, runtime, manifest.frames, hub, kept.suspender);
    Ok((world, room))
}

/// A world's log read back up to its last intact line: a line cut or
/// damaged (by a crash mid-write, or on the disk) ends it there, with a
/// warning naming the line.
fn read_log(path: &Path, id: WorldId) -> Result<Recording> {
    let bytes = read_capped(path, MAX_LOG)
        .with_context(|| format!("failed to read its log `{}`", path.display()))?;
    // Text up to the first byte that is not UTF-8 (a line cut
    // mid-character, or damage on the disk): the line it is in is then
    // cut, and left out like any line cut short.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default(),
    };
    let (recording, damage) = Recording::parse_until_damaged(text)
        .with_context(|| format!("its log `{}` is not readable", path.display()))?;
    if let Some(damage) = damage {
        tracing::warn!(
            "{id}: its log `{}` is damaged ({damage:#}); it resumes from frame {}, the last \
             whole frame before the damage",
            path.display(),
            recording.frames()
        );
    }
    Ok(recording)
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}
