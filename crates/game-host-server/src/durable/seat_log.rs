//! [`SeatLog`]: the players a durable world admitted, each with its
//! token's digest (never the token), appended as each is admitted or
//! removed, so that a resumed world takes the same players with the same
//! tokens. An admission is on the disk before its token is handed out, and
//! says whether the player joined through the public join (`POST /play`),
//! whose absent players give their seats up to others.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use game_host::files::read_capped;
use game_host::hex::hex;
use game_host::players::PlayerId;
use game_host::record::LogMirror;

/// The largest seat log read back (a seat is about 90 bytes).
const MAX_SEAT_LOG: u64 = 64 << 20;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatLine {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    admit: Option<PlayerId>,
    /// With `admit`: the SHA-256 of its token, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    token_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remove: Option<PlayerId>,
    /// With `admit`: it joined through the public join. Left out where
    /// false, so that a node of an older version reads the log of a world
    /// no player joined that way (a fleet hands it between nodes).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    public: bool,
}

/// A durable world's seat log, open for appending.
pub(crate) struct SeatLog {
    path: PathBuf,
    file: File,
    /// Told of every line appended (a fleet's copy).
    mirror: Option<Arc<dyn LogMirror>>,
}

impl SeatLog {
    /// Opens (or starts) the seat log at `path`; a last line cut by a
    /// crash is cut away first, so what is appended starts a line.
    pub fn open(path: &Path, mirror: Option<Arc<dyn LogMirror>>) -> Result<SeatLog> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .with_context(|| format!("failed to open the seat log `{}`", path.display()))?;
        cut_torn_line(&file)
            .with_context(|| format!("failed to mend the seat log `{}`", path.display()))?;
        Ok(SeatLog {
            path: path.to_owned(),
            file,
            mirror,
        })
    }

    fn append(&mut self, line: &SeatLine) -> Result<()> {
        let mut text = serde_json::to_vec(line)?;
        text.push(b'\n');
        let failed = || format!("failed to write the seat log `{}`", self.path.display());
        let offset = self.file.metadata().with_context(failed)?.len();
        self.file.write_all(&text).with_context(failed)?;
        if let Some(mirror) = &self.mirror {
            mirror.appended(&self.path, offset, &text);
        }
        Ok(())
    }

    /// Notes that `player` was admitted with a token of digest `token`,
    /// through the public join or not.
    pub fn admitted(&mut self, player: PlayerId, token: &[u8; 32], public: bool) -> Result<()> {
        self.append(&SeatLine {
            admit: Some(player),
            token_sha256: Some(hex(token)),
            remove: None,
            public,
        })
    }

    /// Notes that `player` was removed.
    pub fn removed(&mut self, player: PlayerId) -> Result<()> {
        self.append(&SeatLine {
            admit: None,
            token_sha256: None,
            remove: Some(player),
            public: false,
        })
    }
}

/// Cuts a file open for appending back to the end of its last whole line.
fn cut_torn_line(mut file: &File) -> std::io::Result<()> {
    let len = file.metadata()?.len();
    let mut from = len;
    let mut byte = [0];
    while from > 0 {
        file.seek(SeekFrom::Start(from - 1))?;
        file.read_exact(&mut byte)?;
        if byte[0] == b'\n' {
            break;
        }
        from -= 1;
    }
    if from < len {
        file.set_len(from)?;
    }
    Ok(())
}

/// A seat a seat log holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HeldSeat {
    /// Its token's digest.
    pub token: [u8; 32],
    /// It was taken through the public join.
    pub public: bool,
}

/// The seats a seat log holds now.
#[derive(Debug, Default)]
pub(crate) struct SeatsHeld {
    /// By player.
    pub seats: BTreeMap<PlayerId, HeldSeat>,
    /// The highest player id ever admitted (removed players included):
    /// ids go on after it.
    pub last_admitted: PlayerId,
}

