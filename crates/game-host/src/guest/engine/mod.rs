//! The wasmtime engine, its linker, and loading script components.
//!
//! Configured for many short synchronous calls: no component-model
//! concurrency support (it triples the cost of a host-to-guest call), a
//! pooling instance allocator and `InstancePre` for cheap instantiation, and
//! an on-disk cache of compiled components so a restart skips compilation.
//! A component that does not fit is refused in one line: `api_check` (the
//! `game:engine` release, network imports), `game_check` (a game's types).
//! `predictor_check` says whether a component may run in the players'
//! browsers (world `predictor`).

mod api_check;
mod cache;
mod component;
mod extension;
mod game_check;
mod grant;
mod predictor_check;
mod ticker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::files::{MAX_COMPONENT_FILE, read_capped};
use crate::game_types::GameTypes;
use crate::guest::ScriptState;
use crate::guest::{imports, v0_1};
use crate::limits::ScriptLimits;
use crate::progress::Progress;
use crate::sync::LockExt;
pub use api_check::API_VERSION;
use api_check::api_mismatch;
use cache::ComponentCache;
use component::{WasmKind, wasm_kind};
pub use predictor_check::{BROWSER_WASI, PREDICTOR_IMPORTS};
use ticker::EpochTicker;

pub use cache::default_cache_dir;
pub use component::ScriptComponent;
pub(crate) use component::arm_deadline;
pub use extension::{Extension, LinkFn};
pub use grant::{NEEDS_SECTION, python_imports};

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
    /// `script` world, with their job kinds (e.g. `game_host_terrain`'s).
    pub extensions: Vec<Extension>,
    /// The game's own components and resources as types (`host run
    /// --game FILE`): scripts made for the game import them, and load only
    /// if they were built for this description.
    pub game: Option<Arc<GameTypes>>,
    /// CPU deadlines and memory limits of every instance.
    pub limits: ScriptLimits,
    /// Write `/tmp/perf-PID.map`, naming each compiled script function at
    /// its address, for `perf report` or to name the addresses callgrind
    /// shows as `???` (see `docs/benchmarks.md`).
    pub perf_map: bool,
    /// Make floating point the same on every CPU architecture: NaNs
    /// produced by script code get one canonical bit pattern (relaxed SIMD
    /// instructions have their deterministic lowering always). Off by
    /// default: a run
    /// is then a function of its scripts, inputs and seed on one
    /// architecture (x86-64 or aarch64), and float-heavy code runs about
    /// twice as fast; on for lockstep across architectures (see
    /// [`crate::determinism`] and `docs/determinism.md`).
    pub deterministic_floats: bool,
    /// Compile scripts for a native debugger: their DWARF (a script built
    /// with debug info) is translated and registered with gdb or lldb
    /// through the JIT interface, and code is not optimised, so a
    /// breakpoint at a script's source line stops there and its locals can
    /// be printed. For `host run --debug`; off, nothing of it is compiled.
    pub debug_info: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            cache_dir: default_cache_dir(),
            pooling: true,
            max_instances: 256,
            extensions: Vec::new(),
            game: None,
            limits: ScriptLimits::default(),
            perf_map: false,
            deterministic_floats: false,
            debug_info: false,
        }
    }
}

/// Compiles and links script components. Cheap to share by reference; one
/// engine serves any number of runtimes and instances.
pub struct ScriptEngine {
    engine: Engine,
    linker: Arc<Linker<ScriptState>>,
    cache: Option<ComponentCache>,
    /// Where the cache is, also when compiled code is not cached (a
    /// debugging engine): Python and JavaScript builds are kept there.
    cache_dir: Option<PathBuf>,
    limits: ScriptLimits,
    deterministic_floats: bool,
    /// Components loaded once and kept for the engine's life (the live
    /// Python and JavaScript runtimes), by key.
    kept: Mutex<HashMap<String, ScriptComponent>>,
    /// The extensions linked, whose job kinds each runtime registers.
    extensions: Arc<[Extension]>,
    /// The game's types, linked; scripts that import them are checked
    /// against them.
    game: Option<Arc<GameTypes>>,
    /// Advances the epoch while CPU deadlines are on.
    _ticker: Option<EpochTicker>,
}

