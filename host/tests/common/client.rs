//! A player's client of `host serve` for the tests: admitted over HTTP,
//! its stream a real WebSocket read with a timeout.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;
use tungstenite::{Message, WebSocket};

use super::serve::{Serve, json, request};

/// A player's client: its stream, read with a timeout.
pub struct Client {
    pub socket: WebSocket<TcpStream>,
}

impl Client {
    /// Connects to `path` (with its token) on `serve`.
    pub fn connect(serve: &Serve, path: &str) -> Result<Client, tungstenite::Error> {
        Client::connect_to(&serve.addr, path)
    }

    /// Connects to `path` on the server at `addr` (`HOST:PORT`).
    pub fn connect_to(addr: &str, path: &str) -> Result<Client, tungstenite::Error> {
        let stream = TcpStream::connect(addr)?;
        // The handshake may wait on another node (a fleet forwards a
        // stream to its world's node); reads after it time out quickly.
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let url = format!("ws://{addr}{path}");
        let (socket, _) = tungstenite::client(url.as_str(), stream).map_err(|e| match e {
            tungstenite::HandshakeError::Failure(e) => e,
            tungstenite::HandshakeError::Interrupted(_) => panic!("handshake interrupted"),
        })?;
        socket
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        Ok(Client { socket })
    }

    /// Connects to `path` (with its token) on the server at `addr` again and
    /// again until its world answers with a snapshot (a resumed world's
    /// client may come before the world runs again): the client and the
    /// snapshot.
    pub fn reconnect(addr: &str, path: &str) -> (Client, Value) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(mut client) = Client::connect_to(addr, path)
                && let Some(first) = client.next(Duration::from_secs(5))
                && first.get("entities").is_some()
            {
                return (client, first);
            }
            assert!(
                Instant::now() < deadline,
                "no snapshot for {path} via {addr}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The next frame of the stream, or `None` if none came by `deadline`.
    fn frame(&mut self, deadline: Instant) -> Option<Message> {
        while Instant::now() < deadline {
            match self.socket.read() {
                Ok(frame) => return Some(frame),
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("stream failed: {e}"),
            }
        }
        None
    }

    /// The next message, or `None` if none came within `limit`.
    pub fn next(&mut self, limit: Duration) -> Option<Value> {
        let deadline = Instant::now() + limit;
        while let Some(frame) = self.frame(deadline) {
            match frame {
                Message::Text(text) => return Some(json(&text)),
                Message::Close(_) => return None,
                _ => {}
            }
        }
        None
    }

    /// The reason of the close frame the stream ends with, within `limit`.
    pub fn close_reason(&mut self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        while let Some(frame) = self.frame(deadline) {
            if let Message::Close(close) = frame {
                return close.map(|c| c.reason.to_string()).unwrap_or_default();
            }
        }
        panic!("no close frame within {limit:?}");
    }

    /// Reads until `want` holds for a message (which it returns), within
    /// `limit`; panics with what it saw otherwise.
    pub fn until(&mut self, limit: Duration, mut want: impl FnMut(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            if let Some(message) = self.next(deadline - Instant::now()) {
                if want(&message) {
                    return message;
                }
                seen.push(message);
            }
        }
        let tail: Vec<_> = seen.iter().rev().take(5).collect();
        panic!("no such message within {limit:?}; the last ones: {tail:?}");
    }

    pub fn send(&mut self, text: &str) {
        self.socket.send(Message::text(text)).unwrap();
    }
}

/// The position of entity `name` in a snapshot or update.
pub fn position(message: &Value, name: &str) -> Option<[f64; 2]> {
    let list = message.get("entities").or_else(|| message.get("changed"))?;
    let entity = list.as_array()?.iter().find(|e| e["name"] == name)?;
    Some([
        entity["position"][0].as_f64()?,
        entity["position"][1].as_f64()?,
    ])
}

/// Admits a player to world `world`: its id and the stream's path.
pub fn admit(serve: &Serve, world: u64) -> (u64, String) {
    let (status, body) = request(
        "POST",
        &serve.url(&format!("/worlds/{world}/players")),
        None,
    );
    assert_eq!(status, 201, "{body}");
    let body = json(&body);
    (
        body["player"].as_u64().unwrap(),
        body["stream"].as_str().unwrap().to_owned(),
    )
}
