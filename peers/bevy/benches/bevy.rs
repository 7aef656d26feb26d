//! Scripts inside Bevy, measured side by side in one process: the same
//! work (the spinning cube's update; 10,000 entities moved each fixed step,
//! through kept components or batched; 10,000 behaviours) through
//!
//! - `plugin`: `game-host-bevy`, the `peers` script on Bevy's entities;
//! - `bms`: bevy_mod_scripting 0.23 with LuaJIT, the same work in Lua on
//!   the same kind of app (where it has the scenario);
//! - `native`: a Bevy system doing it in Rust;
//! - `host`: the standalone host (`Runtime::step` on the core's scene).
//!
//! Every Bevy side is one `App::update` of a headless app (one fixed step
//! each) holding the same entities; `idle` is that app with nothing moving
//! them (transform propagation and the schedule still run), so a side's
//! cost of the work is its update less `idle`'s. Rounds are interleaved so
//! that noise hits all sides alike; each side's result is checked first.
//!
//! `cargo bench -p bevy-peers` (add `-- --quick` for fewer rounds, and
//! scenario names, `-- --quick query scripts`, for only those).

use std::time::Duration;

use bevy_peers::{Scenario, Side, apps};

#[path = "../../benches/peers/rounds.rs"]
mod rounds;

use rounds::{duration, interleaved, ns};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 21 };
    let named: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let chosen = |s: &Scenario| {
        named.is_empty()
            || named
                .iter()
                .any(|n| format!("{s:?}").eq_ignore_ascii_case(n))
    };
    println!(
        "| scenario | idle app, per step | plugin | bms (LuaJIT) | native system | standalone host | plugin / bms | plugin / native | plugin / host |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for scenario in Scenario::ALL.into_iter().filter(chosen) {
        let mut sides = apps(scenario);
        for side in &mut sides {
            side.check();
        }
        let per = (scenario.work_items() * scenario.steps_per_update() as usize) as f64;
        let ops = scenario.updates_per_round();
        let mut timed: Vec<rounds::Side<'_>> = sides
            .iter_mut()
            .map(|side| rounds::Side {
                name: side.name(),
                op: Box::new(move || side.update()),
            })
            .collect();
        let times = interleaved(&mut timed, ops, rounds);
        drop(timed);
        for side in &mut sides {
            side.check();
        }
        report(scenario, &times, per);
    }
}

/// One table row: each side's cost of the work per item, in ns (a Bevy
/// side's update less the idle app's, over the items of its fixed steps),
/// and the ratios; the idle app's cost per fixed step.
fn report(scenario: Scenario, times: &[(&'static str, Duration)], per: f64) {
    let get = |name: &str| times.iter().find(|(n, _)| *n == name).map(|(_, t)| ns(*t));
    let idle = get(Side::IDLE).unwrap_or(0.0);
    let work = |name: &str| {
        get(name).map(|t| match name {
            Side::HOST => t / per,
            _ => (t - idle).max(0.0) / per,
        })
    };
    let cell = |v: Option<f64>| v.map_or("-".to_owned(), duration);
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "-".to_owned(),
    };
    let (plugin, bms, native, host) = (
        work(Side::PLUGIN),
        work(Side::BMS),
        work(Side::NATIVE),
        work(Side::HOST),
    );
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        scenario.label(),
        duration(idle / f64::from(scenario.steps_per_update())),
        cell(plugin),
        cell(bms),
        cell(native),
        cell(host),
        ratio(plugin, bms),
        ratio(plugin, native),
        ratio(plugin, host),
    );
}
