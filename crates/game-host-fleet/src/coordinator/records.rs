//! A world's log (or seat log) read back from Redis, checking every
//! record before anything in it is used: each holds its bytes, where they
//! go in the file (`o`), the epoch that wrote them (`e`), and their
//! SHA-256 (`h`).
//!
//! A new owner appends from the end of the last whole frame it resumed
//! at, which may be before the end of what the old owner wrote: a record
//! at an offset already covered cuts the file back there. A record that
//! fails its check (damaged, or forged without the digest) is left out,
//! with what follows it up to the next record that starts at or before
//! the file's end: the file ends at its last intact byte, and the
//! recording's own reading cuts it to its last whole frame.

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

/// The bytes of a log put back together, and what was wrong with it.
#[derive(Debug, Default)]
pub(crate) struct Assembled {
    pub bytes: Vec<u8>,
    /// The first record left out, and why.
    pub damage: Option<String>,
}

/// One record as Redis gives it: its stream id and its fields.
pub(crate) type RawRecord = (String, Vec<(String, Vec<u8>)>);

/// The digest a record carries for `bytes`: SHA-256, in hex.
pub(crate) fn digest(bytes: &[u8]) -> String {
    game_host::hex::hex(&Sha256::digest(bytes))
}

/// Puts a log back together from its records, in Redis's order, up to
/// `max` bytes.
pub(crate) fn assemble(records: &[RawRecord], max: u64) -> Result<Assembled> {
    let mut log = Assembled::default();
    let mut epoch = 0u64;
    for (id, fields) in records {
        match check(fields) {
            Ok((offset, record_epoch, bytes)) => {
                if offset > log.bytes.len() as u64 {
                    note(&mut log, id, "it starts past the end of the log before it");
                } else if record_epoch < epoch {
                    note(&mut log, id, "an older epoch wrote it");
                } else {
                    epoch = record_epoch;
                    log.bytes.truncate(offset as usize);
                    log.bytes.extend_from_slice(bytes);
                    if log.bytes.len() as u64 > max {
                        bail!("it is larger than {} MiB", max >> 20);
                    }
                }
            }
            Err(why) => note(&mut log, id, why),
        }
    }
    Ok(log)
}

fn note(log: &mut Assembled, id: &str, why: &str) {
    if log.damage.is_none() {
        log.damage = Some(format!("record {id} is left out: {why}"));
    }
}

/// A record's offset, epoch and bytes, if it is whole and its digest holds.
fn check(fields: &[(String, Vec<u8>)]) -> Result<(u64, u64, &[u8]), &'static str> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_slice())
    };
    let number =
        |name: &str| -> Option<u64> { std::str::from_utf8(field(name)?).ok()?.parse().ok() };
    let offset = number("o").ok_or("it has no offset")?;
    let epoch = number("e").ok_or("it has no epoch")?;
    let bytes = field("b").ok_or("it has no bytes")?;
    let sum = field("h").ok_or("it has no digest")?;
    if sum != digest(bytes).as_bytes() {
        return Err("its bytes do not match their digest");
    }
    Ok((offset, epoch, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, offset: u64, epoch: u64, bytes: &[u8]) -> RawRecord {
        (
            id.to_owned(),
            vec![
                ("o".into(), offset.to_string().into_bytes()),
                ("e".into(), epoch.to_string().into_bytes()),
                ("h".into(), digest(bytes).into_bytes()),
                ("b".into(), bytes.to_vec()),
            ],
        )
    }

    #[test]
    fn records_join_and_a_new_owner_cuts_back_where_it_resumed() {
        let records = [
            record("1-0", 0, 1, b"aaa\n"),
            record("2-0", 4, 1, b"bbb\n"),
            record("3-0", 8, 1, b"cc"),
            // The next owner resumed after "bbb" and writes on from there.
            record("4-0", 8, 2, b"ddd\n"),
        ];
        let log = assemble(&records, 1 << 20).unwrap();
        assert_eq!(log.bytes, b"aaa\nbbb\nddd\n");
        assert!(log.damage.is_none());
    }

    #[test]
    fn a_damaged_or_forged_record_ends_the_log_before_it() {
        let mut damaged = record("2-0", 4, 1, b"bbb\n");
        damaged.1[3].1 = b"bXb\n".to_vec();
        let mut unsigned = record("2-0", 4, 1, b"evil\n");
        unsigned.1.remove(2);
        for bad in [damaged, unsigned] {
            let records = [
                record("1-0", 0, 1, b"aaa\n"),
                bad,
                record("3-0", 8, 1, b"ccc\n"),
            ];
            let log = assemble(&records, 1 << 20).unwrap();
            assert_eq!(log.bytes, b"aaa\n");
            let damage = log.damage.unwrap();
            assert!(damage.starts_with("record 2-0 is left out"), "{damage}");
        }
    }

    #[test]
    fn an_older_epoch_is_not_taken_and_a_log_has_a_bound() {
        let records = [record("1-0", 0, 2, b"new\n"), record("2-0", 0, 1, b"old\n")];
        let log = assemble(&records, 1 << 20).unwrap();
        assert_eq!(log.bytes, b"new\n");
        assert!(assemble(&records, 2).is_err());
    }
}
