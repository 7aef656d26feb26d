//! Spawning reuses pooled memory that stays resident: once the pool has
//! served a script, spawning and despawning it again faults in no pages.
//! A script's stack top, data and first heap pages lie in the part of its
//! linear memory the pool keeps resident (a 64 KiB stack, linked by this
//! workspace's `.cargo/config.toml`, and `KEEP_RESIDENT` in
//! `crates/game-host/src/guest/engine/mod.rs`). Counted in page faults, not timed: fewer than
//! 20 in 100 cycles (the host's own allocations may take a fresh page now
//! and then); with Rust's default 1 MiB stack it is about 400.

mod common;

use common::memory::thread_minor_faults;

#[test]
fn spawning_again_faults_in_no_pages() {
    let engine = common::engine();
    let (mut runtime, _log) = common::runtime();
    for name in ["spinning-cube", "noop", "peers"] {
        let component = common::load(&engine, name);
        let mut cycle = || {
            let id = runtime.spawn(&component).unwrap();
            runtime.step();
            assert!(runtime.despawn(id));
        };
        for _ in 0..100 {
            cycle();
        }
        let before = thread_minor_faults();
        for _ in 0..100 {
            cycle();
        }
        let faults = thread_minor_faults() - before;
        assert!(
            faults < 20,
            "{name}: {faults} page faults in 100 spawn + update + despawn cycles"
        );
        assert!(
            runtime.inspect().errors().is_empty(),
            "{:?}",
            runtime.inspect().errors()
        );
    }
}