/// Core instances, tables and memories one script component may use: a Rust
/// component has a main module plus a few small shims.
const CORE_INSTANCES_PER_SCRIPT: u32 = 8;

/// Bytes at the start of each pooled memory and table kept resident between
/// instances (reset with memset, not returned to the kernel). A script linked
/// with a 64 KiB stack (this workspace's `.cargo/config.toml`) has its stack
/// top, data and first heap pages here, so a new instance faults in no pages;
/// with Rust's default 1 MiB stack they lie past it, and every spawn pays
/// page faults and an `madvise` (spawn + despawn 24 vs 44 us).
const KEEP_RESIDENT: usize = 128 << 10;

/// Address space the pool may reserve for linear memories. By default each
/// pooled memory reserves 4 GiB plus a 32 MiB guard, so bounds checks are
/// free; past this budget (about 4,000 instances) each memory reserves only
/// the memory limit, and compiled code checks bounds explicitly. A 64-bit
/// process has 128 TiB of address space.
const POOL_ADDRESS_SPACE: u64 = 32 << 40;

/// The guard after each pooled memory.
const GUARD: u64 = 32 << 20;

/// The default reservation (4 GiB) plus guard of one memory.
const DEFAULT_MEMORY_SLOT: u64 = (4 << 30) + GUARD;

/// Memory mappings (VMAs) one running instance of a Rust script holds: its
/// linear memory's stack and heap, its data mapped copy-on-write from the
/// component's image, and the inaccessible rest of its slot. Without the
/// copy-on-write image (data copied in at instantiation) the first three
/// are one. Measured in `/proc/PID/maps` with 3,000 and 5,000 instances.
const MAPS_PER_INSTANCE_COW: u64 = 4;
const MAPS_PER_INSTANCE: u64 = 2;

/// Mappings left for the rest of the process (libraries, threads, the
/// compiled code, a Python or JavaScript runtime's larger memories).
const MAPS_KEPT: u64 = 8_192;

/// The most memory mappings the kernel allows one process
/// (`vm.max_map_count`; Linux's default is 65,530).
fn max_map_count() -> u64 {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(65_530)
}

impl ScriptEngine {
    /// The most script instances a pool can hold on this system, each
    /// with memories of at most `memory` bytes: within the memory mappings
    /// the kernel allows (`vm.max_map_count`, each instance mapping a few
    /// areas) and the address space the pool may reserve (two memories an
    /// instance, each its limit and a guard). What a server sizes its pool
    /// within when the number comes from data (a state directory's logs),
    /// not from its operator.
    pub fn most_pooled_instances(memory: usize) -> usize {
        let maps = max_map_count().saturating_sub(MAPS_KEPT) / MAPS_PER_INSTANCE;
        let slot = (memory as u64).saturating_add(GUARD);
        let space = POOL_ADDRESS_SPACE / (2 * slot.max(1));
        usize::try_from(maps.min(space)).unwrap_or(usize::MAX)
    }

