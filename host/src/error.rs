//! [`ScriptError`]: a script trapped (or failed) inside one of its exports.

use std::fmt;

use uuid::Uuid;
use wasmtime::{Trap, WasmBacktrace};

/// The export a script was running when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptExport {
    /// `entrypoint`, called once at start.
    Entrypoint,
    /// `on-message`, called every frame per subscription.
    OnMessage,
    /// `save-state`, called on the old instance during a hot-swap.
    SaveState,
    /// `restore-state`, called on the new instance during a hot-swap.
    RestoreState,
}

impl fmt::Display for ScriptExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScriptExport::Entrypoint => "entrypoint",
            ScriptExport::OnMessage => "on-message",
            ScriptExport::SaveState => "save-state",
            ScriptExport::RestoreState => "restore-state",
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

    /// `panicked at FILE:LINE:COL: MESSAGE`, when the guest's stderr shows a
    /// Rust panic.
    pub fn panic_summary(&self) -> Option<String> {
        let stderr = self.guest_stderr.as_deref()?;
        let mut lines = stderr.lines();
        let location = lines.find_map(|l| l.find("panicked at").map(|at| &l[at..]))?;
        let message = lines.next().unwrap_or("").trim();
        Some(
            format!("{} {message}", location.trim())
                .trim_end()
                .to_owned(),
        )
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
        if let Some(panic) = self.panic_summary() {
            write!(f, " ({panic})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScriptError {}
