//! [`GrantSpec`], [`GrantFile`] and [`GrantPolicy`]: grants as a game
//! writes them (a TOML file for `host`, JSON in a server's request, or Rust
//! values), every key optional.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::effective::Grants;
use super::rule::NameRule;
use super::source::{self, ScriptOrigin};
use crate::limits::Quotas;

/// The `game:engine` interfaces that declare functions, by the names grants
/// use: the newest release's, then 0.1's others (`terrain`; its `frame` declares no function). Made
/// from `wit/` when the crate is built, so it never misses one; each has
/// its entry in [`GUARDS`](super::GUARDS) (a test checks).
pub const INTERFACES: &[&str] = include!(concat!(env!("OUT_DIR"), "/interfaces.rs"));

/// The longest CPU deadline a grant may name, in milliseconds (as
/// `--script-deadline-ms` allows; a grant only ever lowers the game's).
const MAX_DEADLINE_MS: f64 = 60_000.0;

/// One table of grants, every key optional: a missing key leaves what the
/// table below it says (a `[source."PATTERN"]` table overrides `[default]` key by
/// key; `[default]` overrides "everything"). The keys:
/// - `imports`: the `game:engine` interfaces a script may import, by name
///   (`"scene"`, `"events"`, ...), or an extension's as `"game:terrain/terrain"`.
///   Interfaces that declare no functions (`types`, `input`) and WASI are
///   always granted.
/// - `writes`: entity names the script may change (move, despawn, give
///   data), besides the entities it spawned itself; `*` matches any run of
///   characters (`"enemy-*"`). `[]`: only its own.
/// - `reads`: entity names whose transforms and game data the script may
///   read, besides the entities it spawned itself (patterns as for
///   `writes`). `[]`: only its own.
/// - `data_reads`, `data_writes`: the game-data components (by name,
///   patterns) it may read, and write on the entities it may write.
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
    pub reads: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_reads: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_writes: Option<Vec<String>>,
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
            reads: self.reads.clone().or_else(|| base.reads.clone()),
            data_reads: self.data_reads.clone().or_else(|| base.data_reads.clone()),
            data_writes: self
                .data_writes
                .clone()
                .or_else(|| base.data_writes.clone()),
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
            reads: rule(&self.reads),
            data_reads: rule(&self.data_reads),
            data_writes: rule(&self.data_writes),
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
/// `[source."PATTERN"]` tables for the scripts loaded from where the game
/// says, each over `[default]` key by key. A table is keyed by what the
/// game controls, never by a name the script chooses: a path pattern
/// (`"mods/**"`, `"game/director.wasm"`; `*` within one path segment, `**`
/// across segments), matched against the file or directory the script was
/// loaded from, or `"sha256:HEX"`, the digest of the component's bytes
/// (`host build` prints it). A relative pattern is relative to the grants
/// file (`host --grants FILE`), or to the server's working directory (a
/// world's grants in `POST /worlds`). A script that several tables match
/// gets what all of them grant (each over `[default]`, narrowed together);
/// one that none matches gets `[default]`. As TOML:
///
/// ```toml
/// [default]
/// imports = ["log", "runtime", "scene", "entity"]
/// writes = []            # only the entities a script spawned itself
///
/// [source."game/**"]
/// writes = ["*"]
///
/// [source."mods/cube_mover.wasm"]
/// writes = ["cube"]
/// ```
///
/// The `[script.NAME]` tables of earlier hosts are refused, saying how to
/// key them by source instead.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantFile {
    #[serde(default)]
    pub default: GrantSpec,
    #[serde(default)]
    pub source: BTreeMap<String, GrantSpec>,
    /// Tables by script name, as earlier hosts read them: refused by
    /// [`GrantFile::check`], naming the table and its migration.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub script: BTreeMap<String, GrantSpec>,
}

impl GrantFile {
    /// The tables that match `origin`, each over `[default]` (just
    /// `[default]` when none does).
    pub fn for_origin(&self, origin: ScriptOrigin<'_>) -> Vec<GrantSpec> {
        let matched: Vec<GrantSpec> = self
            .source
            .iter()
            .filter(|(key, _)| source::matches(key, origin))
            .map(|(_, spec)| spec.over(&self.default))
            .collect();
        if matched.is_empty() {
            vec![self.default.clone()]
        } else {
            matched
        }
    }

