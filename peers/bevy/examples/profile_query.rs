//! Runs the plugin's side of a scenario for profiling (`perf record`,
//! callgrind): `cargo build --release -p bevy-peers --example profile_query`,
//! then `target/release/examples/profile_query [SCENARIO] [UPDATES]` with a
//! scenario of `Scenario::ALL` by its marker (`peers:query`, the default)
//! and the updates to run after the script has started (default 500).

use bevy_peers::{Scenario, plugin};

fn main() {
    let mut args = std::env::args().skip(1);
    let marker = args.next().unwrap_or_else(|| "peers:query".into());
    let updates: u32 = args
        .next()
        .map_or(500, |n| n.parse().expect("a number of updates"));
    let scenario = Scenario::ALL
        .into_iter()
        .find(|scenario| scenario.marker() == marker)
        .unwrap_or_else(|| panic!("no scenario {marker}"));
    let mut app = plugin::app(scenario);
    let start = std::time::Instant::now();
    for _ in 0..updates {
        app.update();
    }
    plugin::check(&mut app);
    println!(
        "{updates} updates of {marker}: {:?} each",
        start.elapsed() / updates
    );
}
