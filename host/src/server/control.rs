//! The HTTP control surface of a [`Server`], for operators, fleet managers
//! and tests. Bodies are JSON; it listens on loopback unless told otherwise
//! and has no authentication, so keep it behind the machine's firewall.
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /healthz` | 200 while the process runs |
//! | `GET /readyz` | 200 while it accepts worlds; 503 while draining or full |
//! | `GET /metrics` | Prometheus metrics (text exposition format) |
//! | `GET /worlds` | the running worlds: id, thread, frame, instances, ... |
//! | `POST /worlds` `{"scripts": ["name"], "frames": 600}` (both optional) | 201 `{"id": 7, "thread": 1}` |
//! | `DELETE /worlds/7` | 200 and the world's report (frames, reason, errors, scene) |
//! | `POST /worlds/7/events` `{"press": "enter"}`, `{"release": "e"}` or `{"send": {"channel": "c", "payload": "p"}}` | 202 |
//!
//! New worlds run only scripts the server was started with, by name: the
//! control surface never loads code.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;
use serde_json::json;
use tiny_http::{Header, Method, Request, Response};

use super::{Server, WorldId, WorldSpec};
use crate::engine::ScriptComponent;
use crate::input::{Event, ScriptMessage, key_by_name};

/// What `POST /worlds` may start.
#[derive(Clone, Default)]
pub struct Catalog {
    /// Scripts by name; a world with no `scripts` in its body runs all.
    pub scripts: Vec<ScriptComponent>,
    /// Frames of a world whose body names none (`None`: until stopped).
    pub frames: Option<u64>,
}

/// The HTTP listener and its thread.
pub struct ControlServer {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl ControlServer {
    /// Listens on `addr` (port 0 picks a free one) and serves requests on
    /// a thread of its own.
    pub fn start(addr: &str, server: Arc<Server>, catalog: Catalog) -> Result<ControlServer> {
        let http =
            tiny_http::Server::http(addr).map_err(|e| anyhow!("cannot listen on {addr}: {e}"))?;
        let addr = http
            .server_addr()
            .to_ip()
            .context("the control surface listens on an IP address")?;
        let http = Arc::new(http);
        let serving = http.clone();
        let thread = std::thread::Builder::new()
            .name("control".into())
            .spawn(move || {
                for request in serving.incoming_requests() {
                    respond(&server, &catalog, request);
                }
            })
            .context("failed to start the control thread")?;
        Ok(ControlServer {
            http,
            addr,
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.http.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A JSON answer.
struct Answer {
    status: u16,
    body: String,
    content_type: &'static str,
}

impl Answer {
    fn json(status: u16, value: serde_json::Value) -> Answer {
        Answer {
            status,
            body: format!("{value}\n"),
            content_type: "application/json",
        }
    }

    fn text(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            body: body.into(),
            content_type: "text/plain; charset=utf-8",
        }
    }

    fn error(status: u16, error: impl std::fmt::Display) -> Answer {
        Answer::json(status, json!({ "error": format!("{error:#}") }))
    }
}

fn respond(server: &Server, catalog: &Catalog, mut request: Request) {
    let mut body = String::new();
    let answer = match request.as_reader().take(1 << 20).read_to_string(&mut body) {
        Ok(_) => route(server, catalog, request.method(), request.url(), &body),
        Err(error) => Answer::error(400, format!("unreadable body: {error}")),
    };
    let header = Header::from_bytes("Content-Type", answer.content_type).expect("a valid header");
    let response = Response::from_string(answer.body)
        .with_status_code(answer.status)
        .with_header(header);
    if let Err(error) = request.respond(response) {
        tracing::debug!("control: could not answer: {error}");
    }
}

fn route(server: &Server, catalog: &Catalog, method: &Method, url: &str, body: &str) -> Answer {
    let path = url.split('?').next().unwrap_or(url);
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    match (method, parts.as_slice()) {
        (Method::Get, ["healthz"]) => Answer::text(200, "ok\n"),
        (Method::Get, ["readyz"]) => {
            if !server.is_accepting() {
                Answer::text(503, "draining\n")
            } else if server.is_full() {
                Answer::text(503, "full\n")
            } else {
                Answer::text(200, "ready\n")
            }
        }
        (Method::Get, ["metrics"]) => Answer {
            status: 200,
            body: server.metrics_text(),
            content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8",
        },
        (Method::Get, ["worlds"]) => Answer::json(200, json!(server.worlds())),
        (Method::Post, ["worlds"]) => start_world(server, catalog, body),
        (Method::Delete, ["worlds", id]) => match parse_id(id) {
            Ok(id) => match server.stop_world(id) {
                Ok(report) => Answer::json(200, json!(report)),
                Err(error) => Answer::error(404, error),
            },
            Err(answer) => answer,
        },
        (Method::Post, ["worlds", id, "events"]) => match parse_id(id) {
            Ok(id) => match parse_event(body) {
                Ok(event) => match server.send(id, event) {
                    Ok(()) => Answer::json(202, json!({ "queued": true })),
                    Err(error) => Answer::error(404, error),
                },
                Err(error) => Answer::error(400, error),
            },
            Err(answer) => answer,
        },
        (
            _,
            ["healthz" | "readyz" | "metrics" | "worlds"] | ["worlds", _] | ["worlds", _, "events"],
        ) => Answer::error(405, format!("{method} is not allowed on {path}")),
        _ => Answer::error(404, format!("no such endpoint: {path}")),
    }
}

fn parse_id(text: &str) -> Result<WorldId, Answer> {
    text.parse()
        .map(WorldId)
        .map_err(|_| Answer::error(400, format!("`{text}` is not a world id")))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    scripts: Option<Vec<String>>,
    frames: Option<u64>,
}

fn start_world(server: &Server, catalog: &Catalog, body: &str) -> Answer {
    let body: StartBody = if body.trim().is_empty() {
        StartBody::default()
    } else {
        match serde_json::from_str(body) {
            Ok(body) => body,
            Err(error) => return Answer::error(400, format!("bad world body: {error}")),
        }
    };
    let scripts = match body.scripts {
        None => catalog.scripts.clone(),
        Some(names) => {
            let mut scripts = Vec::new();
            for name in names {
                match catalog.scripts.iter().find(|s| s.name() == name) {
                    Some(script) => scripts.push(script.clone()),
                    None => {
                        let known: Vec<_> = catalog.scripts.iter().map(|s| s.name()).collect();
                        return Answer::error(
                            400,
                            format!(
                                "no script `{name}` on this server (it has: {})",
                                known.join(", ")
                            ),
                        );
                    }
                }
            }
            scripts
        }
    };
    if !server.is_accepting() || server.is_full() {
        return Answer::error(503, "the server accepts no new worlds now (see /readyz)");
    }
    let spec = WorldSpec {
        scripts,
        frames: body.frames.or(catalog.frames),
    };
    match server.start_world(&spec) {
        Ok(id) => Answer::json(
            201,
            json!({ "id": id, "thread": server.thread_of_world(id) }),
        ),
        Err(error) => Answer::error(400, error),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum EventBody {
    Press(String),
    Release(String),
    Send { channel: String, payload: String },
}

/// `{"press": "enter"}`, `{"release": "e"}` or `{"send": {"channel": "c",
/// "payload": "p"}}`, key names as in `--input` files.
fn parse_event(body: &str) -> Result<Event> {
    let body: EventBody = serde_json::from_str(body).map_err(|e| anyhow!("bad event body: {e}"))?;
    let key = |name: &str| key_by_name(name).ok_or_else(|| anyhow!("unknown key `{name}`"));
    Ok(match body {
        EventBody::Press(name) => Event::KeyPressed(key(&name)?),
        EventBody::Release(name) => Event::KeyReleased(key(&name)?),
        EventBody::Send { channel, payload } => Event::Message(ScriptMessage { channel, payload }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Key;

    #[test]
    fn events_parse_from_json() {
        assert!(matches!(
            parse_event(r#"{"press":"enter"}"#),
            Ok(Event::KeyPressed(Key::Enter))
        ));
        assert!(matches!(
            parse_event(r#"{"release":"e"}"#),
            Ok(Event::KeyReleased(Key::E))
        ));
        match parse_event(r#"{"send":{"channel":"c","payload":"p q"}}"#) {
            Ok(Event::Message(m)) => {
                assert_eq!((m.channel.as_str(), m.payload.as_str()), ("c", "p q"))
            }
            _ => panic!("not a message"),
        }
        let error = parse_event(r#"{"press":"nope"}"#).unwrap_err().to_string();
        assert_eq!(error, "unknown key `nope`");
        assert!(parse_event("{}").is_err());
    }
}
