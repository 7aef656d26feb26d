//! Broken, hostile and incompatible scripts: each gets a clear error naming
//! the script and the cause, and healthy scripts keep running.

mod common;

use game_host::{ScriptError, ScriptExport};

#[test]
fn trap_in_on_message_removes_only_that_script() {
    let engine = common::engine();
    let trap = common::load(&engine, "trap");
    let counter = common::load(&engine, "counter");
    let (mut runtime, log) = common::runtime();
    let bad = runtime.spawn(&trap).unwrap();
    let good = runtime.spawn(&counter).unwrap();

    runtime.run_frames(6);

    let [error] = runtime.inspect().errors() else {
        panic!("expected one error, got {:?}", runtime.inspect().errors());
    };
    assert_eq!(error.script, "test_trap");
    assert_eq!(error.instance, bad);
    assert_eq!(error.export, ScriptExport::OnUpdate);
    assert_eq!(error.frame, 3);
    assert!(error.cause.contains("unreachable"), "{}", error.cause);
    let line = error.to_string();
    assert!(!line.contains('\n'), "not one line: {line}");
    assert!(line.contains("`test_trap`") && line.contains("`on-update`"));
    assert!(line.contains("boom at frame 3"), "{line}");
    let backtrace = error.backtrace.as_deref().expect("a wasm backtrace");
    assert!(
        backtrace.contains("test_trap.wasm!on-update"),
        "{backtrace}"
    );
    let report = error.report();
    assert_eq!(report.lines().next(), Some(line.as_str()));
    assert!(report.contains("test_trap.wasm!on-update"), "{report}");
    assert!(report.contains("guest stderr"), "{report}");

    // The trapping script ran frames 1-3 only; the healthy one all 6.
    let alive: Vec<_> = log
        .records()
        .into_iter()
        .filter(|r| r.instance == bad && r.message.starts_with("alive"))
        .map(|r| r.message)
        .collect();
    assert_eq!(alive, ["alive 1", "alive 2", "alive 3"]);
    assert_eq!(common::transform(&runtime, "counter-0").position.x, 6.0);
    assert_eq!(runtime.inspect().dispatch_order(), [(good, 0)]);
    assert!(runtime.inspect().instance(bad).is_none());
}

#[test]
fn trap_in_entrypoint_is_returned_and_leaves_nothing_behind() {
    let engine = common::engine();
    let trap = common::load(&engine, "trap-entrypoint");
    let (mut runtime, _log) = common::runtime();

    let error = runtime.spawn(&trap).unwrap_err();
    let error = error.downcast_ref::<ScriptError>().expect("a ScriptError");
    assert_eq!(error.export, ScriptExport::Entrypoint);
    assert_eq!(error.frame, 0);
    assert!(
        error.to_string().contains("entrypoint refused to start"),
        "{error}"
    );
    assert_eq!(runtime.inspect().errors().len(), 1);
    assert_eq!(runtime.inspect().live_instances(), 0);
    // Its subscription, made before the panic, was discarded.
    assert!(runtime.inspect().dispatch_order().is_empty());
    runtime.run_frames(3);
    assert_eq!(runtime.inspect().errors().len(), 1);
}

fn load_error(path: &std::path::Path) -> String {
    let engine = common::engine();
    match engine.load_file(path) {
        Ok(_) => panic!("`{}` loaded", path.display()),
        Err(error) => format!("{error:#}"),
    }
}

#[test]
fn component_without_on_update_is_refused_by_name() {
    let path = common::build("missing-export");
    let message = load_error(&path);
    assert!(message.contains("test_missing_export.wasm"), "{message}");
    assert!(message.contains("no export `on-update`"), "{message}");
}

#[test]
fn component_with_unknown_import_is_refused_by_name() {
    let path = common::build("unknown-import");
    let message = load_error(&path);
    assert!(message.contains("test_unknown_import.wasm"), "{message}");
    assert!(message.contains("test:missing/thing"), "{message}");
}

