//! Players at scale: worlds of `examples/arena` (each player's entity,
//! moved by its keys) and `examples/spinning-cube` (something that moves
//! every frame), each with players streaming over real WebSockets from the
//! server's own control surface, on loopback.
//!
//! Three phases of `PLAYERS_SECONDS` (10) each, on one server of one loop
//! thread per core:
//! 1. the worlds alone (players admitted, no stream open);
//! 2. every player streaming JSON;
//! 3. every player streaming MessagePack (`game-host.msgpack`).
//!
//! In 2 and 3, one player per world presses an arrow key every 500 ms and
//! times the update that shows its entity moved (the latency from a key
//! to its effect). Reported: the loop threads' frame p50/p99/max and
//! overruns, the bytes per second each client receives, the latency's
//! p50/p99. The clients run on this machine too, on one thread of their
//! own.
//!
//! `cargo bench --bench players`; `PLAYERS_WORLDS` (200), `PLAYERS_PER_WORLD`
//! (4), `PLAYERS_SECONDS` (10) change the load.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{env_or, load};
use futures_util::{SinkExt, StreamExt};
use game_host::log::MemoryLog;
use game_host::runtime::RuntimeConfig;
use game_host::{EngineOptions, ScriptEngine};
use game_host_server::control::{Catalog, ControlConfig, ControlServer};
use game_host_server::{Server, ServerConfig, ThreadSummary, WorldSpec};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

mod common;

/// What the clients saw in one phase.
#[derive(Default)]
struct Seen {
    bytes: AtomicU64,
    messages: AtomicU64,
    latencies_us: std::sync::Mutex<Vec<u64>>,
}

/// One client: reads everything; a pressing client also presses an arrow
/// key every 500 ms and times the first update that moves its entity.
async fn client(
    url: String,
    msgpack: bool,
    presses: Option<u64>,
    seen: Arc<Seen>,
    until: Instant,
    connecting: Arc<tokio::sync::Semaphore>,
) {
    let mut request = url.into_client_request().unwrap();
    if msgpack {
        request.headers_mut().insert(
            "Sec-WebSocket-Protocol",
            "game-host.msgpack".parse().unwrap(),
        );
    }
    // A few handshakes at a time: the control surface holds 256
    // connections, upgrades among them until they are done.
    let permit = connecting.acquire().await.unwrap();
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("connect");
    drop(permit);
    let mut pressed: Option<Instant> = None;
    let mut next_press = Instant::now() + Duration::from_millis(500);
    let mut right = true;
    let avatar = presses.map(|player| format!("player-{player}"));
    loop {
        let now = Instant::now();
        if now >= until {
            break;
        }
        let wake = if avatar.is_some() {
            next_press.min(until)
        } else {
            until
        };
        tokio::select! {
            message = socket.next() => {
                let Some(Ok(message)) = message else { break };
                let data: &[u8] = match &message {
                    Message::Text(text) => text.as_bytes(),
                    Message::Binary(bytes) => bytes,
                    _ => continue,
                };
                seen.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
                seen.messages.fetch_add(1, Ordering::Relaxed);
                if let (Some(at), Some(name)) = (pressed, &avatar)
                    && data.windows(name.len()).any(|w| w == name.as_bytes())
                    && data.windows(7).any(|w| w == b"changed")
                {
                    let took = at.elapsed().as_micros() as u64;
                    seen.latencies_us.lock().unwrap().push(took);
                    pressed = None;
                }
            }
            () = tokio::time::sleep_until(wake.into()) => {
                if avatar.is_some() && Instant::now() >= next_press {
                    let key = if right { "right" } else { "left" };
                    right = !right;
                    let body = format!(r#"{{"press":"{key}"}}"#);
                    socket.send(Message::text(body)).await.expect("send");
                    pressed = Some(Instant::now());
                    next_press += Duration::from_millis(500);
                }
            }
        }
    }
    let _ = socket.close(None).await;
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at] as f64 / 1e3
}

