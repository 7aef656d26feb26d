//! [`GrantSpec`], [`GrantFile`] and [`GrantPolicy`]: grants as a game
//! writes them (a TOML file for `host`, JSON in a server's request, or Rust
//! values), every key optional.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::effective::Grants;
use super::rule::NameRule;
use crate::limits::Quotas;

/// The `game:engine` interfaces that declare functions, by the names grants
/// use (the newest release's, and 0.1's `frame` and `terrain`).
pub const INTERFACES: &[&str] = &[
    "log",
    "runtime",
    "scene",
    "entity",
    "entities",
    "tasks",
    "events",
    "motion",
    "lifetime",
    "game-data",
    "players",
    "frame",
    "terrain",
];

/// The longest CPU deadline a grant may name, in milliseconds (as
/// `--script-deadline-ms` allows; a grant only ever lowers the game's).
const MAX_DEADLINE_MS: f64 = 60_000.0;

/// One table of grants, every key optional: a missing key leaves what the
/// table below it says (a `[script.NAME]` table overrides `[default]` key by
/// key; `[default]` overrides "everything"). The keys:
/// - `imports`: the `game:engine` interfaces a script may import, by name
///   (`"scene"`, `"events"`, ...), or an extension's as `"game:terrain/terrain"`.
///   Interfaces that declare no functions (`types`, `input`) and WASI are
///   always granted.
/// - `writes`: entity names the script may change (move, despawn, give
///   data), besides the entities it spawned itself; `*` matches any run of
///   characters (`"enemy-*"`). `[]`: only its own.
/// - `send`, `listen`: event channels it may send on and listen to
///   (patterns as for `writes`).
/// - `keys`: whether it may wait for or listen to key input.
/// - `jobs`: the background job kinds it may start, by name (`"terrain"`).
/// - `deadline_ms`, `memory_mib`, `quotas`: lower limits than the game's
///   (a grant never raises one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imports: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotas: Option<BTreeMap<String, u64>>,
}

impl GrantSpec {
    /// This table over `base`: each key this one sets, else `base`'s.
    pub fn over(&self, base: &GrantSpec) -> GrantSpec {
        GrantSpec {
            imports: self.imports.clone().or_else(|| base.imports.clone()),
            writes: self.writes.clone().or_else(|| base.writes.clone()),
            send: self.send.clone().or_else(|| base.send.clone()),
            listen: self.listen.clone().or_else(|| base.listen.clone()),
            keys: self.keys.or(base.keys),
            jobs: self.jobs.clone().or_else(|| base.jobs.clone()),
            deadline_ms: self.deadline_ms.or(base.deadline_ms),
            memory_mib: self.memory_mib.or(base.memory_mib),
            quotas: self.quotas.clone().or_else(|| base.quotas.clone()),
        }
    }

    /// `grants`, narrowed by this table: each key it sets can only take
    /// away (what both `grants` and this table's own grants allow).
    pub fn narrow(&self, grants: &Grants) -> Grants {
        grants.and(&self.grants())
    }

    /// What this table alone grants: each key it sets, everything for the
    /// keys it leaves out.
    fn grants(&self) -> Grants {
        let set = |names: &Option<Vec<String>>| {
            names
                .as_ref()
                .map(|names| names.iter().cloned().collect::<BTreeSet<_>>())
        };
        let rule = |patterns: &Option<Vec<String>>| match patterns {
            Some(patterns) => NameRule::only(patterns),
            None => NameRule::any(),
        };
        Grants {
            imports: set(&self.imports),
            writes: rule(&self.writes),
            send: rule(&self.send),
            listen: rule(&self.listen),
            keys: self.keys.unwrap_or(true),
            jobs: set(&self.jobs),
            deadline: self
                .deadline_ms
                .and_then(|ms| Duration::try_from_secs_f64(ms / 1e3).ok()),
            memory: self
                .memory_mib
                .map(|mib| usize::try_from(mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)),
            quotas: self.quotas.clone().unwrap_or_default(),
        }
    }

    /// Whether it sets no key.
    pub fn is_empty(&self) -> bool {
        *self == GrantSpec::default()
    }

    /// Checks every value: interface names the host knows (or qualified
    /// `ns:pkg/name` ones), positive limits, quota names. `at` names the
    /// table in errors (`[default]`).
    pub fn check(&self, at: &str) -> Result<(), String> {
        for name in self.imports.iter().flatten() {
            if !name.contains('/') && !INTERFACES.contains(&name.as_str()) {
                return Err(format!(
                    "{at} imports: `{name}` is no interface; the interfaces are: {} (or an \
                     extension's, as `game:terrain/terrain`)",
                    INTERFACES.join(", ")
                ));
            }
        }
        if let Some(ms) = self.deadline_ms
            && !(ms > 0.0 && ms <= MAX_DEADLINE_MS)
        {
            return Err(format!(
                "{at} deadline_ms: must be above 0 and at most {MAX_DEADLINE_MS}, not {ms}"
            ));
        }
        if self.memory_mib == Some(0) {
            return Err(format!("{at} memory_mib: must be at least 1"));
        }
        let mut quotas = Quotas::default();
        for (name, &value) in self.quotas.iter().flatten() {
            if name.starts_with("log-") {
                return Err(format!(
                    "{at} quotas: `{name}` is the same for every script; set it with --quota"
                ));
            }
            quotas
                .set(name, value)
                .map_err(|error| format!("{at} quotas: {error}"))?;
        }
        Ok(())
    }
}

