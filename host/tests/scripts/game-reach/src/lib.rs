//! Test script: reaches a game through `queries`, `resources` and
//! `game-messages`, as the same script in `host run` and in Bevy.
//!
//! - At start, where no entity has `Health` (`host run`), it spawns
//!   `goblin-0` to `goblin-2` with `Health { value: 10 }` and `Enemy`, and
//!   `ally` with `Health` alone. It logs `camera: BOOL` (whether `find`
//!   finds one), `names: A,B,...` (a query of every entity's `Name`) and
//!   `none: 0 (Ok(0), Ok(0))` (a query no entity matches, and its empty
//!   columns).
//! - Each update it takes one `Health` from each `Enemy` (one query, one
//!   write), moves every entity it can query one unit along x, logs
//!   `sensor N` while the game offers a `Sensor` resource, and sends the
//!   game `Hit { damage: 2 }`.
//! - It logs each `Hit` it hears as `heard Hit PAYLOAD`.
//! - On its first update it logs the error of each bad call as
//!   `error: ...`.

use script::data::{self, Value};
use script::game;
use script::prelude::*;
use script::query::{self, Column, Query};

struct Reach {
    first: bool,
}

fn spawn_own() {
    for name in ["goblin-0", "goblin-1", "goblin-2", "ally"] {
        let id = script::scene::spawn(name).id();
        data::insert(id, "Health", &[("value", Value::Integer(10))]).expect("insert Health");
        if name != "ally" {
            data::insert(id, "Enemy", &[]).expect("insert Enemy");
        }
    }
}

fn log_errors() {
    let enemies = Query::new(&["Health.value"])
        .with(&["Enemy"])
        .run()
        .unwrap();
    let texts = Column::Texts(vec!["ten".into(); enemies.ids.len()]);
    let bad = [
        Query::new(&["Nope.x"]).run().map(drop),
        Query::new(&["Health.valu"]).run().map(drop),
        Query::new(&["Health"]).run().map(drop),
        query::write(&enemies.ids, &["Health.value"], vec![texts]),
        query::write(
            &enemies.ids,
            &["Health.value"],
            vec![Column::Integers(vec![1])],
        ),
        query::write(&enemies.ids, &["Name"], vec![Column::Texts(vec![])]),
        game::resource("Nope").map(drop),
        game::set_resource("Time", "delta", 1.0),
        game::send_message("Nope", &[]),
        game::send_message("Hit", &[("damage", Value::Text("two".into()))]),
    ];
    for error in bad.into_iter().filter_map(Result::err) {
        script::log::info(&format!("error: {error}"));
    }
}

impl Script for Reach {
    fn entrypoint() -> Self {
        if Query::new(&["Health.value"]).run().unwrap().ids.is_empty() {
            spawn_own();
        }
        let camera = script::scene::find("camera").is_some();
        script::log::info(&format!("camera: {camera}"));
        let rows = Query::new(&["Name"]).run().unwrap();
        script::log::info(&format!("names: {}", rows.texts(0).unwrap().join(",")));
        let none = Query::new(&["Health.value", "Transform.position"]).without(&["Health"]);
        let none = none.run().unwrap();
        let columns = (
            none.numbers(0).map(<[f64]>::len),
            none.vec3s(1).map(<[f32]>::len),
        );
        script::log::info(&format!("none: {} {columns:?}", none.ids.len()));
        script::task::spawn(async {
            let mut heard = script::events::listen(EventFilter::Message("Hit".into()));
            while let Some(Event::Message(message)) = heard.next().await {
                script::log::info(&format!("heard Hit {}", message.payload));
            }
        })
        .detach();
        script::update::subscribe();
        Reach { first: true }
    }

    fn on_update(&mut self) {
        if std::mem::take(&mut self.first) {
            log_errors();
        }
        let enemies = Query::new(&["Health.value"])
            .with(&["Enemy"])
            .run()
            .unwrap();
        let health: Vec<i64> = enemies.integers(0).unwrap().iter().map(|h| h - 1).collect();
        query::write(
            &enemies.ids,
            &["Health.value"],
            vec![Column::Integers(health)],
        )
        .unwrap();
        let all = Query::new(&["Transform.position"]).run().unwrap();
        let moved: Vec<f32> = (all.vec3s(0).unwrap().chunks(3))
            .flat_map(|p| [p[0] + 1.0, p[1], p[2]])
            .collect();
        query::write(
            &all.ids,
            &["Transform.position"],
            vec![Column::Vec3s(moved.clone())],
        )
        .unwrap();
        // The script's own writes of the frame are read back at once.
        let again = Query::new(&["Transform.position"]).run().unwrap();
        if again.vec3s(0).unwrap() != &moved[..] {
            script::log::info("error: queries: the frame's own writes were not read back");
        }
        if let Ok(value) = game::resource_field("Sensor", "value") {
            script::log::info(&format!("sensor {}", value.as_number().unwrap()));
        }
        game::send_message("Hit", &[("damage", Value::Integer(2))]).unwrap();
    }
}

script::export!(Reach);
