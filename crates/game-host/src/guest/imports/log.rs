//! `game:engine/log`: script log lines go to the instance's log sink.

use crate::guest::ScriptState;
use crate::guest::bindings::log::{Host, Level};
use crate::log::{LogLevel, LogSource};

impl From<Level> for LogLevel {
    fn from(level: Level) -> Self {
        match level {
            Level::Trace => LogLevel::Trace,
            Level::Debug => LogLevel::Debug,
            Level::Info => LogLevel::Info,
            Level::Warn => LogLevel::Warn,
            Level::Error => LogLevel::Error,
        }
    }
}

impl Host for ScriptState {
    fn log(&mut self, level: Level, message: String) -> wasmtime::Result<()> {
        self.identity.log(level.into(), LogSource::Api, message);
        Ok(())
    }
}
