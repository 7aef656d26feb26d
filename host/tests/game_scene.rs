//! An engine's own entities behind the `GameScene` seam: real scripts,
//! built from source, move them in place (nothing is copied per frame), with
//! the same results as over the core's own `Scene`; an entity the engine
//! despawns fails the script that still uses its id, naming it, alone.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use game_host::Transform;
use game_host::log::MemoryLog;
use game_host::runtime::{Runtime, RuntimeConfig};
use game_host::scene::{AnyScene, EntityId, GameScene, Scene, SharedScene};
use game_host::sync::LockExt;

/// An engine's entities as a map from its own ids (starting at 1000, so no
/// id is an index), implementing only what `GameScene` requires: the
/// single-entity and many-entity calls it leaves out take their defaults.
struct MapScene {
    entities: BTreeMap<u32, (String, Transform)>,
    next: u32,
    /// Transforms written through the seam.
    writes: u64,
}

impl MapScene {
    fn with_cube() -> Self {
        let mut scene = MapScene {
            entities: BTreeMap::new(),
            next: 1000,
            writes: 0,
        };
        scene.spawn("cube");
        scene
    }
}

impl GameScene for MapScene {
    fn spawn(&mut self, name: &str) -> EntityId {
        let id = self.next;
        self.next += 1;
        self.entities
            .insert(id, (name.to_owned(), Transform::default()));
        EntityId::from(id)
    }

    fn find(&mut self, name: &str) -> Option<EntityId> {
        let (&id, _) = self.entities.iter().find(|(_, (n, _))| n == name)?;
        Some(EntityId::from(id))
    }

    fn despawn(&mut self, id: EntityId) -> bool {
        self.entities.remove(&(id.index() as u32)).is_some()
    }

    fn name(&mut self, id: EntityId) -> Option<String> {
        Some(self.entities.get(&(id.index() as u32))?.0.clone())
    }

    fn transform(&mut self, id: EntityId) -> Option<Transform> {
        Some(self.entities.get(&(id.index() as u32))?.1)
    }

    fn set_transform(&mut self, id: EntityId, transform: Transform) -> bool {
        let Some(entity) = self.entities.get_mut(&(id.index() as u32)) else {
            return false;
        };
        entity.1 = transform;
        self.writes += 1;
        true
    }

    fn for_each(&mut self, visit: &mut dyn FnMut(EntityId, &str, &Transform)) {
        for (&id, (name, transform)) in &self.entities {
            visit(EntityId::from(id), name, transform);
        }
    }

