//! Players' numbered commands (`game:engine/controls`, the stream's
//! `{"commands": [...]}` and `{"frame": N, "ack": S}`), against a real
//! `host serve` running arena beside dash (arena's movement, by commands
//! alone): each command moves the player's own entity once, in order;
//! every ack comes right after the update of its frame, which shows the
//! entity exactly where commands 1 to S put it (what a predicting client
//! relies on); a client cannot move faster by sending more; and the
//! played world replays frame for frame from its recording.

mod common;

use std::time::{Duration, Instant};

use common::client::{Client, admit};
use common::serve::Serve;
use glam::Vec3;
use serde_json::Value;

/// How far one command moves an entity in `examples/dash` (its `STEP`).
const STEP: f32 = 0.1;

/// The keys held in command `seq`: right mostly, a diagonal, a pause, a
/// step back (every shape dash knows).
fn held(seq: u64) -> &'static [&'static str] {
    match seq % 7 {
        0 | 1 => &["right", "up"],
        2 => &[],
        3 => &["left"],
        _ => &["right"],
    }
}

/// Where dash puts an entity that starts at `start` after commands 1 to
/// `seq`, one after another, as it does (and as a browser would).
fn expected(start: Vec3, seq: u64) -> Vec3 {
    (1..=seq).fold(start, |at, seq| {
        let direction: Vec3 = held(seq)
            .iter()
            .map(|key| match *key {
                "left" => Vec3::NEG_X,
                "right" => Vec3::X,
                "up" => Vec3::Y,
                "down" => Vec3::NEG_Y,
                _ => Vec3::ZERO,
            })
            .sum();
        at + direction.normalize_or_zero() * STEP
    })
}

/// `{"commands": [...]}` for commands `seqs`.
fn commands(seqs: impl IntoIterator<Item = u64>) -> String {
    let list: Vec<Value> = seqs
        .into_iter()
        .map(|seq| serde_json::json!({"seq": seq, "held": held(seq)}))
        .collect();
    serde_json::json!({ "commands": list }).to_string()
}

/// A client's view of its own entity: where the stream last put it, and
/// the acks it was told, each checked against the position then.
struct Own {
    name: String,
    at: Option<Vec3>,
    start: Option<Vec3>,
    acks: Vec<(u64, u64)>,
    errors: Vec<String>,
}

impl Own {
    fn read(&mut self, message: &Value) {
        let list = message.get("entities").or_else(|| message.get("changed"));
        if let Some(entity) = list
            .and_then(Value::as_array)
            .and_then(|list| list.iter().find(|e| e["name"] == self.name.as_str()))
        {
            let p = &entity["position"];
            let p = Vec3::new(
                p[0].as_f64().unwrap() as f32,
                p[1].as_f64().unwrap() as f32,
                p[2].as_f64().unwrap() as f32,
            );
            self.start.get_or_insert(p);
            self.at = Some(p);
        }
        if let Some(seq) = message["ack"].as_u64() {
            let frame = message["frame"].as_u64().unwrap();
            // The update of the ack's frame came first: the entity is
            // where commands 1 to `seq` put it, to the last bit.
            let start = self.start.expect("an ack before the player's entity");
            assert_eq!(
                self.at,
                Some(expected(start, seq)),
                "at ack {seq} (frame {frame})"
            );
            if let Some((last_frame, last)) = self.acks.last() {
                assert!(
                    frame > *last_frame && seq > *last,
                    "{:?} then {frame}/{seq}",
                    self.acks
                );
            }
            self.acks.push((frame, seq));
        }
        if let Some(error) = message["error"].as_str() {
            self.errors.push(error.to_owned());
        }
    }

    fn acked(&self) -> u64 {
        self.acks.last().map_or(0, |(_, seq)| *seq)
    }

