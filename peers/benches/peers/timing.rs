//! Timing the three sides: interleaved rounds, medians, ratios, the table
//! and the chart.

use std::path::Path;
use std::time::Duration;

use game_host::Runtime;
use peers::{LUA_NAME, LuaScript};

pub(crate) use crate::rounds::{Side, duration, interleaved, ns};

/// Times one update of the wasm runtime, the Lua script and the native
/// code, interleaved; fails if the wasm script failed meanwhile.
pub(crate) fn three_sides<'a>(
    w: &'a mut Runtime,
    l: &'a LuaScript,
    native: impl FnMut() + 'a,
    ops: u32,
    rounds: u32,
) -> Vec<(&'static str, Duration)> {
    let times = interleaved(
        &mut [
            wasm_side(w),
            lua_side(l),
            Side {
                name: "native",
                op: Box::new(native),
            },
        ],
        ops,
        rounds,
    );
    assert_ran(w);
    times
}

/// The wasm side of a timing: one frame of `runtime`.
pub(crate) fn wasm_side(runtime: &mut Runtime) -> Side<'_> {
    Side {
        name: "wasm",
        op: Box::new(|| {
            runtime.step();
        }),
    }
}

/// The Lua side of a timing: one update of `script`.
pub(crate) fn lua_side(script: &LuaScript) -> Side<'_> {
    Side {
        name: "lua",
        op: Box::new(|| script.update().unwrap()),
    }
}

/// Fails the benchmark if a script failed while being timed.
pub(crate) fn assert_ran(runtime: &Runtime) {
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
}

/// One scenario's medians in ns per operation, by side.
pub(crate) struct Row {
    pub scenario: &'static str,
    pub values: Vec<(&'static str, f64)>,
}

impl Row {
    /// The median of side `name`, if the row has that side.
    fn get(&self, name: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

pub(crate) fn row(scenario: &'static str, times: &[(&'static str, Duration)]) -> Row {
    Row {
        scenario,
        values: times.iter().map(|(n, t)| (*n, ns(*t))).collect(),
    }
}

pub(crate) fn print_table(rows: &[Row]) {
    println!();
    println!(
        "| scenario | wasm (this host) | {LUA_NAME} | native | wasm / {LUA_NAME} | wasm / native |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for row in rows {
        let fmt = |v: Option<f64>| v.map_or("-".to_owned(), duration);
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
            _ => "-".to_owned(),
        };
        let (w, l, n) = (row.get("wasm"), row.get("lua"), row.get("native"));
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            row.scenario,
            fmt(w),
            fmt(l),
            fmt(n),
            ratio(w, l),
            ratio(w, n)
        );
    }
}

/// The wasm-vs-Lua speedups as a chart in docs/.
pub(crate) fn write_chart(rows: &[Row]) {
    let speedups: Vec<(String, f64)> = rows
        .iter()
        // wasmtime's own call is part of a frame, not a scenario.
        .filter(|row| row.scenario != crate::floor::FLOOR)
        .filter_map(|row| Some((row.scenario.to_owned(), row.get("lua")? / row.get("wasm")?)))
        .collect();
    let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/peers.svg");
    match peers::chart::speedups(&chart, LUA_NAME, &speedups) {
        Ok(()) => println!("chart: {}", chart.display()),
        Err(error) => eprintln!("could not write the chart {}: {error}", chart.display()),
    }
}
