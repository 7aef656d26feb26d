//! What the mirror sends again when Redis lost part of what it had:
//! the bytes of a log it lacks (read back from the node's working copy),
//! a world's whole seat log, and the world itself, entered again.

use anyhow::{Context, Result};

use super::conn::Conn;
use super::keys::{Kind, NEXT_WORLD, world_key, worlds_key};
use super::mirror::{MAX_BUFFER, Mirror, Record, file_name};
use super::scripts::RECREATE;
use game_host::sync::LockExt;

impl Mirror {
    /// What Redis lacks of `record`'s log before it, read back from
    /// the node's working copy: the bytes from `ends` to the record.
    pub(super) fn missing(&self, record: &Record, ends: u64) -> Option<Record> {
        use std::io::{Read, Seek, SeekFrom};
        let length = usize::try_from(record.offset.checked_sub(ends)?).ok()?;
        if length > MAX_BUFFER {
            return None;
        }
        let dir = self
            .state
            .lock_unpoisoned()
            .dirs
            .get(&record.world)?
            .clone();
        let mut file = std::fs::File::open(dir.join(file_name(record.kind))).ok()?;
        file.seek(SeekFrom::Start(ends)).ok()?;
        let mut bytes = vec![0; length];
        file.read_exact(&mut bytes).ok()?;
        Some(Record {
            world: record.world,
            epoch: record.epoch,
            kind: record.kind,
            offset: ends,
            bytes,
            ends: false,
        })
    }

    /// The whole seat log of `record`'s world, from the node's working copy,
    /// to send again after Redis lost part of that world's logs (none
    /// for a seat log's own gap, which sends what it lacks).
    pub(super) fn seats_again(&self, record: &Record) -> Option<Record> {
        if record.kind == Kind::Seats {
            return None;
        }
        let dir = self
            .state
            .lock_unpoisoned()
            .dirs
            .get(&record.world)?
            .clone();
        let bytes =
            game_host::files::read_capped(&dir.join(file_name(Kind::Seats)), MAX_BUFFER as u64)
                .ok()?;
        // Up to its last whole line, as it is appended.
        let whole = bytes.iter().rposition(|b| *b == b'\n')? + 1;
        Some(Record {
            world: record.world,
            epoch: record.epoch,
            kind: Kind::Seats,
            offset: 0,
            bytes: bytes[..whole].to_vec(),
            ends: false,
        })
    }

    /// Enters `record`'s world in Redis again, held by this node at
    /// `epoch`, from its manifest in the node's working copy.
    pub(super) fn enter_again(&self, conn: &mut Conn, record: &Record, epoch: u64) -> Result<()> {
        let dir = self
            .state
            .lock_unpoisoned()
            .dirs
            .get(&record.world)
            .cloned()
            .context("its folder is not known")?;
        let manifest = game_host::files::read_capped(&dir.join("world.json"), 16 << 20)
            .context("its manifest cannot be read")?;
        let _: i64 = conn.run(|con| {
            RECREATE
                .key(world_key(record.world))
                .key(worlds_key(&self.node))
                .key(NEXT_WORLD)
                .arg(&self.node)
                .arg(record.world)
                .arg(&manifest)
                .arg(epoch)
                .invoke(con)
        })?;
        Ok(())
    }
}
