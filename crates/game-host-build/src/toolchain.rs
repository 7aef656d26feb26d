//! Running cargo and rustc on a script crate with nothing of the crate's
//! choosing but its code: a crate downloaded with a mod may carry a
//! `.cargo/config.toml` (a `rustc-wrapper`, a runner) and a
//! `rust-toolchain.toml` (a toolchain `path` inside the crate), and cargo
//! and rustup apply both to commands run in the crate's folder. So every
//! Rust tool the host runs ([`rust_tool`]):
//!
//! - runs from a neutral folder (the filesystem's root, which no user but
//!   root writes), naming the crate by `--manifest-path`: cargo reads the
//!   configuration of the folder it runs in and of the user's cargo home,
//!   never the crate's;
//! - runs the host's own toolchain, named in `RUSTUP_TOOLCHAIN`, which
//!   rustup puts before any toolchain file: the one the host was started
//!   under (rustup names it to the programs it starts), else rustup's
//!   default, as it is outside any project.
//!
//! What still runs of a crate's is what building Rust runs: its build
//! scripts and proc macros, and its dependencies' (`what_runs` names
//! them).
//!
//! What a crate's configuration sets for scripts, the host sets itself
//! ([`script_cargo`]): the stack a script links with, 64 KiB unless the
//! crate's own `.cargo/config.toml` names another `-zstack-size` for the
//! script target (read as data: that number alone is taken from it, within
//! bounds). An author's `RUSTFLAGS` replaces it, as it replaces any
//! configuration's.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The target scripts are built for.
pub const SCRIPT_TARGET: &str = "wasm32-wasip2";

/// Where the Rust tools run: a folder no crate's configuration is in.
const NEUTRAL_DIR: &str = "/";

/// The variable rustup reads the toolchain from, before any file.
const TOOLCHAIN_ENV: &str = "RUSTUP_TOOLCHAIN";

/// A command for the Rust tool `program` (`cargo`, `rustc`): the host's
/// secrets removed from its environment, run from a neutral folder on the
/// host's own toolchain.
pub(crate) fn rust_tool(program: impl AsRef<OsStr>) -> Command {
    let mut command = crate::process::bare(program);
    command.current_dir(NEUTRAL_DIR);
    if let Some(toolchain) = toolchain() {
        command.env(TOOLCHAIN_ENV, toolchain);
    }
    command
}

/// What the host's rustc (`$RUSTC`, else `rustc`, run as [`rust_tool`]
/// runs it) prints for `args`, trimmed; `None` when it cannot be run or
/// fails.
pub(crate) fn rustc_prints(args: &[&str]) -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = rust_tool(rustc)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    Some(String::from_utf8(output.stdout).ok()?.trim().to_owned())
}

