//! Scripts inside Bevy, measured side by side in one process: the same
//! work (the spinning cube's update; 10,000 entities moved each fixed step,
//! one call each or batched; 10,000 behaviours) through
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
//! `cargo bench -p bevy-peers` (add `-- --quick` for fewer rounds).

use std::time::{Duration, Instant};

use bevy_peers::{Scenario, Side, apps};

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 21 };
    println!(
        "| scenario | idle app, per step | plugin | bms (LuaJIT) | native system | standalone host | plugin / bms | plugin / native | plugin / host |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for scenario in Scenario::ALL {
        let mut sides = apps(scenario);
        for side in &mut sides {
            side.check();
        }
        let per = (scenario.work_items() * scenario.steps_per_update() as usize) as f64;
        let ops = scenario.updates_per_round();
        let times = interleaved(&mut sides, ops, rounds);
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

/// Times `ops` steps of each side per round, rounds interleaved (idle,
/// plugin, bms, native, host, idle, ...); each side's median per step.
fn interleaved(sides: &mut [Side], ops: u32, rounds: u32) -> Vec<(&'static str, Duration)> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); sides.len()];
    for side in sides.iter_mut() {
        for _ in 0..ops {
            side.update(); // warm up
        }
    }
    for _ in 0..rounds {
        for (side, times) in sides.iter_mut().zip(&mut times) {
            let started = Instant::now();
            for _ in 0..ops {
                side.update();
            }
            times.push(started.elapsed() / ops);
        }
    }
    sides
        .iter()
        .zip(times)
        .map(|(side, mut t)| {
            t.sort();
            (side.name(), t[t.len() / 2])
        })
        .collect()
}

fn ns(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

/// `ns` nanoseconds, in ns, µs or ms.
fn duration(ns: f64) -> String {
    match ns {
        ns if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        ns if ns >= 1e4 => format!("{:.1} µs", ns / 1e3),
        ns if ns >= 10.0 => format!("{ns:.0} ns"),
        ns => format!("{ns:.1} ns"),
    }
}
