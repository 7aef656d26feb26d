//! [`ScriptLimiter`]: the store's `ResourceLimiter`, which keeps an
//! instance's linear memories and tables within its limits.

use wasmtime::ResourceLimiter;

use crate::limits::ScriptLimits;

/// The store's `ResourceLimiter`: refuses to grow a linear memory or a table
/// past the script's limits, with an error that says so (the guest traps
/// at once, before the host commits the memory).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScriptLimiter {
    memory: usize,
    table_elements: usize,
}

impl ScriptLimiter {
    pub fn new(limits: &ScriptLimits) -> Self {
        ScriptLimiter {
            memory: limits.memory,
            table_elements: limits.table_elements,
        }
    }
}

impl Default for ScriptLimiter {
    fn default() -> Self {
        ScriptLimiter::new(&ScriptLimits::unlimited())
    }
}

impl ResourceLimiter for ScriptLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory {
            wasmtime::bail!(
                "out of memory: it tried to grow a linear memory from {} to {} MiB, \
                 past its limit of {} MiB",
                current >> 20,
                desired.div_ceil(1 << 20),
                self.memory >> 20
            );
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            wasmtime::bail!(
                "it tried to grow a table from {current} to {desired} elements, \
                 past its limit of {}",
                self.table_elements
            );
        }
        Ok(true)
    }
}
