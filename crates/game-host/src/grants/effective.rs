//! [`Grants`]: what one script may do, after every table that applies to
//! it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::Duration;

use super::rule::NameRule;
use crate::limits::{Quotas, ScriptLimits};

/// What one script may do: the effective grants, after every table that
/// applies to it. [`Grants::all`] is what a script gets when the game grants
/// nothing in particular (`host run` without `--grants`).
#[derive(Debug, Clone, PartialEq)]
pub struct Grants {
    /// Interfaces it may import; `None`: all.
    pub imports: Option<BTreeSet<String>>,
    /// Entities it may change besides its own.
    pub writes: NameRule,
    /// Entities whose transforms and data it may read besides its own.
    pub reads: NameRule,
    /// Game-data components it may read.
    pub data_reads: NameRule,
    /// Game-data components it may write (on entities it may write).
    pub data_writes: NameRule,
    /// Channels it may send on.
    pub send: NameRule,
    /// Channels it may wait for or listen to.
    pub listen: NameRule,
    /// Whether it may wait for or listen to keys.
    pub keys: bool,
    /// Job kinds it may start; `None`: all.
    pub jobs: Option<BTreeSet<String>>,
    /// A lower CPU deadline per update than the game's.
    pub deadline: Option<Duration>,
    /// Less memory than the game's limit, in bytes.
    pub memory: Option<usize>,
    /// Lower quotas than the game's, by name.
    pub quotas: BTreeMap<String, u64>,
}

impl Default for Grants {
    fn default() -> Self {
        Grants::all()
    }
}

impl Grants {
    /// Everything: every interface, entity, channel, key and job, within the
    /// game's own limits.
    pub fn all() -> Self {
        Grants {
            imports: None,
            writes: NameRule::any(),
            reads: NameRule::any(),
            data_reads: NameRule::any(),
            data_writes: NameRule::any(),
            send: NameRule::any(),
            listen: NameRule::any(),
            keys: true,
            jobs: None,
            deadline: None,
            memory: None,
            quotas: BTreeMap::new(),
        }
    }

    /// What both these grants and `other` allow.
    pub fn and(&self, other: &Grants) -> Grants {
        let intersect = |a: &Option<BTreeSet<String>>, b: &Option<BTreeSet<String>>| match (a, b) {
            (Some(a), Some(b)) => Some(a.intersection(b).cloned().collect()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let mut quotas = self.quotas.clone();
        for (name, &value) in &other.quotas {
            let kept = quotas.entry(name.clone()).or_insert(value);
            *kept = (*kept).min(value);
        }
        Grants {
            imports: intersect(&self.imports, &other.imports),
            writes: self.writes.both(&other.writes),
            reads: self.reads.both(&other.reads),
            data_reads: self.data_reads.both(&other.data_reads),
            data_writes: self.data_writes.both(&other.data_writes),
            send: self.send.both(&other.send),
            listen: self.listen.both(&other.listen),
            keys: self.keys && other.keys,
            jobs: intersect(&self.jobs, &other.jobs),
            deadline: min_some(self.deadline, other.deadline),
            memory: min_some(self.memory, other.memory),
            quotas,
        }
    }

    /// Whether it grants everything ([`Grants::all`]).
    pub fn is_all(&self) -> bool {
        *self == Grants::all()
    }

    /// Whether it may import `interface` (a grant name: `scene`, or
    /// `game:terrain/terrain` for an extension's).
    pub fn imports(&self, interface: &str) -> bool {
        self.imports
            .as_ref()
            .is_none_or(|names| names.contains(interface))
    }

    /// Whether it may start jobs of kind `kind`.
    pub fn starts_job(&self, kind: &str) -> bool {
        self.jobs.as_ref().is_none_or(|kinds| kinds.contains(kind))
    }

    /// `limits`, lowered to the granted deadline and memory.
    pub fn limit(&self, limits: ScriptLimits) -> ScriptLimits {
        ScriptLimits {
            update_deadline: match (limits.update_deadline, self.deadline) {
                (Some(game), Some(granted)) => Some(game.min(granted)),
                (game, _) => game,
            },
            memory: self.memory.map_or(limits.memory, |m| limits.memory.min(m)),
            ..limits
        }
    }

    /// `quotas`, lowered to the granted ones.
    pub fn quotas(&self, mut quotas: Quotas) -> Quotas {
        for (name, &value) in &self.quotas {
            let game = quotas.get(name).unwrap_or(u64::MAX);
            // Names were checked when the grants were read.
            let _ = quotas.set(name, value.min(game));
        }
        quotas
    }

    /// One line for the log: what differs from [`Grants::all`].
    pub fn summary(&self) -> String {
        if self.is_all() {
            return "everything".to_owned();
        }
        let mut line = String::new();
        let list = |names: &BTreeSet<String>| names.iter().cloned().collect::<Vec<_>>().join(", ");
        if let Some(imports) = &self.imports {
            let _ = write!(line, "imports [{}]; ", list(imports));
        }
        for (key, rule) in [
            ("writes", &self.writes),
            ("reads", &self.reads),
            ("data_reads", &self.data_reads),
            ("data_writes", &self.data_writes),
            ("send", &self.send),
            ("listen", &self.listen),
        ] {
            if !rule.is_any() {
                let _ = write!(line, "{key} {rule}; ");
            }
        }
        if !self.keys {
            line.push_str("no keys; ");
        }
        if let Some(jobs) = &self.jobs {
            let _ = write!(line, "jobs [{}]; ", list(jobs));
        }
        if let Some(deadline) = self.deadline {
            let _ = write!(line, "deadline {:.1} ms; ", deadline.as_secs_f64() * 1e3);
        }
        if let Some(memory) = self.memory {
            let _ = write!(line, "memory {} MiB; ", memory >> 20);
        }
        for (name, value) in &self.quotas {
            let _ = write!(line, "quota {name} {value}; ");
        }
        line.trim_end_matches("; ").to_owned()
    }
}

/// The lower of two limits, either of which may be unset.
fn min_some<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grants::GrantSpec;

    #[test]
    fn narrowing_only_takes_away() {
        let spec = GrantSpec {
            imports: Some(vec!["scene".into()]),
            keys: Some(true),
            deadline_ms: Some(2.0),
            memory_mib: Some(8),
            quotas: Some([("waits".to_owned(), 10)].into()),
            ..GrantSpec::default()
        };
        let grants = spec.narrow(&Grants::all());
        assert!(grants.imports("scene") && !grants.imports("events"));
        assert!(grants.keys);
        let limits = grants.limit(ScriptLimits::default());
        assert_eq!(limits.update_deadline, Some(Duration::from_millis(2)));
        assert_eq!(limits.memory, 8 << 20);
        assert_eq!(grants.quotas(Quotas::default()).waits, 10);
        // A wider second table changes nothing.
        let wider = GrantSpec {
            imports: Some(vec!["scene".into(), "events".into()]),
            deadline_ms: Some(50.0),
            quotas: Some([("waits".to_owned(), 1000)].into()),
            ..GrantSpec::default()
        };
        assert_eq!(wider.narrow(&grants), grants);
        assert_eq!(
            grants.summary(),
            "imports [scene]; deadline 2.0 ms; memory 8 MiB; quota waits 10"
        );
        assert_eq!(Grants::all().summary(), "everything");
    }
}
