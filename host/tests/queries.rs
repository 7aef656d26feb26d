//! `queries`, `resources` and `game-messages` on the core's own scene, as
//! `host run` runs them: the same test script as the Bevy plugin's test,
//! on components it inserted, with its errors and its grants.

mod common;

use game_host::GrantPolicy;
use game_host::grants::GrantFile;
use game_host::runtime::RuntimeConfig;
use game_host::scene::{EntityId, GameScene, Value};

fn policy(text: &str) -> GrantPolicy {
    GrantPolicy::new(toml::from_str::<GrantFile>(text).unwrap()).unwrap()
}

/// Runs `game-reach` for `frames` frames under `grants`; its log lines.
fn reach(grants: &str, frames: u64) -> (game_host::Runtime, Vec<String>) {
    let engine = common::engine();
    let (mut runtime, log) = common::runtime_with(RuntimeConfig {
        grants: policy(grants),
        ..RuntimeConfig::default()
    });
    runtime.spawn(&common::load(&engine, "game-reach")).unwrap();
    runtime.run_frames(frames);
    (runtime, log.messages())
}

fn health(runtime: &game_host::Runtime, id: u32) -> Value {
    let mut scene = runtime.scene().lock().unwrap();
    let data = scene.game_data().unwrap();
    data.get_field(EntityId::from(id), "Health", "value")
        .unwrap()
}

#[test]
fn a_script_queries_and_writes_the_components_it_inserted() {
    let (runtime, messages) = reach("[default]\n", 5);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert!(
        messages.contains(&"none: 0 (Ok(0), Ok(0))".to_owned()),
        "{messages:?}"
    );
    assert!(messages.contains(&"camera: false".to_owned()));
    assert!(
        messages.contains(&"names: cube,goblin-0,goblin-1,goblin-2,ally".to_owned()),
        "{messages:?}"
    );
    // Ids 1 to 3 are the goblins (`Enemy`), 4 the ally.
    for goblin in 1..=3 {
        assert_eq!(health(&runtime, goblin), Value::Integer(5));
    }
    assert_eq!(health(&runtime, 4), Value::Integer(10));
    assert_eq!(common::transform(&runtime, "cube").position.x, 5.0);
    assert_eq!(common::transform(&runtime, "ally").position.x, 5.0);

    // With no game to take them, its `Hit`s reach scripts, as JSON.
    assert!(messages.contains(&"heard Hit {\"damage\":2}".to_owned()));
    let errors: Vec<&str> = (messages.iter())
        .filter_map(|m| m.strip_prefix("error: "))
        .collect();
    let expected = [
        "queries: component `Health` of entity 1 has no field `valu`",
        "queries: `Health` names no field",
        "queries: cannot write `Health.value` of entity 1: the field is an integer and the value a text",
        "queries: the column of `Health.value` holds 1 values for 3 ids",
        "queries: `Name` is read-only",
        "resources: no resource named `Nope` is registered for scripts (registered: Time)",
        "resources: scripts read `Time`; the game's clock sets it",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, expected) in errors.iter().zip(expected) {
        assert!(error.starts_with(expected), "{error}\nexpected {expected}");
    }
}

#[test]
fn queries_answer_only_what_the_grants_let_a_script_read() {
    // Entities by name: the cube is not the script's, and its grants do
    // not name it, so no query finds or moves it.
    let (runtime, messages) = reach("[default]\nreads = [\"goblin-*\"]\n", 2);
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
    assert!(
        messages.contains(&"names: goblin-0,goblin-1,goblin-2,ally".to_owned()),
        "{messages:?}"
    );
    assert_eq!(common::transform(&runtime, "cube").position.x, 0.0);

    // Components by name: a query naming one the grants leave out traps
    // (here in the script's `entrypoint`, which then fails to start).
    let engine = common::engine();
    let (mut runtime, _) = common::runtime_with(RuntimeConfig {
        grants: policy("[default]\ndata_reads = [\"Enemy\"]\n"),
        ..RuntimeConfig::default()
    });
    let error = runtime
        .spawn(&common::load(&engine, "game-reach"))
        .unwrap_err();
    assert!(
        format!("{error:#}")
            .contains("may not read game data `Health`: its grants' data_reads allow [\"Enemy\"]"),
        "{error:#}"
    );
}
