//! [`ScriptError`]: a script trapped (or failed) inside one of its exports.

use std::fmt;

use uuid::Uuid;
use wasmtime::{Trap, WasmBacktrace};

/// The export a script was running when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptExport {
    /// `entrypoint`, called once at start.
    Entrypoint,
    /// `on-update`, called every frame while the script is subscribed
    /// (in 0.1, once per subscribed id and for wakes, when exported).
    OnUpdate,
    /// `on-wake`, called with the waits that completed in a frame.
    OnWake,
    /// 0.1's `on-message`, the per-frame call of a 0.1 script that does not
    /// export `on-update` (and its wake message).
    OnMessage,
    /// `save-state`, called on the old instance during a hot-swap.
    SaveState,
    /// `restore-state`, called on the new instance during a hot-swap.
    RestoreState,
    /// A live Python or JavaScript script's sources compiled ahead of
    /// `entrypoint` (`game:live/loader.prepare`), before it starts.
    Prepare,
}

impl fmt::Display for ScriptExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScriptExport::Entrypoint => "entrypoint",
            ScriptExport::OnUpdate => "on-update",
            ScriptExport::OnWake => "on-wake",
            ScriptExport::OnMessage => "on-message",
            ScriptExport::SaveState => "save-state",
            ScriptExport::RestoreState => "restore-state",
            ScriptExport::Prepare => "prepare",
        })
    }
}

/// A script failed while running one of its exports. The runtime takes the
/// instance out of the frame loop; other scripts keep running.
///
/// `Display` gives one line: script, instance, export, frame and cause.
/// [`ScriptError::backtrace`] holds the wasm backtrace, when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    /// The script's name.
    pub script: String,
    /// The failed instance.
    pub instance: Uuid,
    /// What it was running.
    pub export: ScriptExport,
    /// The frame it failed in (0 for `entrypoint` at start).
    pub frame: u64,
    /// The trap (e.g. "wasm `unreachable` instruction executed") or other cause.
    pub cause: String,
    /// What the guest last wrote to stderr (a Rust panic message lands here).
    pub guest_stderr: Option<String>,
    /// The wasm backtrace, one frame per line.
    pub backtrace: Option<String>,
}

impl ScriptError {
    pub(crate) fn from_call(
        script: &str,
        instance: Uuid,
        export: ScriptExport,
        frame: u64,
        error: &wasmtime::Error,
        guest_stderr: String,
    ) -> Self {
        let cause = match error.downcast_ref::<Trap>() {
            Some(trap) => trap.to_string(),
            None => format!("{:#}", error.root_cause()),
        };
        let backtrace = error
            .downcast_ref::<WasmBacktrace>()
            .map(|bt| bt.to_string().trim_end().to_owned())
            .filter(|bt| !bt.is_empty());
        let guest_stderr = Some(guest_stderr.trim().to_owned()).filter(|s| !s.is_empty());
        ScriptError {
            script: script.to_owned(),
            instance,
            export,
            frame,
            cause,
            guest_stderr,
            backtrace,
        }
    }

    /// The guest's own account of its failure, from what it wrote to
    /// stderr: a Python exception (the last line of its traceback, e.g.
    /// `RuntimeError: MESSAGE`), a JavaScript error (the message above its
    /// `Stack:`, and where the stack says it was thrown) or a Rust panic
    /// (`panicked at FILE:LINE:COL: MESSAGE`).
    pub fn guest_summary(&self) -> Option<String> {
        let stderr = self.guest_stderr.as_deref()?;
        let lines: Vec<&str> = stderr.lines().collect();
        if let Some(at) = lines
            .iter()
            .rposition(|l| l.starts_with("Traceback (most recent call last)"))
        {
            return lines[at + 1..]
                .iter()
                .find(|l| !l.is_empty() && !l.starts_with(char::is_whitespace))
                .map(|l| format!("Python {}", l.trim()));
        }
        if let Some(stack) = lines.iter().position(|l| l.trim() == "Stack:")
            && let Some(message) = lines[..stack].iter().rev().find(|l| !l.trim().is_empty())
        {
            return Some(match thrown_at(&lines[stack + 1..]) {
                Some(at) => format!("JavaScript error at {at}: {}", message.trim()),
                None => format!("JavaScript error: {}", message.trim()),
            });
        }
        if let Some(at) = lines.iter().position(|l| l.contains("panicked at")) {
            let location = &lines[at][lines[at].find("panicked at")?..];
            let message = lines.get(at + 1).map_or("", |l| l.trim());
            return Some(
                format!("{} {message}", location.trim())
                    .trim_end()
                    .to_owned(),
            );
        }
        None
    }

