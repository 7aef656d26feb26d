//! Background jobs through the generic job API: a second job kind defined
//! outside the host crate (its own WIT interface, linked as an extension),
//! and terrain as an extension the core does without.

mod common;

use game_host::ScriptState;
use game_host::jobs::Job;
use game_host::{EngineOptions, Extension, ScriptEngine};
use wasmtime::component::{HasSelf, Linker};

wasmtime::component::bindgen!({
    path: "tests/scripts/compute/wit",
    world: "compute-script",
    imports: { default: trappable },
});

use test::compute::primes;

/// The test's job kind: counts primes below a bound, and says on which
/// thread it ran.
#[derive(Clone)]
struct PrimeCount;

struct Counted {
    count: u32,
    thread: String,
}

impl Job for PrimeCount {
    type Key = u32;
    type Output = Counted;
    const NAME: &'static str = "prime-count";

    fn run(&self, below: &u32) -> Counted {
        let below = *below as usize;
        let mut composite = vec![false; below.max(2)];
        let mut count = 0;
        for n in 2..below {
            if !composite[n] {
                count += 1;
                for multiple in (n * n..below).step_by(n) {
                    composite[multiple] = true;
                }
            }
        }
        Counted {
            count,
            thread: std::thread::current().name().unwrap_or("").to_owned(),
        }
    }
}

impl primes::Host for ScriptState {
    fn count_primes(&mut self, token: u64, below: u32) -> wasmtime::Result<()> {
        self.request_job::<PrimeCount>(token, below)
    }

    fn prime_count(&mut self, below: u32) -> wasmtime::Result<Option<u32>> {
        Ok(self.job_output::<PrimeCount>(&below).map(|c| c.count))
    }
}

fn link_compute(linker: &mut Linker<ScriptState>) -> wasmtime::Result<()> {
    primes::add_to_linker::<_, HasSelf<_>>(linker, |state| state)
}

fn engine_with(extensions: Vec<Extension>) -> ScriptEngine {
    ScriptEngine::new(EngineOptions {
        cache_dir: Some(common::cache_dir()),
        max_instances: 16,
        extensions,
        ..EngineOptions::default()
    })
    .expect("engine")
}

#[test]
fn a_second_job_kind_runs_on_the_pool_and_answers_at_the_next_frame_boundary() {
    let engine = engine_with(vec![
        game_host_terrain::extension(),
        Extension::new("compute", link_compute),
    ]);
    let compute = common::load(&engine, "compute");
    let (mut runtime, log) = common::runtime();
    runtime.register_job(PrimeCount).unwrap();
    assert!(
        runtime.register_job(PrimeCount).is_err(),
        "a kind registers once"
    );
    runtime.spawn(&compute).unwrap();
    assert_eq!(runtime.inspect().wait_stats().pending, 2);
    runtime.run_frames(3);

    // Requested in `entrypoint` (frame 0), delivered at the start of frame 1,
    // in request order.
    let lines: Vec<String> = log.messages();
    assert_eq!(
        lines,
        [
            "9592 primes below 100000 at frame 1",
            "17984 primes below 200000 at frame 1"
        ]
    );
    let stats = runtime.inspect().job_stats_of::<PrimeCount>().unwrap();
    assert_eq!((stats.requests, stats.generated), (2, 2));
    let outputs = runtime.inspect().job_outputs::<PrimeCount>().unwrap();
    let counted = outputs.get(&100_000).unwrap();
    assert_eq!(counted.count, 9592);
    assert!(
        counted.thread.starts_with("job-worker"),
        "ran on `{}`",
        counted.thread
    );
    // The terrain kind saw none of it.
    assert_eq!(
        runtime
            .inspect()
            .job_stats_of::<game_host_terrain::Terrain>()
            .unwrap()
            .requests,
        0
    );
    assert_eq!(runtime.inspect().wait_stats().pending, 0);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
}

#[test]
fn a_job_kind_the_runtime_lacks_fails_the_script_naming_the_kind() {
    let engine = engine_with(vec![
        game_host_terrain::extension(),
        Extension::new("compute", link_compute),
    ]);
    let compute = common::load(&engine, "compute");
    // Linked, but this runtime never registered the kind.
    let (mut runtime, _log) = common::runtime();
    let error = runtime.spawn(&compute).unwrap_err();
    let text = format!("{error:#}");
    assert!(text.contains("`prime-count` job"), "{text}");
    assert!(
        text.contains("test-compute") || text.contains("test_compute"),
        "{text}"
    );
    assert_eq!(runtime.inspect().live_instances(), 0);
}

#[test]
fn one_extension_value_links_the_interface_and_registers_its_job_kind() {
    let engine = engine_with(vec![
        Extension::new("compute", link_compute).with_job(PrimeCount),
    ]);
    let compute = common::load(&engine, "compute");
    // Nothing registered by hand: spawning a script of this engine does it.
    let (mut runtime, log) = common::runtime();
    assert!(runtime.inspect().job_stats_of::<PrimeCount>().is_none());
    runtime.spawn(&compute).unwrap();
    runtime.spawn(&compute).unwrap();
    runtime.run_frames(2);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert_eq!(
        log.messages(),
        [
            "9592 primes below 100000 at frame 1",
            "17984 primes below 200000 at frame 1",
            "9592 primes below 100000 at frame 1",
            "17984 primes below 200000 at frame 1"
        ]
    );
    // Registered once, however many instances started.
    let stats = runtime.inspect().job_stats_of::<PrimeCount>().unwrap();
    assert_eq!((stats.requests, stats.generated), (4, 2));
}

#[test]
fn the_core_host_runs_plain_scripts_and_refuses_terrain_naming_the_interface() {
    let core = engine_with(Vec::new());
    // A script that never calls terrain (it does not depend on the
    // extension's guest crate, `game-terrain`) does not import it: the core
    // host loads it.
    let cube = common::load(&core, "spinning-cube");
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&cube).unwrap();
    runtime.run_frames(10);
    assert!(runtime.inspect().errors().is_empty());

    let error = core
        .load_file(&common::build("terrain"))
        .map(drop)
        .unwrap_err();
    let text = format!("{error:#}");
    assert!(text.contains("game:terrain/terrain"), "{text}");
}
