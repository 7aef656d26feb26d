//! Starting a script in parts, as a Bevy game does away from its step
//! (`game-host-bevy`): `Starts::prepare` on the runtime's thread, then
//! `Preparing::build` on any thread (the instance made, a Python or
//! JavaScript script's sources compiled), then `Starts::start`.
//! Scripts built on other threads, in another order, run as if spawned in
//! the order they were prepared: the same random numbers, clocks and
//! scene. A Python or JavaScript error raised when the module runs still
//! names the script's file and line, and an instance prepared for one
//! runtime is refused by another. A hot swap comes in the same parts.
//!
//! Needs componentize-py and componentize-js on PATH (`./test.sh` installs them).

mod common;

use std::path::Path;

use game_host::{Runtime, ScriptComponent, ScriptEngine};
use game_host_build::{BuildOutput, ScriptSource};

fn load(engine: &ScriptEngine, path: &Path) -> ScriptComponent {
    ScriptSource::new(path)
        .and_then(|source| source.load(engine, BuildOutput::Capture))
        .unwrap_or_else(|e| panic!("loading `{}` failed: {e:#}", path.display()))
}

/// The determinism scripts in Python and JavaScript (random numbers and
/// clocks in the scene), and the Rust one.
fn scripts(engine: &ScriptEngine) -> Vec<ScriptComponent> {
    let foreign = common::workspace().join("host/tests/foreign");
    vec![
        load(engine, &foreign.join("py-determinism/app.py")),
        load(engine, &foreign.join("js-determinism/app.js")),
        common::load(engine, "determinism"),
    ]
}

#[test]
fn scripts_built_on_other_threads_in_another_order_run_as_if_spawned() {
    let engine = common::engine();
    let scripts = scripts(&engine);

    // A frame runs before they start, as a game's steps go on while its
    // scripts are made.
    let (mut spawned, _) = common::runtime();
    spawned.step();
    for script in &scripts {
        spawned.spawn(script).unwrap();
    }
    spawned.run_frames(30);

    let (mut prepared, _) = common::runtime();
    let preparing: Vec<_> = scripts
        .iter()
        .map(|script| prepared.starts().prepare(script).unwrap())
        .collect();
    // Built one at a time on other threads, the last first.
    let mut built: Vec<_> = preparing
        .into_iter()
        .rev()
        .map(|preparing| {
            let built = std::thread::spawn(move || preparing.build()).join();
            built.expect("a build thread").expect("an instance")
        })
        .collect();
    built.reverse();
    prepared.step();
    for ready in built {
        prepared.starts().start(ready).unwrap();
    }
    prepared.run_frames(30);

    assert!(
        spawned.inspect().errors().is_empty(),
        "{:?}",
        spawned.inspect().errors()
    );
    assert!(
        prepared.inspect().errors().is_empty(),
        "{:?}",
        prepared.inspect().errors()
    );
    let positions = |runtime: &Runtime| {
        [
            "py-random",
            "py-clock",
            "js-random",
            "js-clock",
            "random",
            "clock",
            "walker",
        ]
        .map(|name| common::transform(runtime, name).position)
    };
    // Random numbers are keyed by each instance's place in the order it
    // was prepared, not by when or where it was built.
    let [py_random, _, js_random, ..] = positions(&spawned);
    assert_ne!(py_random, js_random);
    assert_eq!(positions(&spawned), positions(&prepared));
}

#[test]
fn an_error_in_a_prepared_module_names_its_line_and_the_wrong_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let python = dir.path().join("broken.py");
    std::fs::write(
        &python,
        "import wit_world\n\nraise ValueError('at import')\n",
    )
    .unwrap();
    let javascript = dir.path().join("broken.js");
    std::fs::write(&javascript, "\nthrow new Error('at import');\n").unwrap();
    let engine = common::engine();
    for (path, line) in [
        (&python, "broken.py\", line 3"),
        (&javascript, "broken.js:2"),
    ] {
        let (mut runtime, log) = common::runtime();
        let ready = runtime.starts().prepare(&load(&engine, path)).unwrap();
        let ready = ready.build().expect("it compiles, so it builds");
        let error = format!("{:#}", runtime.starts().start(ready).unwrap_err());
        let said = format!("{error}\n{}", log.messages().join("\n"));
        assert!(said.contains("at import") && said.contains(line), "{said}");
        assert_eq!(runtime.inspect().errors().len(), 1);
    }

    let script = common::load(&engine, "determinism");
    let (mut one, _) = common::runtime();
    let (mut other, _) = common::runtime();
    let ready = one.starts().prepare(&script).unwrap().build().unwrap();
    let error = other.starts().start(ready).unwrap_err().to_string();
    assert_eq!(
        error,
        "script `test_determinism` was prepared for another runtime"
    );
    assert_eq!(other.inspect().instances().len(), 0);

    // A swap's new version swaps in, and only swaps in.
    let id = one.spawn(&script).unwrap();
    let new = one
        .starts()
        .prepare_swap(id, &script)
        .unwrap()
        .build()
        .unwrap();
    let error = one.starts().start(new).unwrap_err().to_string();
    assert_eq!(
        error,
        "script `test_determinism` was prepared for a swap, not a start"
    );
    let new = one
        .starts()
        .prepare_swap(id, &script)
        .unwrap()
        .build()
        .unwrap();
    let report = one.starts().swap(new).unwrap();
    assert_eq!(report.instance, id);
    let ready = one.starts().prepare(&script).unwrap().build().unwrap();
    let error = one.starts().swap(ready).unwrap_err().to_string();
    assert_eq!(
        error,
        "script `test_determinism` was prepared for a start, not a swap"
    );
    let info = one.inspect().instances();
    assert_eq!((info.len(), info[0].id, info[0].swaps), (1, id, 1));
    assert!(
        one.inspect().errors().is_empty(),
        "{:?}",
        one.inspect().errors()
    );
}
