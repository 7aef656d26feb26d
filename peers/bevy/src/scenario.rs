//! The scenarios: what each side does every fixed step, the entity that
//! tells the `peers` script which one it is, and the check of its result.

use bevy::prelude::{Quat, Resource, Vec3};

/// One kind of work.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// The spinning cube's update: one entity turned, its id kept.
    Cube,
    /// 10,000 entities set to `(i, frame, 0)` through kept
    /// `TransformComponent`s, as the SDK teaches (it buffers the writes:
    /// one host call a step); Lua calls per entity.
    Many,
    /// The same through the batched API (one call a step).
    Batched,
    /// 10,000 entities each turned by a behaviour of its own speed.
    Behaviours,
    /// 10,000 game entities with a `Spin`, each turned at its own
    /// `Spin.speed` through a query (one call to read, one to write).
    Query,
    /// 10,000 entities, each spawned and turned by a script instance of
    /// its own (the cube's update, 10,000 times over).
    Scripts,
}

impl Scenario {
    pub const ALL: [Scenario; 6] = [
        Scenario::Cube,
        Scenario::Many,
        Scenario::Batched,
        Scenario::Behaviours,
        Scenario::Query,
        Scenario::Scripts,
    ];

    /// The entity whose name selects the `peers` script's mode.
    pub fn marker(self) -> &'static str {
        match self {
            Scenario::Cube => "peers:kept",
            Scenario::Many => "peers:many",
            Scenario::Batched => "peers:batched",
            Scenario::Behaviours => "peers:behaviours:10000",
            Scenario::Query => "peers:query",
            Scenario::Scripts => "peers:own",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Scenario::Cube => {
                "spinning-cube update (one script, entity id kept), per update; single-threaded schedules"
            }
            Scenario::Many => "10,000 entity positions through kept components, per entity",
            Scenario::Batched => "10,000 entity positions, batched API, per entity",
            Scenario::Behaviours => "10,000 entity behaviours in one script, per behaviour",
            Scenario::Query => {
                "10,000 game entities turned by their own `Spin.speed` through a query, per entity"
            }
            Scenario::Scripts => {
                "10,000 entities each turned by a script of its own, per script update"
            }
        }
    }

    /// The items of work in one step, for the per-item cost.
    pub fn work_items(self) -> usize {
        match self {
            Scenario::Cube => 1,
            _ => crate::MANY,
        }
    }

    /// Updates timed per round.
    pub fn updates_per_round(self) -> u32 {
        match self {
            Scenario::Cube => 20,
            _ => 4,
        }
    }

    /// Fixed steps per update (and runtime steps per host "update"): an
    /// app's update costs Bevy's schedule, about 0.2 ms here, beside which
    /// one script update would be noise; many fixed steps an update spread
    /// it.
    pub fn steps_per_update(self) -> u32 {
        match self {
            Scenario::Cube => 200,
            _ => 5,
        }
    }

    /// The name of the moved entity `i`, as the `peers` script names it.
    pub fn entity_name(self, i: usize) -> String {
        match self {
            Scenario::Cube => "cube".to_owned(),
            Scenario::Many => format!("e{i}"),
            Scenario::Batched => "batched".to_owned(),
            Scenario::Behaviours | Scenario::Query => "b".to_owned(),
            Scenario::Scripts => "own".to_owned(),
        }
    }

    /// The speed of moved entity `i`, in the cube's speeds: a behaviour's
    /// or a `Spin`'s 1, 2, 3, 4, 1, ...; a script of its own turns its
    /// entity as the cube.
    pub fn speed(self, i: usize) -> f32 {
        match self {
            Scenario::Scripts => 1.0,
            _ => (i % 4 + 1) as f32,
        }
    }

    /// The script instances the plugin and the host run.
    pub fn instances(self) -> usize {
        match self {
            Scenario::Scripts => crate::MANY,
            _ => 1,
        }
    }
}

/// Panics unless `entities` (name, position, rotation) show the work of
/// `scenario` done in one step: every moved entity where it should be.
pub fn check(scenario: Scenario, entities: Vec<(String, Vec3, Quat)>) {
    let turned = |q: Quat| q.x.abs() < 1e-4 && q.z.abs() < 1e-4 && q.y.abs() > 1e-6;
    match scenario {
        Scenario::Cube => {
            let (_, _, q) = entities.iter().find(|(n, _, _)| n == "cube").unwrap();
            assert!(turned(*q), "the cube did not turn about Y: {q}");
        }
        Scenario::Behaviours | Scenario::Query | Scenario::Scripts => {
            let name = scenario.entity_name(0);
            let spun: Vec<&Quat> = entities
                .iter()
                .filter(|(n, _, _)| *n == name)
                .map(|(_, _, q)| q)
                .collect();
            assert_eq!(spun.len(), crate::MANY);
            assert!(spun.iter().all(|q| turned(**q)), "a behaviour did not turn");
        }
        Scenario::Many | Scenario::Batched => {
            let mut moved: Vec<Vec3> = entities
                .iter()
                .filter(|(n, _, _)| n.starts_with('e') || n == "batched")
                .map(|(_, p, _)| *p)
                .collect();
            assert_eq!(moved.len(), crate::MANY, "{scenario:?}");
            moved.sort_by(|a, b| a.x.total_cmp(&b.x));
            let frame = moved[0].y;
            assert!(frame >= 1.0, "{scenario:?}: not moved");
            for (i, p) in moved.iter().enumerate() {
                assert_eq!(*p, Vec3::new(i as f32, frame, 0.0), "{scenario:?}");
            }
        }
    }
}