    /// This file with its relative path patterns made relative to `base`
    /// (the grants file's directory; resolved, with its glob characters
    /// taken literally).
    pub fn relative_to(mut self, base: &Path) -> Self {
        let base = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_owned());
        let base = glob::Pattern::escape(&base.display().to_string());
        self.source = std::mem::take(&mut self.source)
            .into_iter()
            .map(|(key, spec)| {
                let absolute = key.starts_with(source::SHA256) || Path::new(&key).is_absolute();
                let key = if absolute {
                    key
                } else {
                    format!("{base}/{key}")
                };
                (key, spec)
            })
            .collect();
        self
    }

    /// Checks every table (see [`GrantSpec::check`]) and every key.
    pub fn check(&self) -> Result<(), String> {
        if let Some(name) = self.script.keys().next() {
            return Err(format!(
                "[script.{name}]: grants are no longer given by a script's name, which a mod \
                 chooses itself; key the table by where the script comes from instead: \
                 [source.\"mods/{name}.wasm\"] (a path pattern, relative to the grants file; \
                 `*` and `**` match) or [source.\"sha256:HEX\"] (its digest, which `host build` \
                 prints)"
            ));
        }
        self.default.check("[default]")?;
        for (key, spec) in &self.source {
            let at = format!("[source.\"{key}\"]");
            source::check_key(key, &at)?;
            spec.check(&at)?;
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

    /// The grants of the script from `origin`: every file's tables that
    /// match it, in turn, narrowing `base`.
    pub fn grants_for(&self, origin: ScriptOrigin<'_>, base: &Grants) -> Grants {
        self.files.iter().fold(base.clone(), |grants, file| {
            file.for_origin(origin)
                .iter()
                .fold(grants.clone(), |narrowed, spec| spec.narrow(&narrowed))
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

    const DIGEST: &str = "00000000000000000000000000000000000000000000000000000000000000aa";

    fn origin(path: &str) -> ScriptOrigin<'_> {
        ScriptOrigin {
            path: Some(Path::new(path)),
            sha256: DIGEST,
        }
    }

    #[test]
    fn source_tables_override_the_default_key_by_key() {
        let file: GrantFile = serde_json::from_str(
            r#"{"default": {"imports": ["scene", "log"], "writes": []},
                "source": {"/game/mods/**": {"writes": ["cube"]},
                           "/game/*.wasm": {"writes": ["*"]}}}"#,
        )
        .unwrap();
        file.check().unwrap();
        let mover = &file.for_origin(origin("/game/mods/a/mover.wasm"))[0];
        assert_eq!(mover.writes, Some(vec!["cube".to_owned()]));
        assert_eq!(mover.imports, Some(vec!["scene".into(), "log".into()]));
        // `*` stays within a segment: a mod's file is not the game's.
        let game = file.for_origin(origin("/game/director.wasm"));
        assert_eq!(game[0].writes, Some(vec!["*".to_owned()]));
        let named_like_it = file.for_origin(origin("/game/mods/director.wasm"));
        assert_eq!(named_like_it.len(), 1);
        assert_eq!(named_like_it[0].writes, Some(vec!["cube".to_owned()]));
        assert_eq!(
            file.for_origin(origin("/elsewhere/x.wasm"))[0].writes,
            Some(vec![])
        );
    }

    #[test]
    fn a_digest_table_matches_the_code_and_a_name_table_is_refused() {
        let file: GrantFile = serde_json::from_str(&format!(
            r#"{{"source": {{"sha256:{DIGEST}": {{"keys": false}}}}}}"#
        ))
        .unwrap();
        file.check().unwrap();
        assert_eq!(file.for_origin(origin("/any/where"))[0].keys, Some(false));
        let built_in = ScriptOrigin {
            path: None,
            sha256: "ff",
        };
        assert_eq!(file.for_origin(built_in)[0].keys, None);
        let old: GrantFile =
            serde_json::from_str(r#"{"script": {"director": {"writes": ["*"]}}}"#).unwrap();
        let error = old.check().unwrap_err();
        assert!(
            error.starts_with("[script.director]: grants are no longer"),
            "{error}"
        );
        assert!(
            error.contains(r#"[source."mods/director.wasm"]"#),
            "{error}"
        );
        let bad: GrantFile = serde_json::from_str(r#"{"source": {"sha256:xyz": {}}}"#).unwrap();
        assert!(bad.check().unwrap_err().contains("not a SHA-256 digest"));
        let up: GrantFile = serde_json::from_str(r#"{"source": {"game/../mods/**": {}}}"#).unwrap();
        assert!(up.check().unwrap_err().contains("may not hold `..`"));
    }

    #[test]
    fn relative_patterns_are_taken_from_the_grants_files_directory() {
        let file: GrantFile =
            serde_json::from_str(r#"{"source": {"mods/**": {"keys": false}}}"#).unwrap();
        let file = file.relative_to(Path::new("/srv/game"));
        assert_eq!(
            file.for_origin(origin("/srv/game/mods/x.wasm"))[0].keys,
            Some(false)
        );
        assert_eq!(
            file.for_origin(origin("/srv/other/mods/x.wasm"))[0].keys,
            None
        );
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
        let grants = policy.grants_for(origin("/any.wasm"), &Grants::all());
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
        assert!(spec.check("[source.\"x\"]").unwrap_err().contains("nope"));
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