    /// Creates an engine with `options`.
    pub fn new(options: EngineOptions) -> Result<Self> {
        let limits = options.limits;
        let mut config = Config::new();
        config.concurrency_support(false);
        config.cranelift_nan_canonicalization(options.deterministic_floats);
        // Relaxed SIMD always has its deterministic lowering: otherwise its
        // results follow the CPU's features (FMA or not), which differ
        // between machines of one architecture.
        config.relaxed_simd_deterministic(true);
        if options.debug_info {
            config.debug_info(true);
            config.cranelift_opt_level(wasmtime::OptLevel::None);
        }
        if options.perf_map {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        // Epoch checks in compiled code, only when deadlines are enforced.
        config.epoch_interruption(limits.update_deadline.is_some());
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
                .table_keep_resident(KEEP_RESIDENT)
                // No pooled memory may outgrow the per-instance limit; the
                // store's limiter reports it first, with a clear error.
                .max_memory_size(limits.memory);
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
            let maps = max_map_count();
            let instances = u64::from(n);
            if instances * MAPS_PER_INSTANCE + MAPS_KEPT > maps {
                bail!(
                    "{n} script instances need about {} memory mappings, and this system allows \
                     {maps} (vm.max_map_count): raise it, e.g. `sudo sysctl -w \
                     vm.max_map_count={}`, or start fewer instances",
                    instances * MAPS_PER_INSTANCE + MAPS_KEPT,
                    (instances * MAPS_PER_INSTANCE_COW + MAPS_KEPT).next_power_of_two()
                );
            }
            if instances * MAPS_PER_INSTANCE_COW + MAPS_KEPT > maps {
                // Each instance's data is copied in rather than mapped from
                // the image: half the mappings (a few microseconds more per
                // instantiation of a small script).
                tracing::info!(
                    instances = n,
                    "copying each instance's initial memory instead of mapping it, to stay \
             within vm.max_map_count ({maps})"
                );
                config.memory_init_cow(false);
            }
            let memories = u64::from(n) * 2;
            if memories * DEFAULT_MEMORY_SLOT > POOL_ADDRESS_SPACE {
                tracing::info!(
                    instances = n,
                    "reserving {} MiB of address space per linear memory, not 4 GiB, to fit \
                     {n} instances: bounds are checked in compiled code",
                    limits.memory >> 20
                );
                config.memory_reservation(limits.memory as u64);
            }
        }
        let engine = Engine::new(&config)
            .map_err(anyhow::Error::from)
            .context("failed to create the wasm engine")?;
        let mut linker = Linker::new(&engine);
        imports::add_to_linker(&mut linker)
            .and_then(|()| v0_1::add_to_linker(&mut linker))
            .map_err(anyhow::Error::from)
            .context("failed to link the engine API")?;
        if let Some(game) = &options.game {
            imports::add_game_to_linker(&mut linker, game)
                .map_err(anyhow::Error::from)
                .with_context(|| format!("failed to link game `{}`'s types", game.name))?;
        }
        for extension in &options.extensions {
            extension
                .link(&mut linker)
                .map_err(anyhow::Error::from)
                .with_context(|| format!("failed to link the `{}` extension", extension.name()))?;
        }
        // A debugger writes breakpoints into compiled code: a debugging
        // engine neither writes its code to the cache nor reads any.
        let cache = match options.debug_info {
            true => None,
            false => options
                .cache_dir
                .clone()
                .map(|dir| ComponentCache::new(dir, &engine)),
        };
        let ticker = match limits.update_deadline {
            Some(_) => Some(
                EpochTicker::start(&engine).context("failed to start the epoch ticker thread")?,
            ),
            None => None,
        };
        Ok(ScriptEngine {
            engine,
            linker: Arc::new(linker),
            cache,
            cache_dir: options.cache_dir,
            limits,
            deterministic_floats: options.deterministic_floats,
            kept: Mutex::new(HashMap::new()),
            extensions: options.extensions.into(),
            game: options.game,
            _ticker: ticker,
        })
    }

    /// The component kept under `key`, or the one `bytes` gives, loaded,
    /// warmed up and kept: a language runtime is compiled once per engine,
    /// not once per script or per edit. `key` must name the bytes exactly.
    pub fn load_kept(
        &self,
        key: &str,
        name: &str,
        bytes: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<ScriptComponent> {
        let mut kept = self.kept.lock_unpoisoned();
        if let Some(component) = kept.get(key) {
            return Ok(component.clone());
        }
        // One at a time in a process: engines that want the same component
        // at once wait for the first to compile it, then read the cache.
        static LOADING: Mutex<()> = Mutex::new(());
        let _loading = LOADING.lock_unpoisoned();
        let component = self.load_bytes(name, &bytes()?)?;
        component.warm_up()?;
        kept.insert(key.to_owned(), component.clone());
        Ok(component)
    }

    /// Where compiled components (and Python / JavaScript builds) are
    /// cached, if anywhere.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache_dir.as_deref()
    }