    /// Reads what comes within `limit`.
    fn drain(&mut self, client: &mut Client, limit: Duration) {
        let deadline = Instant::now() + limit;
        while let Some(message) = client.next(deadline.saturating_duration_since(Instant::now())) {
            self.read(&message);
        }
    }
}

#[test]
fn each_command_moves_its_players_entity_once_and_each_ack_shows_where() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records");
    let mut serve = Serve::start(&[
        "examples/arena",
        "examples/dash",
        "--seconds",
        "20",
        "--record-worlds",
        records.to_str().unwrap(),
    ]);
    let (player, stream) = admit(&serve, 1);
    let mut client = Client::connect(&serve, &stream).unwrap();
    let mut own = Own {
        name: format!("player-{player}"),
        at: None,
        start: None,
        acks: Vec::new(),
        errors: Vec::new(),
    };
    client.until(Duration::from_secs(10), |m| {
        own.read(m);
        own.at.is_some()
    });

    // 180 commands, three seconds' worth at 60 a second, in messages of 1
    // to 5 with uneven pauses (jitter of 0 to 50 ms), one message sent
    // twice (as a client unsure it arrived would).
    let mut seq = 0;
    let mut round = 0u64;
    while seq < 180 {
        round += 1;
        let count = 1 + round * 7 % 5;
        let batch = commands(seq + 1..=(seq + count).min(180));
        client.send(&batch);
        if round.is_multiple_of(9) {
            client.send(&batch);
        }
        seq = (seq + count).min(180);
        own.drain(&mut client, Duration::from_millis(round * 13 % 50));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while own.acked() < 180 && Instant::now() < deadline {
        own.drain(&mut client, Duration::from_millis(100));
    }
    assert_eq!(own.acked(), 180, "acks: {:?}", own.acks);
    assert!(own.errors.is_empty(), "{:?}", own.errors);
    assert!(own.acks.len() > 10, "{:?}", own.acks);

    // A message of 32 at once applies at most the 30 saved up in its
    // first frame, then one a frame.
    own.drain(&mut client, Duration::from_millis(600));
    client.send(&commands(181..=212));
    let deadline = Instant::now() + Duration::from_secs(10);
    let before = own.acks.len();
    while own.acked() < 212 && Instant::now() < deadline {
        own.drain(&mut client, Duration::from_millis(50));
    }
    let burst = &own.acks[before..];
    assert_eq!(burst.last().map(|a| a.1), Some(212), "{burst:?}");
    assert!(burst[0].1 <= 210, "{burst:?}");
    for pair in burst.windows(2) {
        assert!(
            pair[1].1 - pair[0].1 <= pair[1].0 - pair[0].0,
            "more than one command a frame after the burst: {burst:?}"
        );
    }

    // A flood: the commands waiting past 120 are refused, saying why.
    let mut next = 213;
    for _ in 0..5 {
        client.send(&commands(next..next + 32));
        next += 32;
    }
    client.until(Duration::from_secs(5), |m| {
        own.read(m);
        !own.errors.is_empty()
    });
    assert!(
        own.errors[0].contains("commands arrive faster than the world applies them"),
        "{:?}",
        own.errors
    );
    let refused = own.errors.len();
    client.send(r#"{"commands": [{"seq": 9999, "held": ["warp"]}]}"#);
    client.until(Duration::from_secs(5), |m| {
        own.read(m);
        own.errors.len() > refused
    });
    assert_eq!(own.errors.last().unwrap(), "unknown key `warp`");

    // The world ends; its recording has the commands, and replays.
    assert_eq!(serve.wait(Duration::from_secs(60)), 0, "{}", serve.stderr());
    let recording = records.join("world-1.rec");
    let text = std::fs::read_to_string(&recording).unwrap();
    let line = format!(r#""player":{player},"commands":[{{"seq":1,"held":["up","right"]}}"#);
    assert!(text.contains(&line), "no {line} in:\n{text:.3000}");
    common::assert_replays(&recording, 1200);
}
