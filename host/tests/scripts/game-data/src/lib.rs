//! Test script: three crates, `crate-0` to `crate-2`, each given a
//! `Health { value }` component (3, 4 and 5) through `game-data`. Each
//! update moves every crate one unit along x and takes one from its
//! health; a crate whose health is 1 is despawned instead, and the script
//! logs `despawned crate-K`. On its first update it also logs the errors of
//! three bad calls (`error: ...`): a text for the integer, a field the
//! component lacks, and an id that is no entity.

use script::data::{self, Value};
use script::entities::EntityId;
use script::prelude::*;

struct Crates {
    crates: Vec<(String, EntityId)>,
    first: bool,
}

impl Script for Crates {
    fn entrypoint() -> Self {
        let crates = (0..3)
            .map(|k| {
                let name = format!("crate-{k}");
                let id = script::scene::spawn(&name).id();
                // A game may have given the crate its `Health` already.
                if !data::has(id, "Health") {
                    data::insert(id, "Health", &[("value", Value::Integer(3 + k))])
                        .expect("insert Health");
                }
                (name, id)
            })
            .collect();
        script::update::subscribe();
        Crates {
            crates,
            first: true,
        }
    }

    fn on_update(&mut self) {
        if std::mem::take(&mut self.first) {
            let (_, id) = self.crates[0];
            let bad = [
                data::set(id, "Health", "value", "ten"),
                data::set(id, "Health", "valu", 1),
                data::set(9999, "Health", "value", 1),
            ];
            for error in bad.into_iter().filter_map(Result::err) {
                script::log::info(&format!("error: {error}"));
            }
        }
        self.crates.retain(|(name, id)| {
            let health = data::field(*id, "Health", "value").expect("read Health");
            if health == Value::Integer(1) {
                assert!(script::scene::despawn(*id));
                assert!(!script::scene::exists(*id));
                script::log::info(&format!("despawned {name}"));
                return false;
            }
            let Value::Integer(health) = health else {
                panic!("Health.value is {health:?}");
            };
            data::set(*id, "Health", "value", health - 1).expect("write Health");
            let p = script::entities::position(*id);
            script::entities::set_position(*id, p + Vec3::X);
            true
        });
    }
}

script::export!(Crates);