    /// The game's types this engine links ([`EngineOptions::game`]), if
    /// any.
    pub fn game(&self) -> Option<&GameTypes> {
        self.game.as_deref()
    }

    /// Whether NaNs are canonical ([`EngineOptions::deterministic_floats`]).
    pub fn deterministic_floats(&self) -> bool {
        self.deterministic_floats
    }

    /// The underlying wasmtime engine.
    pub fn wasmtime(&self) -> &Engine {
        &self.engine
    }

    /// Loads the component at `path`; the script is named after the file.
    pub fn load_file(&self, path: &Path) -> Result<ScriptComponent> {
        let bytes = read_capped(path, MAX_COMPONENT_FILE)
            .with_context(|| format!("failed to read script `{}`", path.display()))?;
        self.load_bytes(&script_name(path), &bytes)
            .map(|script| script.with_source(path))
            .with_context(|| format!("failed to load script `{}`", path.display()))
    }

    /// Loads a component from bytes; `name` tags its log lines and errors.
    pub fn load_bytes(&self, name: &str, bytes: &[u8]) -> Result<ScriptComponent> {
        match wasm_kind(bytes) {
            WasmKind::Component => {}
            WasmKind::CoreModule => anyhow::bail!(
                "it is a core WebAssembly module, not a component \
                 (build it with `cargo build --release --target wasm32-wasip2`)"
            ),
            WasmKind::NotWasm => {
                anyhow::bail!("it is not a WebAssembly file (no `\\0asm` header)")
            }
        }
        let started = Instant::now();
        let (component, cached) = self.compile(name, bytes)?;
        if let Some(mismatch) = game_check::mismatch(&component, &self.engine, self.game.as_deref())
        {
            anyhow::bail!(mismatch);
        }
        let pre = self.linker.instantiate_pre(&component).map_err(|error| {
            match api_mismatch(&component, &self.engine, &format!("{error:#}")) {
                Some(mismatch) => anyhow::anyhow!(mismatch),
                None => anyhow::Error::from(error)
                    .context("it does not fit the host's `game:engine` API"),
            }
        })?;
        let digest = Sha256::digest(bytes).into();
        let needs = grant::needs_of(bytes)?;
        let script = ScriptComponent::new(name, pre, bytes.len(), digest, self.limits)
            .map(|script| {
                script
                    .linked(self.extensions.clone(), self.linker.clone())
                    .with_needs(needs)
            })
            .map_err(anyhow::Error::from)
            .context("it does not export the `game:engine` `script` world (`entrypoint`, `on-update`, `on-wake`)")?;
        tracing::debug!(
            script = name,
            bytes = bytes.len(),
            cached,
            elapsed = ?started.elapsed(),
            "loaded script component"
        );
        Ok(script)
    }

    fn compile(&self, name: &str, bytes: &[u8]) -> Result<(Component, bool)> {
        if let Some(cache) = &self.cache
            && let Some(component) = cache.get(&self.engine, bytes)
        {
            return Ok((component, true));
        }
        // Large components (a Python or JavaScript runtime inside) take
        // seconds to compile: say so while it runs.
        let _progress = (bytes.len() >= LARGE_COMPONENT).then(|| {
            let cached = match self.cache {
                Some(_) => "; cached for later runs",
                None => "",
            };
            Progress::start(format!(
                "compiling `{name}` ({:.1} MB{cached})",
                bytes.len() as f64 / 1e6
            ))
        });
        let component = Component::new(&self.engine, bytes)
            .map_err(anyhow::Error::from)
            .context("it is not a valid component")?;
        if let Some(cache) = &self.cache {
            cache.put(&component, bytes);
        }
        Ok((component, false))
    }
}

/// Components at least this large get progress lines while compiling.
const LARGE_COMPONENT: usize = 4 << 20;

/// The name a script loaded from `path` gets: the file's stem.
pub fn script_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