fn frames(window: &[ThreadSummary]) -> String {
    window
        .iter()
        .map(|t| {
            format!(
                "thread {}: {} worlds, frame p50 {:.3} / p99 {:.3} / max {:.3} ms, {} overruns",
                t.thread, t.worlds, t.frame_ms.p50, t.frame_ms.p99, t.frame_ms.max, t.overruns
            )
        })
        .collect::<Vec<_>>()
        .join("\n  ")
}

fn main() {
    let worlds: usize = env_or("PLAYERS_WORLDS", 200);
    let per_world: usize = env_or("PLAYERS_PER_WORLD", 4);
    let seconds: f64 = env_or("PLAYERS_SECONDS", 10.0);
    let phase = Duration::from_secs_f64(seconds);
    let engine = ScriptEngine::new(EngineOptions {
        pooling: true,
        max_instances: (worlds * 2 + 8) as u32,
        ..EngineOptions::default()
    })
    .expect("engine");
    let arena = load(&engine, "examples/arena");
    let cube = load(&engine, "examples/spinning-cube");
    let server = Arc::new(
        Server::start(ServerConfig {
            runtime: RuntimeConfig {
                hz: 60.0,
                log: Arc::new(MemoryLog::new()),
                ..RuntimeConfig::default()
            },
            overrun_frames: u32::MAX,
            ..ServerConfig::default()
        })
        .expect("server"),
    );
    let control = ControlServer::start(
        ControlConfig {
            listen: "127.0.0.1:0".into(),
            ..ControlConfig::default()
        },
        server.clone(),
        Catalog::default(),
    )
    .expect("control surface");
    let spec = WorldSpec {
        scripts: vec![arena, cube],
        ..WorldSpec::default()
    };
    let ids: Vec<_> = (0..worlds)
        .map(|_| server.start_world(&spec).expect("world"))
        .collect();
    let mut streams = Vec::new();
    for id in &ids {
        for n in 0..per_world {
            let (player, token) = server.admit_player(*id).expect("player");
            let url = format!(
                "ws://{}/worlds/{}/stream?token={token}",
                control.addr(),
                id.0
            );
            streams.push((url, (n == 0).then_some(player)));
        }
    }
    println!(
        "players bench: {worlds} worlds of arena + spinning-cube at 60 Hz, {per_world} players \
         each ({} streams), {} loop threads, {seconds} s a phase",
        streams.len(),
        server.thread_count()
    );

    std::thread::sleep(Duration::from_secs(1));
    server.take_window();
    std::thread::sleep(phase);
    println!("\n[no streams]\n  {}", frames(&server.take_window()));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (label, msgpack) in [("JSON", false), ("MessagePack", true)] {
        let seen = Arc::new(Seen::default());
        let until = Instant::now() + phase + Duration::from_secs(2);
        let measured = runtime.block_on(async {
            let connecting = Arc::new(tokio::sync::Semaphore::new(64));
            let tasks: Vec<_> = streams
                .iter()
                .map(|(url, presses)| {
                    let (url, seen) = (url.clone(), seen.clone());
                    let connecting = connecting.clone();
                    tokio::spawn(client(url, msgpack, *presses, seen, until, connecting))
                })
                .collect();
            // Connections settle, then the window is measured.
            tokio::time::sleep(Duration::from_secs(2)).await;
            server.take_window();
            let bytes = seen.bytes.load(Ordering::Relaxed);
            let messages = seen.messages.load(Ordering::Relaxed);
            tokio::time::sleep(phase).await;
            let window = server.take_window();
            let bytes = seen.bytes.load(Ordering::Relaxed) - bytes;
            let messages = seen.messages.load(Ordering::Relaxed) - messages;
            for task in tasks {
                let _ = task.await;
            }
            (window, bytes, messages)
        });
        let (window, bytes, messages) = measured;
        let clients = streams.len() as f64;
        let mut latencies = seen.latencies_us.lock().unwrap().clone();
        latencies.sort_unstable();
        println!(
            "\n[{label} streams]\n  {}\n  per client: {:.0} bytes/s, {:.1} messages/s\n  \
             key to its update: p50 {:.2} ms, p99 {:.2} ms ({} presses)",
            frames(&window),
            bytes as f64 / clients / seconds,
            messages as f64 / clients / seconds,
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            latencies.len()
        );
    }
    drop(control);
    server.shut_down(Duration::from_secs(5));
}