    /// The error line followed by the guest's stderr and the backtrace,
    /// indented, for printing to a terminal.
    pub fn report(&self) -> String {
        let mut out = self.to_string();
        if let Some(stderr) = &self.guest_stderr {
            out.push_str("\n  guest stderr:");
            for line in stderr.lines() {
                out.push_str("\n    ");
                out.push_str(line);
            }
        }
        if let Some(bt) = &self.backtrace {
            for line in bt.lines() {
                out.push_str("\n  ");
                out.push_str(line);
            }
        }
        out
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "script `{}` ({}) failed in `{}` at frame {}: {}",
            self.script, self.instance, self.export, self.frame, self.cause
        )?;
        if let Some(summary) = self.guest_summary() {
            write!(f, " ({summary})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScriptError {}

/// Where a JavaScript error was thrown, from the frames below its
/// `Stack:` (`function@FILE:LINE:COLUMN`, innermost first): the first
/// frame in a script's own file, not in the engine's built-ins
/// (`self-hosted`) or the host's loader (`loader.js`). For a TypeScript
/// script, the `.ts` file's own line and column (its types are erased in
/// place).
fn thrown_at<'a>(frames: &[&'a str]) -> Option<&'a str> {
    frames
        .iter()
        .map(|line| line.trim())
        .take_while(|line| !line.is_empty())
        .map_while(|frame| {
            let (_, at) = frame.split_once('@')?;
            let mut parts = at.rsplitn(3, ':');
            let (column, line, file) = (parts.next()?, parts.next()?, parts.next()?);
            let numbers = [column, line]
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            numbers.then_some((file, at))
        })
        .find(|(file, _)| {
            let name = file.rsplit('/').next().unwrap_or(file);
            *file != "self-hosted" && name != "loader.js"
        })
        .map(|(_, at)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed_with(stderr: &str) -> ScriptError {
        ScriptError {
            script: "s".into(),
            instance: Uuid::nil(),
            export: ScriptExport::OnMessage,
            frame: 3,
            cause: "wasm trap: wasm `unreachable` instruction executed".into(),
            guest_stderr: Some(stderr.into()),
            backtrace: None,
        }
    }

    #[test]
    fn the_guest_says_why_in_its_own_language() {
        let rust = failed_with("thread '<unnamed>' panicked at src/lib.rs:9:5:\nboom\nnote: ...");
        assert_eq!(
            rust.guest_summary().unwrap(),
            "panicked at src/lib.rs:9:5: boom"
        );
        let python = failed_with(
            "Traceback (most recent call last):\n  File \"/0/app.py\", line 67, in on_wake\n\
             RuntimeError: E pressed\nthread panicked at runtime/src/lib.rs:1:1:\nPython function threw",
        );
        assert_eq!(
            python.guest_summary().unwrap(),
            "Python RuntimeError: E pressed"
        );
        let js = failed_with("E pressed\nStack:\n  onWake@app.js:62:13\nRedirecting call");
        assert_eq!(
            js.guest_summary().unwrap(),
            "JavaScript error at app.js:62:13: E pressed"
        );
        let no_stack = failed_with("E pressed\nStack:\n\nRedirecting call");
        assert_eq!(
            no_stack.guest_summary().unwrap(),
            "JavaScript error: E pressed"
        );
        // Built-ins' and the loader's frames are passed over; a line that
        // is not a frame ends the stack.
        let inner = failed_with(
            "bad\nStack:\n  setScale@self-hosted:12:3\n  call@loader.js:40:5\n  \
             onUpdate@/s/app.ts:30:8\nRedirecting call",
        );
        assert_eq!(
            inner.guest_summary().unwrap(),
            "JavaScript error at /s/app.ts:30:8: bad"
        );
        let not_frames = failed_with("bad\nStack:\nsee game:engine/log@0.2.6\n");
        assert_eq!(not_frames.guest_summary().unwrap(), "JavaScript error: bad");
        assert!(failed_with("some output").guest_summary().is_none());
        assert!(
            js.to_string()
                .ends_with("executed (JavaScript error at app.js:62:13: E pressed)")
        );
    }
}
