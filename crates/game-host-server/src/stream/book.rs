//! The book's stream reference (`book/src/reference/stream.md`) held to
//! the code, both ways: its forms, the fields of the messages to a client
//! and of an entity, the messages a client may send, the limits, what the
//! server keeps, and the close codes. The binary form's tables are held to
//! `delta` by its own tests.

use std::collections::BTreeSet;
use std::sync::Arc;

use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::backlog::{DEFAULT_KEPT_BYTES, MAX_UPDATES};
use super::controls::{BURST, MAX_PER_MESSAGE, MAX_WAITING};
use super::liveness::PING_EVERY;
use super::seats::{CONNECTS, CONNECTS_WITHIN, MAILBOX, MAILBOX_BYTES};
use super::wire::{
    Data, EntityState, EventBody, Format, Wire, WireMessage, is_leave, parse_commands,
};
use super::{StreamLimits, parse_event};
use game_host::book_tables::{assert_lists_exactly, prose, rows};
use game_host::input::Key;
use game_host::players::PlayerMessage;
use game_host::scene::{Field, Value};

const PAGE: &str = "stream.md";

/// A JSON value's type, as the page's tables name it.
fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Each field of `json` (an object) with its type.
fn fields_of(json: &serde_json::Value) -> Vec<(String, String)> {
    json.as_object()
        .expect("an object")
        .iter()
        .map(|(name, value)| (name.clone(), json_type(value).to_owned()))
        .collect()
}

fn entity() -> Arc<EntityState> {
    Arc::new(EntityState {
        id: 1,
        name: "player-1".into(),
        position: [1.0, 0.0, 0.0],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        data: Data(Arc::from(vec![(
            "Health".to_owned(),
            vec![Field {
                name: "hp".into(),
                value: Value::Integer(3),
            }],
        )])),
    })
}

#[test]
fn the_forms_are_the_subprotocols_the_server_takes() {
    // Every form (the match fails to compile when one is added).
    let every = [Format::Json, Format::MessagePack, Format::Delta];
    for format in every {
        match format {
            Format::Json | Format::MessagePack | Format::Delta => {}
        }
    }
    let declared: Vec<(String, String)> = every
        .into_iter()
        .filter_map(|format| {
            let protocol = format.protocol()?;
            assert_eq!(Format::offered(Some(protocol)), format);
            let kind = if format.binary() { "binary" } else { "text" };
            Some((protocol.to_owned(), kind.to_owned()))
        })
        .collect();
    assert_lists_exactly(PAGE, Some("Forms"), &declared);
    let both = format!("{}, {}", Format::MSGPACK_PROTOCOL, Format::DELTA_PROTOCOL);
    assert_eq!(Format::offered(Some(&both)), Format::Delta);
}

#[test]
fn the_messages_to_a_client_have_the_fields_the_page_lists() {
    let entities = [entity()];
    let removed = [2];
    let message = PlayerMessage {
        to: None,
        channel: "chat".into(),
        payload: "gg".into(),
    };
    // Every field set (the literal fails to compile when one is added).
    let wire = Wire {
        frame: Some(7),
        player: Some(1),
        precision: Some(0.001),
        entities: Some(&entities),
        changed: Some(&entities),
        removed: Some(&removed),
        message: Some(WireMessage::of(&message)),
        ack: Some(12),
        ended: Some("the script said so"),
        restarting: Some("the server is restarting"),
        reconnect: Some("http://10.0.0.2:9464"),
        error: Some("unknown key `nope`"),
    };
    let json: serde_json::Value = serde_json::from_slice(&wire.encode(Format::Json)).unwrap();
    assert_lists_exactly(PAGE, Some("Messages to the client"), &fields_of(&json));
    // MessagePack carries the same fields, by name (its floats as f32
    // where the server has them so).
    let packed: serde_json::Value =
        rmp_serde::from_slice(&wire.encode(Format::MessagePack)).unwrap();
    assert_eq!(fields_of(&packed), fields_of(&json));
    assert_eq!(
        fields_of(&packed["entities"][0]),
        fields_of(&json["entities"][0])
    );
    assert_lists_exactly(PAGE, Some("An entity"), &fields_of(&json["entities"][0]));
}

