//! [`GUARDS`]: for each interface a grant can name, the grant keys that
//! guard its functions beyond `imports`, and where. An interface added to
//! `wit/` is in [`INTERFACES`](super::INTERFACES) at the next build (the
//! list is made from the WIT), and the test below fails until it has its
//! row here: a new interface cannot be forgotten by the grants.

/// Interface, and what guards its functions besides `imports` (an empty
/// list: nothing it does reaches another script's entities, data, events
/// or players).
pub const GUARDS: &[(&str, &[&str])] = &[
    ("controls", &["keys"]),
    ("entities", &["reads", "writes", "quotas"]),
    ("entity", &["reads", "writes"]),
    ("events", &["send", "listen", "keys", "quotas"]),
    (
        "game-data",
        &["data_reads", "data_writes", "reads", "writes"],
    ),
    ("game-messages", &["send", "quotas"]),
    ("lifetime", &["writes"]),
    ("log", &["quotas"]),
    ("motion", &["writes", "quotas"]),
    ("players", &["send", "listen", "keys", "quotas"]),
    ("queries", &["data_reads", "data_writes", "reads", "writes"]),
    ("relative", &["writes"]),
    ("resources", &["data_reads", "data_writes"]),
    ("runtime", &["quotas"]),
    ("scene", &["reads", "writes", "quotas"]),
    ("tasks", &["jobs", "quotas"]),
    ("views", &["writes", "reads", "data_reads"]),
    // 0.1's own interfaces.
    ("terrain", &["jobs"]),
];

/// The grant keys a table may set.
pub const KEYS: &[&str] = &[
    "imports",
    "writes",
    "reads",
    "data_reads",
    "data_writes",
    "send",
    "listen",
    "keys",
    "jobs",
    "deadline_ms",
    "memory_mib",
    "quotas",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grants::{GrantSpec, INTERFACES};

    #[test]
    fn every_interface_in_wit_has_its_grant_entry() {
        for interface in INTERFACES {
            assert!(
                GUARDS.iter().any(|(name, _)| name == interface),
                "`{interface}` (in wit/) has no entry in grants::GUARDS: say which grant keys \
                 guard its functions, and check them in its host functions (guest::store::access)"
            );
        }
        for (name, keys) in GUARDS {
            assert!(
                INTERFACES.contains(name),
                "grants::GUARDS names `{name}`, which wit/ does not declare"
            );
            for key in *keys {
                assert!(KEYS.contains(key), "`{name}`: `{key}` is no grant key");
            }
        }
    }

    #[test]
    fn every_key_is_a_key_of_a_table() {
        let table = serde_json::to_value(GrantSpec {
            imports: Some(vec![]),
            writes: Some(vec![]),
            reads: Some(vec![]),
            data_reads: Some(vec![]),
            data_writes: Some(vec![]),
            send: Some(vec![]),
            listen: Some(vec![]),
            keys: Some(true),
            jobs: Some(vec![]),
            deadline_ms: Some(1.0),
            memory_mib: Some(1),
            quotas: Some(Default::default()),
        })
        .unwrap();
        let mut written: Vec<&str> = table
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut keys = KEYS.to_vec();
        written.sort_unstable();
        keys.sort_unstable();
        assert_eq!(written, keys);
    }
}