#[test]
fn files_that_are_not_components_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.wasm");
    std::fs::write(&text, "hello").unwrap();
    let message = load_error(&text);
    assert!(message.contains("notes.wasm"), "{message}");
    assert!(message.contains("not a WebAssembly file"), "{message}");

    let core = dir.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let message = load_error(&core);
    assert!(message.contains("core.wasm"), "{message}");
    assert!(message.contains("core WebAssembly module, not a component"));

    let truncated = dir.path().join("truncated.wasm");
    let full = std::fs::read(common::build("noop")).unwrap();
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    let message = load_error(&truncated);
    assert!(message.contains("truncated.wasm"), "{message}");
    assert!(message.contains("not a valid component"), "{message}");

    let missing = dir.path().join("missing.wasm");
    let message = load_error(&missing);
    assert!(message.contains("failed to read script"), "{message}");
    assert!(message.contains("missing.wasm"), "{message}");
}

/// Runs the frozen-WIT test script `name` (which spawns `entity`, moves it
/// one unit along x per update and one along y per timer wake every 10
/// frames, and hands its wake count over): 25 frames, a hot-swap to
/// itself, 10 more. Returns the runtime and the instance.
fn run_and_swap(name: &str, entity: &str) -> (game_host::Runtime, uuid::Uuid) {
    let engine = common::engine();
    let old = common::load(&engine, name);
    assert!(old.is_stateful());
    let (mut runtime, _log) = common::runtime();
    let id = runtime.spawn(&old).unwrap();
    runtime.run_frames(25);
    let p = common::transform(&runtime, entity).position;
    assert_eq!(
        (p.x, p.y),
        (25.0, 2.0),
        "{name}: 25 updates, wakes at frames 10, 20"
    );
    runtime.hot_swap(id, &old).unwrap();
    runtime.run_frames(10);
    let p = common::transform(&runtime, entity).position;
    assert_eq!(
        (p.x, p.y),
        (35.0, 3.0),
        "{name}: the timer restarted after the swap"
    );
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    (runtime, id)
}

#[test]
fn a_script_built_against_the_frozen_0_1_wit_still_runs_and_hands_over() {
    // `wit/v0.1/`, as the last 0.1 SDK bound it: the host calls its
    // `on-update(id, clock)` once per update id, and with the reserved wake
    // message; it takes its wakes and entity ids by call.
    let (runtime, id) = run_and_swap("compat-0-1-5", "old15");
    assert_eq!(
        runtime.inspect().instance(id).unwrap().subscriptions,
        [1, 2]
    );
    assert_eq!(runtime.inspect().dispatch_order(), [(id, 1), (id, 2)]);
}

#[test]
fn a_script_built_against_the_frozen_0_2_0_wit_still_runs_and_hands_over() {
    // Every interface it imports is `@0.2.0`; the host provides a newer
    // 0.2.x, which wasmtime links to it by semver (0.2.1 added interfaces
    // and changed none).
    assert_ne!(game_host::guest::engine::API_VERSION, "0.2.0");
    run_and_swap("compat-0-2-0", "old20");
}

#[test]
fn a_script_built_against_frozen_wit_0_1_3_still_runs_and_hands_over() {
    // The last release before `entities` and `on-update`: the host calls
    // its `on-message`, it fetches the clock by call, and its timer wakes
    // and state hand-over work as they did.
    run_and_swap("compat-0-1-3", "old13");
}

#[test]
fn a_script_built_against_wit_0_1_0_still_runs() {
    let engine = common::engine();
    let old = common::load(&engine, "compat-0-1-0");
    let (mut runtime, _log) = common::runtime();
    runtime.spawn(&old).unwrap();
    runtime.run_frames(5);
    assert_eq!(common::transform(&runtime, "old").position.x, 5.0);
    assert!(runtime.inspect().errors().is_empty());
}