#[test]
fn the_messages_a_client_may_send_are_the_ones_the_server_takes() {
    /// The page's example of each message the server takes as an event
    /// (the match fails to compile when one is added).
    fn example(body: &EventBody) -> &'static str {
        match body {
            EventBody::Press(_) => r#"{"press": "enter"}"#,
            EventBody::Release(_) => r#"{"release": "enter"}"#,
            EventBody::Send { .. } => r#"{"send": {"channel": "chat", "payload": "gg"}}"#,
        }
    }
    let leave = r#"{"leave": true}"#;
    let commands = r#"{"commands": [{"seq": 1, "held": ["left", "up"]}]}"#;
    let listed: BTreeSet<String> = rows(PAGE, Some("Messages from the client"))
        .into_iter()
        .map(|(message, _)| message)
        .collect();
    let mut declared = BTreeSet::from([leave.to_owned(), commands.to_owned()]);
    for text in &listed {
        if text == leave {
            assert!(is_leave(text));
            continue;
        }
        if text == commands {
            let parsed = parse_commands(text).expect("commands").unwrap();
            assert_eq!(parsed[0].seq, 1);
            assert_eq!(parsed[0].held, [Key::Up, Key::Left]);
            continue;
        }
        let body: EventBody = serde_json::from_str(text).unwrap_or_else(|e| {
            panic!("the page's `{text}` is not a message the server takes: {e}")
        });
        assert!(parse_event(text).is_ok(), "{text}");
        declared.insert(example(&body).to_owned());
    }
    for body in [
        EventBody::Press(String::new()),
        EventBody::Release(String::new()),
        EventBody::Send {
            channel: String::new(),
            payload: String::new(),
        },
    ] {
        declared.insert(example(&body).to_owned());
    }
    assert_eq!(listed, declared, "book/src/reference/{PAGE}");
}

#[test]
fn the_limits_are_the_defaults() {
    // Every limit (the pattern fails to compile when one is added).
    let StreamLimits {
        max_streams,
        max_message,
        events_per_second,
        burst,
        write_timeout,
        falls_behind,
    } = StreamLimits::default();
    let declared = [
        ("max_streams", format!("{max_streams}")),
        ("max_message", format!("{max_message} bytes")),
        ("events_per_second", format!("{events_per_second}")),
        ("burst", format!("{burst}")),
        ("write_timeout", format!("{} s", write_timeout.as_secs())),
        ("falls_behind", format!("{falls_behind}")),
    ]
    .map(|(name, value)| (name.to_owned(), value));
    assert_lists_exactly(PAGE, Some("Limits"), &declared);

    // What the server keeps, as the prose under the table says it.
    let text = prose(PAGE);
    for said in [
        format!(
            "the last {MAILBOX} messages (at most {} MiB)",
            MAILBOX_BYTES >> 20
        ),
        format!(
            "{MAX_UPDATES} updates (at most {} MiB by default",
            DEFAULT_KEPT_BYTES >> 20
        ),
        format!(
            "{CONNECTS} connections a player may open within {} s",
            CONNECTS_WITHIN.as_secs()
        ),
        format!("pings each client every {} s", PING_EVERY.as_secs()),
        format!("(at most {MAX_PER_MESSAGE} a message)"),
        format!("up to {BURST} saved up"),
        format!("at most {MAX_WAITING} wait for frames"),
    ] {
        assert!(
            text.contains(&said),
            "book/src/reference/{PAGE} does not say `{said}`"
        );
    }
}

#[test]
fn the_close_codes_are_those_the_server_closes_with() {
    let listed = rows(PAGE, Some("Closing"));
    for (code, name) in &listed {
        let code: u16 = code.parse().unwrap();
        assert_eq!(&format!("{:?}", CloseCode::from(code)), name, "{code}");
    }
    // Every code a stream, here or forwarded, is closed with.
    let sources = [
        include_str!("client.rs"),
        include_str!("liveness.rs"),
        include_str!("../control/forward.rs"),
    ];
    let used: BTreeSet<String> = sources
        .iter()
        .flat_map(|source| source.split("CloseCode::").skip(1))
        .map(|after| {
            after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect();
    let named: BTreeSet<String> = listed.into_iter().map(|(_, name)| name).collect();
    assert_eq!(named, used, "book/src/reference/{PAGE}: the close codes");
}
