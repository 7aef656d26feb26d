//! Test script: a control task listens on message channel `cmd` and runs
//! one scenario per message, logging `<scenario> <result> at frame F`:
//!
//! - `spawn-waits`: starts three tasks (a 1000 s timer, a wait for key Q, a
//!   motion of entity `walker` far away) and keeps their handles;
//! - `drop-waits`: drops those handles (cancelling the tasks);
//! - `join`: joins a 3-frame and a 5-frame wait;
//! - `select`: races a 5-frame wait against key Q;
//! - `seconds S`: waits S seconds of game time, logs the time waited;
//! - `until F`: waits until frame F;
//! - `sleep N`: starts N detached tasks sleeping 1e6 seconds;
//! - `next-frame N`: starts N detached tasks awaiting `next_frame` forever;
//! - `tiles N X`: requests N tiles at x = X.. and awaits them all;
//! - `tiles-drop N X`: requests N tiles at x = X.. and drops the requests.

use std::cell::RefCell;

use game_terrain::TileKey;
use game_terrain::request_tile;
use script::Script;
use script::events::EventFilter;
use script::events::Key;
use script::futures::StreamExt;
use script::futures::future::{Either, join_all, select};
use script::glam::Vec3;
use script::task::Task;

thread_local! {
    static KEPT: RefCell<Vec<Task<()>>> = const { RefCell::new(Vec::new()) };
}

struct Tasks;

impl Script for Tasks {
    fn entrypoint() -> Self {
        script::task::spawn(control()).detach();
        Tasks
    }
}

fn say(what: &str) {
    script::log::info(&format!("{what} at frame {}", script::time::frame()));
}

async fn control() {
    let mut commands = script::events::listen(EventFilter::Message("cmd".into()));
    while let Some(event) = commands.next().await {
        let script::events::Event::Message(message) = event else {
            continue;
        };
        let words: Vec<&str> = message.payload.split_whitespace().collect();
        let number = |i: usize| {
            words
                .get(i)
                .and_then(|w| w.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        match words.first().copied().unwrap_or("") {
            "spawn-waits" => spawn_waits(),
            "drop-waits" => {
                KEPT.with(|kept| kept.borrow_mut().clear());
                say("dropped");
            }
            "join" => script::task::spawn(async {
                script::futures::join!(script::time::wait_frames(3), script::time::wait_frames(5));
                say("joined");
            })
            .detach(),
            "select" => script::task::spawn(async {
                let timer = std::pin::pin!(script::time::wait_frames(5));
                let key =
                    std::pin::pin!(script::events::wait_event(EventFilter::KeyPressed(Key::Q)));
                match select(timer, key).await {
                    Either::Left(_) => say("select timer"),
                    Either::Right(_) => say("select key"),
                }
            })
            .detach(),
            "seconds" => {
                let seconds = number(1);
                script::task::spawn(async move {
                    let waited = script::time::wait_seconds(seconds).await;
                    say(&format!("waited {waited:.4}"));
                })
                .detach()
            }
            "until" => {
                let frame = number(1) as u64;
                script::task::spawn(async move {
                    script::time::wait_until(|| script::time::frame() >= frame).await;
                    say("until");
                })
                .detach()
            }
            "sleep" => {
                for _ in 0..number(1) as u32 {
                    script::task::spawn(async {
                        script::time::wait_seconds(1e6).await;
                    })
                    .detach();
                }
                say("sleeping");
            }
            "next-frame" => {
                for _ in 0..number(1) as u32 {
                    script::task::spawn(async {
                        loop {
                            script::time::next_frame().await;
                        }
                    })
                    .detach();
                }
            }
            "tiles" => {
                let keys = tile_keys(number(1) as i32, number(2) as i32);
                script::task::spawn(async move {
                    join_all(keys.into_iter().map(request_tile)).await;
                    say("tiles ready");
                })
                .detach();
            }
            "tiles-drop" => {
                let keys = tile_keys(number(1) as i32, number(2) as i32);
                let tasks: Vec<Task<_>> = keys
                    .into_iter()
                    .map(|key| script::task::spawn(request_tile(key)))
                    .collect();
                script::task::spawn(async move {
                    script::time::next_frame().await;
                    drop(tasks);
                    say("tiles dropped");
                })
                .detach();
            }
            other => say(&format!("unknown command {other}")),
        }
    }
}

fn tile_keys(count: i32, x: i32) -> Vec<TileKey> {
    (0..count)
        .map(|i| TileKey {
            level: 0,
            x: x + i,
            y: 7,
        })
        .collect()
}

fn spawn_waits() {
    let timer = script::task::spawn(async {
        script::time::wait_seconds(1000.0).await;
        say("timer fired");
    });
    let key = script::task::spawn(async {
        script::events::wait_event(EventFilter::KeyPressed(Key::Q)).await;
        say("q pressed");
    });
    let walk = script::task::spawn(async {
        let walker = script::scene::spawn("walker");
        script::motion::move_to(&walker, Vec3::new(1000.0, 0.0, 0.0), 1.0).await;
        say("walker arrived");
    });
    KEPT.with(|kept| kept.borrow_mut().extend([timer, key, walk]));
    say("spawned");
}

script::export!(Tasks);