/// A game's grants: a `[default]` table for every script, and
/// `[script.NAME]` tables for the scripts named (as the log names them),
/// each over `[default]` key by key. As TOML (`host --grants FILE`):
///
/// ```toml
/// [default]
/// imports = ["log", "runtime", "scene", "entity"]
/// writes = []            # only the entities a script spawned itself
///
/// [script.cube_mover]
/// writes = ["cube"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantFile {
    #[serde(default)]
    pub default: GrantSpec,
    #[serde(default)]
    pub script: BTreeMap<String, GrantSpec>,
}

impl GrantFile {
    /// The table that applies to script `name`.
    pub fn for_script(&self, name: &str) -> GrantSpec {
        match self.script.get(name) {
            Some(spec) => spec.over(&self.default),
            None => self.default.clone(),
        }
    }

    /// Checks every table (see [`GrantSpec::check`]).
    pub fn check(&self) -> Result<(), String> {
        self.default.check("[default]")?;
        for (name, spec) in &self.script {
            spec.check(&format!("[script.{name}]"))?;
        }
        Ok(())
    }
}

/// The grants a runtime gives the scripts it starts: one or more
/// [`GrantFile`]s, each narrowing the one before (a server's policy, then a
/// world's request). A later file can take away, never add.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GrantPolicy {
    files: Vec<GrantFile>,
}

impl GrantPolicy {
    /// The policy of one file, checked.
    pub fn new(file: GrantFile) -> Result<Self, String> {
        GrantPolicy::default().narrowed(file)
    }

    /// This policy, narrowed by `file` (checked).
    pub fn narrowed(mut self, file: GrantFile) -> Result<Self, String> {
        file.check()?;
        self.files.push(file);
        Ok(self)
    }

    /// The grants of script `name`: every file's table for it, in turn,
    /// narrowing `base`.
    pub fn grants_for(&self, name: &str, base: &Grants) -> Grants {
        self.files.iter().fold(base.clone(), |grants, file| {
            file.for_script(name).narrow(&grants)
        })
    }

    /// The files, in order.
    pub fn files(&self) -> &[GrantFile] {
        &self.files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_tables_override_the_default_key_by_key() {
        let file: GrantFile = serde_json::from_str(
            r#"{"default": {"imports": ["scene", "log"], "writes": []},
                "script": {"mover": {"writes": ["cube"]}}}"#,
        )
        .unwrap();
        let mover = file.for_script("mover");
        assert_eq!(mover.writes, Some(vec!["cube".to_owned()]));
        assert_eq!(mover.imports, Some(vec!["scene".into(), "log".into()]));
        assert_eq!(file.for_script("other").writes, Some(vec![]));
    }

    #[test]
    fn a_later_file_narrows_and_never_widens() {
        let server = GrantFile {
            default: GrantSpec {
                imports: Some(vec!["scene".into(), "log".into()]),
                writes: Some(vec!["cube".into()]),
                ..GrantSpec::default()
            },
            ..GrantFile::default()
        };
        let world = GrantFile {
            default: GrantSpec {
                imports: Some(vec!["scene".into(), "events".into()]),
                writes: Some(vec!["*".into()]),
                keys: Some(false),
                ..GrantSpec::default()
            },
            ..GrantFile::default()
        };
        let policy = GrantPolicy::new(server).unwrap().narrowed(world).unwrap();
        let grants = policy.grants_for("any", &Grants::all());
        assert!(grants.imports("scene"));
        assert!(!grants.imports("events"));
        assert!(!grants.imports("log"));
        assert!(grants.writes.allows("cube"));
        assert!(!grants.writes.allows("tree"));
        assert!(!grants.keys);
    }

    #[test]
    fn bad_values_are_named() {
        let spec = GrantSpec {
            imports: Some(vec!["evnts".into()]),
            ..GrantSpec::default()
        };
        let error = spec.check("[default]").unwrap_err();
        assert!(error.contains("`evnts` is no interface"), "{error}");
        let spec = GrantSpec {
            quotas: Some([("nope".to_owned(), 3)].into()),
            ..GrantSpec::default()
        };
        assert!(spec.check("[script.x]").unwrap_err().contains("nope"));
        let spec = GrantSpec {
            deadline_ms: Some(1e300),
            ..GrantSpec::default()
        };
        assert!(
            spec.check("[default]")
                .unwrap_err()
                .contains("at most 60000")
        );
        let file: Result<GrantFile, _> = serde_json::from_str(r#"{"default": {"writs": []}}"#);
        assert!(file.unwrap_err().to_string().contains("writs"));
    }
}
