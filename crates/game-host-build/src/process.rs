//! Running a build tool (cargo, componentize-py, componentize-js, node) and
//! collecting what it says.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::{Context, Result};

/// A command for build tool `program` (componentize-py, componentize-js,
/// node, jco, pyright, tsc), with none of the host's secrets in its
/// environment. A tool installed beside the host's own executable is run
/// from there before any on `PATH`: `pip install game-host` puts
/// componentize-py (and pyright) in the same `bin` as `host`, so a host
/// installed with pipx, or run by its full path from a virtual environment
/// nobody activated, still finds the tools its package brought.
pub(crate) fn tool(program: impl AsRef<OsStr>) -> Command {
    let program = program.as_ref();
    match beside_host(program) {
        Some(path) => bare(path),
        None => bare(program),
    }
}

/// A command for `program` as named, with none of the host's secrets in
/// its environment (a script crate's `build.rs` runs under it): the Rust
/// tools, which rustup's proxies choose on `PATH`.
pub(crate) fn bare(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    game_host::secrets::without_secrets(&mut command);
    command
}

/// `program` in the directory of the running executable, if it is a bare
/// name and a file of that name is there.
fn beside_host(program: &OsStr) -> Option<PathBuf> {
    if Path::new(program).components().count() != 1 {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.join(program);
    path.is_file().then_some(path)
}

/// Runs `command` to its end. Each line of its stdout goes to `on_line` as
/// it comes; its stderr is returned whole when `capture_stderr` (drained on
/// its own thread, so a chatty tool cannot block on a full pipe), or left
/// on the host's stderr. Bytes that are not UTF-8 are replaced.
pub(crate) fn run(
    command: &mut Command,
    capture_stderr: bool,
    mut on_line: impl FnMut(&str),
) -> std::io::Result<(ExitStatus, String)> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(if capture_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()?;
    let drain = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    });
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdout.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => on_line(String::from_utf8_lossy(&line).trim_end_matches(['\n', '\r'])),
        }
    }
    let status = child.wait()?;
    let stderr = drain.and_then(|t| t.join().ok()).unwrap_or_default();
    Ok((status, stderr))
}

/// Runs `command` to its end and returns its status with its stdout and
/// stderr together.
pub(crate) fn run_captured(command: &mut Command) -> Result<(ExitStatus, String)> {
    let mut text = String::new();
    let (status, stderr) = run(command, true, |line| {
        text.push_str(line);
        text.push('\n');
    })
    .context("failed to start it")?;
    text.push_str(&stderr);
    Ok((status, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_lines_and_stderr_are_both_kept() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo one; echo two >&2; echo three; exit 3"]);
        let (status, text) = run_captured(&mut command).unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(text, "one\nthree\ntwo\n");
    }

    #[test]
    fn a_tool_beside_the_host_is_found_there_and_a_path_is_taken_as_given() {
        // The test binary stands in for the host: its own name is beside it.
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_name().unwrap();
        assert_eq!(beside_host(name), Some(exe.clone()));
        assert_eq!(tool(name).get_program(), exe.as_os_str());
        assert_eq!(beside_host(OsStr::new("no-such-tool-here")), None);
        assert_eq!(tool("no-such-tool-here").get_program(), "no-such-tool-here");
        // A path names its own file, wherever the host is.
        assert_eq!(beside_host(OsStr::new("./node")), None);
    }
}
