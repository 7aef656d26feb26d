//! [`EpochTicker`]: the thread that advances an engine's epoch, so the CPU
//! deadlines of `ScriptLimits` take effect.

use std::thread::JoinHandle;

use wasmtime::{Engine, EngineWeak};

use crate::limits::TICK;

/// Advances an engine's epoch every [`TICK`] on its own thread, until the
/// engine is dropped.
pub(crate) struct EpochTicker {
    _thread: JoinHandle<()>,
}

impl EpochTicker {
    pub fn start(engine: &Engine) -> std::io::Result<Self> {
        let weak: EngineWeak = engine.weak();
        let thread = std::thread::Builder::new()
            .name("epoch-ticker".into())
            .spawn(move || {
                while let Some(engine) = weak.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(TICK);
                }
            })?;
        Ok(EpochTicker { _thread: thread })
    }
}
