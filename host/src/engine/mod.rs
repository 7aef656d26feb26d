//! The wasmtime engine, its linker, and loading script components.
//!
//! Configured for many short synchronous calls: no component-model
//! concurrency support (it triples the cost of a host-to-guest call), a
//! pooling instance allocator and `InstancePre` for cheap instantiation, and
//! an on-disk cache of compiled components so a restart skips compilation.

mod cache;
mod component;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::imports;
use crate::state::ScriptState;
use cache::ComponentCache;
use component::{WasmKind, wasm_kind};

pub use cache::default_cache_dir;
pub use component::ScriptComponent;

/// Adds host functions beyond the `script` world to the linker: the WIT
/// interface of an extension such as the terrain extension's `link`.
pub type LinkerExtension = fn(&mut Linker<ScriptState>) -> wasmtime::Result<()>;

/// How to set up a [`ScriptEngine`].
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Where compiled components are cached; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// Use the pooling instance allocator (faster instantiation, memory
    /// reserved up front for [`EngineOptions::max_instances`]).
    pub pooling: bool,
    /// Most script instances alive at once when pooling.
    pub max_instances: u32,
    /// Extensions whose WIT interfaces scripts may import besides the
    /// `script` world (e.g. `terrain::link`).
    pub extensions: Vec<LinkerExtension>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            cache_dir: default_cache_dir(),
            pooling: true,
            max_instances: 256,
            extensions: Vec::new(),
        }
    }
}

/// Compiles and links script components. Cheap to share by reference; one
/// engine serves any number of runtimes and instances.
pub struct ScriptEngine {
    engine: Engine,
    linker: Linker<ScriptState>,
    cache: Option<ComponentCache>,
}

/// Core instances, tables and memories one script component may use: a Rust
/// component has a main module plus a few small shims.
const CORE_INSTANCES_PER_SCRIPT: u32 = 8;

/// Bytes of each pooled memory and table kept resident between instances.
const KEEP_RESIDENT: usize = 64 << 10;

impl ScriptEngine {
    /// Creates an engine with `options`.
    pub fn new(options: EngineOptions) -> Result<Self> {
        let mut config = Config::new();
        config.concurrency_support(false);
        if options.pooling {
            let n = options.max_instances.max(1);
            let mut pool = PoolingAllocationConfig::new();
            pool.total_component_instances(n)
                .total_core_instances(n * CORE_INSTANCES_PER_SCRIPT)
                .total_tables(n * CORE_INSTANCES_PER_SCRIPT)
                .total_memories(n * 2)
                .max_memories_per_component(2)
                .max_core_instances_per_component(CORE_INSTANCES_PER_SCRIPT * 4)
                .max_tables_per_component(CORE_INSTANCES_PER_SCRIPT * 4)
                // Reset the start of each memory and table with memset when an
                // instance goes, instead of returning the pages to the kernel
                // and faulting them in again on the next instantiation.
                .linear_memory_keep_resident(KEEP_RESIDENT)
                .table_keep_resident(KEEP_RESIDENT);
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        }
        let engine = Engine::new(&config)
            .map_err(anyhow::Error::from)
            .context("failed to create the wasm engine")?;
        let mut linker = Linker::new(&engine);
        imports::add_to_linker(&mut linker)
            .map_err(anyhow::Error::from)
            .context("failed to link the engine API")?;
        for extension in &options.extensions {
            extension(&mut linker)
                .map_err(anyhow::Error::from)
                .context("failed to link a host extension")?;
        }
        let cache = options
            .cache_dir
            .map(|dir| ComponentCache::new(dir, &engine));
        Ok(ScriptEngine {
            engine,
            linker,
            cache,
        })
    }

    /// The underlying wasmtime engine.
    pub fn wasmtime(&self) -> &Engine {
        &self.engine
    }

    /// Loads the component at `path`; the script is named after the file.
    pub fn load_file(&self, path: &Path) -> Result<ScriptComponent> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("failed to read script `{}`", path.display()))?;
        self.load_bytes(&script_name(path), &bytes)
            .with_context(|| format!("failed to load script `{}`", path.display()))
    }

    /// Loads a component from bytes; `name` tags its log lines and errors.
    pub fn load_bytes(&self, name: &str, bytes: &[u8]) -> Result<ScriptComponent> {
        match wasm_kind(bytes) {
            WasmKind::Component => {}
            WasmKind::CoreModule => anyhow::bail!(
                "it is a core WebAssembly module, not a component \
                 (build it with `cargo build --target wasm32-wasip2` or `cargo component build`)"
            ),
            WasmKind::NotWasm => {
                anyhow::bail!("it is not a WebAssembly file (no `\\0asm` header)")
            }
        }
        let started = Instant::now();
        let (component, cached) = self.compile(bytes)?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(anyhow::Error::from)
            .context("it does not fit the host's `game:engine` API")?;
        let script = ScriptComponent::new(name, pre, bytes.len())
            .map_err(anyhow::Error::from)
            .context("it does not export the `game:engine` `script` world")?;
        tracing::debug!(
            script = name,
            bytes = bytes.len(),
            cached,
            elapsed = ?started.elapsed(),
            "loaded script component"
        );
        Ok(script)
    }

    fn compile(&self, bytes: &[u8]) -> Result<(Component, bool)> {
        if let Some(cache) = &self.cache
            && let Some(component) = cache.get(&self.engine, bytes)
        {
            return Ok((component, true));
        }
        let component = Component::new(&self.engine, bytes)
            .map_err(anyhow::Error::from)
            .context("it is not a valid component")?;
        if let Some(cache) = &self.cache {
            cache.put(&component, bytes);
        }
        Ok((component, false))
    }
}

/// The name a script loaded from `path` gets: the file's stem.
pub fn script_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
