//! Seeing inside running scripts: each script's time per frame (the
//! `--profile-summary` table, `game_script_cpu_seconds_total` on `host
//! serve`'s `/metrics`, and `GET /worlds/ID`), and `host run --profile`,
//! whose samples (taken on the CPU deadline's ticks) have the hot function
//! of `tests/scripts/hot` on at least half of them.

mod common;

use std::time::{Duration, Instant};

use common::serve::{Serve, json, request};
use common::{build, cache_dir, run_host, stderr_of};
use serde_json::Value;

/// The names on each sample's stack, from a profile in the Firefox
/// Profiler's processed format.
fn sampled_stacks(profile: &Value) -> Vec<Vec<String>> {
    let thread = &profile["threads"][0];
    let strings = thread["stringArray"].as_array().unwrap();
    let index = |v: &Value| v.as_u64().unwrap() as usize;
    let stacks = &thread["stackTable"];
    let frames = &thread["frameTable"];
    let funcs = &thread["funcTable"];
    thread["samples"]["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|stack| {
            let mut names = Vec::new();
            let mut at = stack.clone();
            while !at.is_null() {
                let frame = index(&stacks["frame"][index(&at)]);
                let func = index(&frames["func"][frame]);
                let name = index(&funcs["name"][func]);
                names.push(strings[name].as_str().unwrap().to_owned());
                at = stacks["prefix"][index(&at)].clone();
            }
            names
        })
        .collect()
}

#[test]
fn a_profile_has_the_hot_function_on_most_samples() {
    let component = build("hot");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hot.json");
    let output = run_host(
        &[
            "run",
            component.to_str().unwrap(),
            "--headless",
            "--frames",
            "120",
            "--profile",
            file.to_str().unwrap(),
            "--profile-summary",
        ],
        &cache_dir(),
    );
    let stderr = stderr_of(&output);
    assert!(output.status.success(), "{stderr}");
    // The summary names the script, with its frames.
    let row = stderr
        .lines()
        .find(|l| l.starts_with("test_hot "))
        .unwrap_or_else(|| panic!("no summary row:\n{stderr}"));
    assert_eq!(row.split_whitespace().nth(1), Some("120"), "{row}");

    let profile: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let stacks = sampled_stacks(&profile);
    assert!(stacks.len() >= 20, "only {} samples", stacks.len());
    let hot = stacks
        .iter()
        .filter(|names| names.iter().any(|n| n.ends_with("::hot_loop")))
        .count();
    assert!(
        hot * 2 >= stacks.len(),
        "`hot_loop` is on {hot} of {} samples: {:?}",
        stacks.len(),
        stacks.first()
    );
    // The hot function is called from the script's update export.
    assert!(
        stacks
            .iter()
            .any(|names| names.iter().any(|n| n == "on-update"))
    );
}

#[test]
fn each_scripts_time_reaches_metrics_and_the_worlds_status() {
    let hot = build("hot");
    let cube = build("spinning-cube");
    let server = Serve::start(&[hot.to_str().unwrap(), cube.to_str().unwrap()]);
    // Let the world run a few hundred frames.
    let deadline = Instant::now() + Duration::from_secs(30);
    let seconds = loop {
        let (_, metrics) = request("GET", &server.url("/metrics"), None);
        let value = metrics
            .lines()
            .find(|l| l.starts_with("game_script_cpu_seconds_total{script=\"test_hot\"}"))
            .and_then(|l| l.split_whitespace().last()?.parse::<f64>().ok());
        if let Some(seconds) = value
            && seconds > 0.0
        {
            assert!(
                metrics.contains("game_script_cpu_seconds_total{script=\"spinning_cube\"}"),
                "{metrics}"
            );
            break seconds;
        }
        assert!(Instant::now() < deadline, "no script time in:\n{metrics}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(seconds > 0.0);

    let (status, world) = request("GET", &server.url("/worlds/1"), None);
    assert_eq!(status, 200, "{world}");
    let world = json(&world);
    let scripts = world["scripts"].as_array().unwrap();
    // The hot script takes the most time, and comes first.
    assert_eq!(scripts[0]["script"], "test_hot", "{world}");
    assert!(
        scripts[0]["ms_per_frame"]["p50"].as_f64().unwrap() > 0.0,
        "{world}"
    );
    assert_eq!(scripts[1]["script"], "spinning_cube", "{world}");
    assert!(
        scripts[0]["ms_per_frame"]["p50"].as_f64() > scripts[1]["ms_per_frame"]["p50"].as_f64(),
        "{world}"
    );
    let (status, _) = request("GET", &server.url("/worlds/99"), None);
    assert_eq!(status, 404);
}

#[test]
fn gdb_stops_at_a_line_of_the_script_and_shows_its_locals() {
    let tool = std::process::Command::new("gdb").arg("--version").output();
    assert!(
        tool.is_ok(),
        "gdb is not installed (./test.sh installs Debian's)"
    );
    let source = common::workspace().join("host/tests/scripts/hot/src/lib.rs");
    let line = std::fs::read_to_string(&source)
        .unwrap()
        .lines()
        .position(|l| l.contains("self.entity.set_translation"))
        .unwrap()
        + 1;
    let output = std::process::Command::new("gdb")
        .args(["-batch", "-nx"])
        .args(["-ex", "set breakpoint pending on"])
        .args(["-ex", &format!("break lib.rs:{line}")])
        .args([
            "-ex",
            "run",
            "-ex",
            "info locals",
            "-ex",
            "next",
            "-ex",
            "bt 1",
        ])
        .arg("--args")
        .arg(env!("CARGO_BIN_EXE_host"))
        .args([
            "run",
            "host/tests/scripts/hot",
            "--headless",
            "--frames",
            "3",
            "--debug",
        ])
        .current_dir(common::workspace())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // It stops in the script's own function, at the line asked for.
    let stop = format!("hot/src/lib.rs:{line}");
    assert!(
        text.lines().any(
            |l| l.starts_with("Thread 1 \"host\" hit Breakpoint 1, test_hot::")
                && l.contains(&stop)
        ),
        "{text}"
    );
    // Its local `x` is shown, and `next` steps to the following line.
    assert!(text.lines().any(|l| l.starts_with("x = 0.")), "{text}");
    assert!(
        text.contains(&format!("hot/src/lib.rs:{}", line + 1)),
        "{text}"
    );
}