/// cargo, as the host runs it: `$CARGO` (the cargo that started the host,
/// under `cargo run`), else the one on `PATH`.
pub(crate) fn cargo() -> Command {
    rust_tool(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The stack scripts link with unless their crate names another: 64 KiB
/// in linear memory instead of Rust's default 1 MiB, so that the stack's
/// top, the data and the start of the heap lie in the part of a pooled
/// memory the host keeps resident between instances, and spawning a script
/// touches no fresh pages (docs/benchmarks.md).
pub const DEFAULT_STACK: u64 = 64 << 10;

/// The stack sizes a crate may name.
const STACK_RANGE: std::ops::RangeInclusive<u64> = (16 << 10)..=(64 << 20);

/// `cargo SUBCOMMAND` for the script crate in `dir`: [`cargo`], with the
/// stack the crate links with ([`stack_size`]).
pub(crate) fn script_cargo(subcommand: &str, dir: &Path) -> Command {
    let stack = format!(
        r#"target.{SCRIPT_TARGET}.rustflags=["-C", "link-arg=-zstack-size={}"]"#,
        stack_size(dir)
    );
    let mut command = cargo();
    command.args([subcommand, "--config", &stack]);
    command
}

/// The stack size the crate in `dir` names in its own
/// `.cargo/config.toml` (`-C link-arg=-zstack-size=N` in the script
/// target's `rustflags`, as `host new` writes it), within [`STACK_RANGE`];
/// else [`DEFAULT_STACK`]. Only that number is read from the file.
pub fn stack_size(dir: &Path) -> u64 {
    let named = game_host::files::read_capped(&dir.join(".cargo/config.toml"), 1 << 20)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| toml::from_str::<toml::Value>(&text).ok())
        .and_then(|config| {
            let flags = config.get("target")?.get(SCRIPT_TARGET)?.get("rustflags")?;
            let flags: Vec<&str> = match flags {
                toml::Value::String(text) => text.split_whitespace().collect(),
                toml::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
                _ => return None,
            };
            flags
                .iter()
                .filter_map(|flag| flag.split("-zstack-size=").nth(1))
                .filter_map(|n| n.parse::<u64>().ok())
                .next_back()
        });
    named
        .filter(|n| STACK_RANGE.contains(n))
        .unwrap_or(DEFAULT_STACK)
}

/// The toolchain to name in `RUSTUP_TOOLCHAIN`, where the host's
/// environment does not name one already: rustup's default, as `rustc`
/// reports it outside any project (its sysroot is
/// `.../toolchains/NAME`). `None` without rustup (a Rust installed
/// otherwise reads no toolchain file).
pub(crate) fn toolchain() -> Option<&'static str> {
    static TOOLCHAIN: OnceLock<Option<String>> = OnceLock::new();
    TOOLCHAIN
        .get_or_init(|| {
            if std::env::var_os(TOOLCHAIN_ENV).is_some() {
                return None;
            }
            let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
            let output = crate::process::bare(rustc)
                .args(["--print", "sysroot"])
                .current_dir(NEUTRAL_DIR)
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .ok()
                .filter(|output| output.status.success())?;
            toolchain_of(Path::new(String::from_utf8(output.stdout).ok()?.trim()))
        })
        .as_deref()
}

/// The toolchain a sysroot is of, when rustup installed it.
fn toolchain_of(sysroot: &Path) -> Option<String> {
    let parent = sysroot.parent()?;
    (parent.file_name()? == "toolchains")
        .then(|| sysroot.file_name()?.to_str().map(str::to_owned))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crates_stack_size_is_the_one_number_taken_from_its_config() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(stack_size(dir.path()), DEFAULT_STACK);
        std::fs::create_dir(dir.path().join(".cargo")).unwrap();
        let config = |text: &str| {
            std::fs::write(dir.path().join(".cargo/config.toml"), text).unwrap();
            stack_size(dir.path())
        };
        let flags = "[build]\nrustc-wrapper = \"evil.sh\"\n[target.wasm32-wasip2]\nrustflags";
        assert_eq!(
            config(&format!(
                "{flags} = [\"-C\", \"link-arg=-zstack-size=1048576\", \"-C\", \"linker=evil\"]"
            )),
            1 << 20
        );
        assert_eq!(
            config(&format!("{flags} = \"-Clink-arg=-zstack-size=131072\"")),
            128 << 10
        );
        // Out of bounds, or not a number: the default.
        assert_eq!(
            config(&format!("{flags} = [\"link-arg=-zstack-size=1\"]")),
            DEFAULT_STACK
        );
        assert_eq!(
            config(&format!("{flags} = [\"link-arg=-zstack-size=x\"]")),
            DEFAULT_STACK
        );
        assert_eq!(config("not toml ["), DEFAULT_STACK);
    }

    #[test]
    fn a_rustup_sysroot_names_its_toolchain() {
        assert_eq!(
            toolchain_of(Path::new(
                "/home/a/.rustup/toolchains/1.99-x86_64-unknown-linux-gnu"
            )),
            Some("1.99-x86_64-unknown-linux-gnu".to_owned())
        );
        assert_eq!(toolchain_of(Path::new("/usr")), None);
    }
}