/// The seats a seat log holds now. A line cut by a crash (the last,
/// without its newline) is left out; any other line that is not what this
/// host writes is an error naming it.
pub(crate) fn read_seats(path: &Path) -> Result<SeatsHeld> {
    let mut held = SeatsHeld::default();
    if !path.exists() {
        return Ok(held);
    }
    let bytes = read_capped(path, MAX_SEAT_LOG)
        .with_context(|| format!("failed to read the seat log `{}`", path.display()))?;
    let whole = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    for (index, line) in whole.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = parse_line(line)
            .with_context(|| format!("the seat log `{}`, line {}", path.display(), index + 1))?;
        match parsed {
            (player, Some(seat)) => {
                held.last_admitted = held.last_admitted.max(player);
                held.seats.insert(player, seat);
            }
            (player, None) => {
                held.seats.remove(&player);
            }
        }
    }
    Ok(held)
}

fn parse_line(line: &[u8]) -> Result<(PlayerId, Option<HeldSeat>)> {
    let line: SeatLine = serde_json::from_slice(line).map_err(|e| anyhow::anyhow!("{e}"))?;
    match line {
        SeatLine {
            admit: Some(player),
            token_sha256: Some(token),
            remove: None,
            public,
        } => Ok((
            player,
            Some(HeldSeat {
                token: digest_of(&token)?,
                public,
            }),
        )),
        SeatLine {
            admit: None,
            token_sha256: None,
            remove: Some(player),
            public: false,
        } => Ok((player, None)),
        _ => bail!("expected `admit` with `token_sha256` (and `public`), or `remove`"),
    }
}

fn digest_of(text: &str) -> Result<[u8; 32]> {
    let mut digest = [0; 32];
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("`{text:.70}` is not a SHA-256 in hex");
    }
    for (byte, pair) in digest.iter_mut().zip(text.as_bytes().chunks(2)) {
        // Checked above: two hex digits.
        *byte = u8::from_str_radix(std::str::from_utf8(pair)?, 16)?;
    }
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_come_back_as_admitted_less_those_removed_and_a_torn_line_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seats.jsonl");
        let mut log = SeatLog::open(&path, None).unwrap();
        log.admitted(1, &[1; 32], false).unwrap();
        log.admitted(2, &[2; 32], true).unwrap();
        log.removed(1).unwrap();
        log.admitted(3, &[3; 32], false).unwrap();
        log.removed(3).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"admit":4,"token_sha"#).unwrap();
        let held = read_seats(&path).unwrap();
        let public = HeldSeat {
            token: [2; 32],
            public: true,
        };
        assert_eq!(held.seats.into_iter().collect::<Vec<_>>(), [(2, public)]);
        // Ids go on after every player ever admitted.
        assert_eq!(held.last_admitted, 3);
        // Opened again, the torn line is cut away before appending.
        let mut log = SeatLog::open(&path, None).unwrap();
        log.admitted(5, &[5; 32], false).unwrap();
        let held = read_seats(&path).unwrap();
        assert_eq!(held.seats.keys().copied().collect::<Vec<_>>(), [2, 5]);
        assert!(!held.seats[&5].public);
        // A seat taken otherwise is written as before the flag was kept,
        // so that an older node reads it.
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""admit":2,"token_sha256":"#), "{text}");
        assert!(text.contains(r#","public":true}"#), "{text}");
        assert_eq!(text.matches("public").count(), 1, "{text}");

        std::fs::write(&path, "{\"admit\":1}\n").unwrap();
        let error = format!("{:#}", read_seats(&path).unwrap_err());
        assert!(
            error.contains("line 1: expected `admit` with `token_sha256`"),
            "{error}"
        );
        std::fs::write(&path, "{\"admit\":1,\"token_sha256\":\"zz\"}\n").unwrap();
        let error = format!("{:#}", read_seats(&path).unwrap_err());
        assert!(error.contains("is not a SHA-256 in hex"), "{error}");
    }
}