    fn len(&mut self) -> usize {
        self.entities.len()
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

fn runtime_over(scene: SharedScene) -> Runtime {
    Runtime::with_scene(
        RuntimeConfig {
            log: Arc::new(MemoryLog::new()),
            ..RuntimeConfig::default()
        },
        scene,
    )
}

fn map_scene() -> SharedScene {
    AnyScene::engine(MapScene::with_cube())
}

fn writes(runtime: &Runtime) -> u64 {
    let mut scene = runtime.scene().lock_unpoisoned();
    scene
        .as_any_mut()
        .downcast_mut::<MapScene>()
        .unwrap()
        .writes
}

#[test]
fn scripts_move_an_engines_entities_as_they_move_the_core_scene() {
    let engine = common::engine();
    for script in ["spinning-cube", "swarm"] {
        let component = common::load(&engine, script);
        let mut own = runtime_over(Scene::with_default_cube().shared());
        let mut map = runtime_over(map_scene());
        for runtime in [&mut own, &mut map] {
            runtime.spawn(&component).unwrap();
            runtime.run_frames(60);
            assert!(
                runtime.inspect().errors().is_empty(),
                "{:?}",
                runtime.inspect().errors()
            );
        }
        // The same entities, names and transforms, bit for bit, in id order.
        assert_eq!(own.inspect().dump(), map.inspect().dump(), "{script}");
        assert!(writes(&map) >= 60, "{script}: {} writes", writes(&map));
    }
    let mut map = runtime_over(map_scene());
    map.spawn(&common::load(&engine, "spinning-cube")).unwrap();
    map.run_frames(60);
    let mut scene = map.scene().lock_unpoisoned();
    let cube = scene.find("cube").unwrap();
    assert_eq!(cube.index(), 1000);
    let (axis, angle) = scene.transform(cube).unwrap().rotation.to_axis_angle();
    assert!((angle.to_degrees() - 90.0).abs() < 1e-3, "{angle}");
    assert!((axis - glam::Vec3::Y).length() < 1e-5, "{axis}");
}

#[test]
fn a_despawned_entity_fails_the_scripts_that_use_it_alone() {
    let engine = common::engine();
    let cube = common::load(&engine, "spinning-cube");
    let peers = common::load(&engine, "peers");
    let counter = common::load(&engine, "counter");
    for scene in [Scene::with_default_cube().shared(), map_scene()] {
        let mut runtime = runtime_over(scene);
        // The spinning cube finds the cube every frame; `peers` keeps its
        // id from the start in one instance and its handle in another (the
        // mode comes from a marker entity present when it starts).
        let finds = runtime.spawn(&cube).unwrap();
        let marker = runtime.scene().lock_unpoisoned().spawn("peers:kept");
        let keeps_id = runtime.spawn(&peers).unwrap();
        assert!(runtime.scene().lock_unpoisoned().despawn(marker));
        runtime.scene().lock_unpoisoned().spawn("peers:kept-handle");
        let keeps_handle = runtime.spawn(&peers).unwrap();
        runtime.spawn(&counter).unwrap();
        runtime.run_frames(10);
        let id = {
            let mut scene = runtime.scene().lock_unpoisoned();
            let id = scene.find("cube").unwrap();
            assert!(scene.despawn(id));
            assert!(!scene.despawn(id), "despawned twice");
            assert_eq!(scene.find("cube"), None);
            id
        };
        runtime.run_frames(10);
        let errors = runtime.inspect().errors();
        assert_eq!(errors.len(), 3, "{errors:?}");
        let error_of = |instance| {
            let error = errors.iter().find(|e| e.instance == instance).unwrap();
            assert_eq!(error.frame, 11, "{error}");
            error.to_string()
        };
        let message = error_of(finds);
        assert!(message.contains("no entity named `cube`"), "{message}");
        let message = error_of(keeps_id);
        // By id: its read (`entity`) or its turn (`relative`) names the id.
        let named = format!("no entity has id {}", id.index());
        assert!(message.contains(&named), "{message}");
        // By handle: its turn is a relative write by the handle's id.
        let message = error_of(keeps_handle);
        let named = format!("relative: no entity has id {}", id.index());
        assert!(message.contains(&named), "{message}");
        // The other script runs on: its counter entity moved every frame.
        assert_eq!(runtime.inspect().live_instances(), 1);
        assert_eq!(common::transform(&runtime, "counter-0").position.x, 20.0);
    }
}

#[test]
fn scripts_keep_game_data_by_name_and_despawn_entities() {
    // `game-data` over the core's scene: the script inserts `Health` on
    // three crates, counts it down each update and despawns each crate
    // whose health runs out; its bad calls answer errors it can log.
    let engine = common::engine();
    let (mut runtime, log) = common::runtime();
    runtime.spawn(&common::load(&engine, "game-data")).unwrap();
    runtime.run_frames(2);
    {
        let mut scene = runtime.scene().lock_unpoisoned();
        let data = scene.game_data().expect("the core scene keeps game data");
        let health = |data: &mut dyn game_host::scene::GameData, k: u32| {
            data.get_field(EntityId::from(k), "Health", "value")
        };
        use game_host::scene::Value::Integer;
        // Crate ids follow the cube's (0): 1, 2, 3, with health 3, 4, 5 less 2.
        assert_eq!(health(data, 1), Ok(Integer(1)));
        assert_eq!(health(data, 3), Ok(Integer(3)));
        assert_eq!(
            health(data, 0),
            Err("game-data: entity 0 has no component `Health`".into())
        );
    }
    assert_eq!(common::transform(&runtime, "crate-2").position.x, 2.0);
    let errors: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.contains("error: "))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors[0].ends_with(
            "error: game-data: cannot set `Health.value` of entity 1: the field is an \
             integer and the value a text"
        ),
        "{errors:?}"
    );
    assert!(
        errors[1].ends_with("error: game-data: component `Health` of entity 1 has no field `valu`"),
        "{errors:?}"
    );
    assert!(
        errors[2].ends_with("error: game-data: no entity has id 9999"),
        "{errors:?}"
    );
    runtime.run_frames(3);
    let despawned: Vec<String> = log
        .messages()
        .into_iter()
        .filter(|m| m.contains("despawned "))
        .collect();
    assert_eq!(despawned.len(), 3, "{despawned:?}");
    for (k, line) in despawned.iter().enumerate() {
        assert!(line.ends_with(&format!("despawned crate-{k}")), "{line}");
    }
    let mut scene = runtime.scene().lock_unpoisoned();
    assert_eq!(scene.len(), 1, "only the cube is left");
    assert!(!scene.game_data().unwrap().has(EntityId::from(1), "Health"));
    assert!(
        runtime.inspect().errors().is_empty(),
        "{:?}",
        runtime.inspect().errors()
    );
}

#[test]
fn a_scene_without_game_data_answers_every_call_so() {
    let engine = common::engine();
    let mut runtime = runtime_over(map_scene());
    let error = runtime
        .spawn(&common::load(&engine, "game-data"))
        .unwrap_err();
    let message = format!("{error:#}");
    assert!(
        message.contains("insert Health")
            && message.contains("game-data: this game gives scripts no game data"),
        "{message}"
    );
}
