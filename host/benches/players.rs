//! Players at scale: worlds of `examples/arena` (each player's entity,
//! moved by its keys) and `examples/spinning-cube` (something that moves
//! every frame), each with players streaming over real WebSockets from the
//! server's own control surface, on loopback.
//!
//! Four phases of `PLAYERS_SECONDS` (10) each, on one server of one loop
//! thread per core:
//! 1. the worlds alone (players admitted, no stream open);
//! 2. every player streaming JSON;
//! 3. every player streaming MessagePack (`game-host.msgpack`);
//! 4. every player streaming binary deltas (`game-host.delta`).
//!
//! In 2 and 3, one player per world presses an arrow key every 500 ms and
//! times the update that shows its entity moved (the latency from a key
//! to its effect; the binary deltas name no entity in a change, so 4 has
//! none). Reported: the loop threads' frame p50/p99/max and overruns (a
//! frame includes working out each player's view and its update), the
//! bytes per second each client receives, the latency's p50/p99. The
//! clients run on this machine too, on one thread of their own.
//!
//! `cargo bench --bench players`; `PLAYERS_WORLDS` (200), `PLAYERS_PER_WORLD`
//! (4), `PLAYERS_SECONDS` (10) change the load. `PLAYERS_WORLD=crowd` runs
//! `examples/crowd` instead (1,000 wandering entities, each player seeing
//! a radius around its own entity), 1 world of 50 players by default.

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
    protocol: Option<&'static str>,
    presses: Option<u64>,
    seen: Arc<Seen>,
    until: Instant,
    connecting: Arc<tokio::sync::Semaphore>,
) {
    let mut request = url.into_client_request().unwrap();
    if let Some(protocol) = protocol {
        request
            .headers_mut()
            .insert("Sec-WebSocket-Protocol", protocol.parse().unwrap());
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

/// CPU seconds the control surface's threads (`control`, `control-worker`:
/// the clients' tasks, where each client's messages are encoded and
/// written) have used so far, from `/proc/self/task/*/stat` (in USER_HZ,
/// 100 a second on Linux).
fn control_cpu() -> f64 {
    let mut ticks = 0u64;
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if !stat[open + 1..close].starts_with("control") {
            continue;
        }
        // After the name: state is field 3; utime and stime are 14 and 15.
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        ticks += fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
    }
    ticks as f64 / 100.0
}

/// The `p` percentile of `sorted`, in ms (NaN when empty).
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
    let crowd = std::env::var("PLAYERS_WORLD").is_ok_and(|w| w == "crowd");
    let worlds: usize = env_or("PLAYERS_WORLDS", if crowd { 1 } else { 200 });
    let per_world: usize = env_or("PLAYERS_PER_WORLD", if crowd { 50 } else { 4 });
    let seconds: f64 = env_or("PLAYERS_SECONDS", 10.0);
    let phase = Duration::from_secs_f64(seconds);
    let engine = ScriptEngine::new(EngineOptions {
        pooling: true,
        max_instances: (worlds * 2 + 8) as u32,
        ..EngineOptions::default()
    })
    .expect("engine");
    let scripts = match crowd {
        true => vec![load(&engine, "examples/crowd")],
        false => vec![
            load(&engine, "examples/arena"),
            load(&engine, "examples/spinning-cube"),
        ],
    };
    let names: Vec<String> = scripts.iter().map(|s| s.name().to_owned()).collect();
    let server = Arc::new(
        Server::start(ServerConfig {
            runtime: RuntimeConfig {
                hz: 60.0,
                log: Arc::new(MemoryLog::new()),
                ..RuntimeConfig::default()
            },
            overrun_frames: u32::MAX,
            max_players: per_world.max(64),
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
        scripts,
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
        "players bench: {worlds} worlds of {} at 60 Hz, {per_world} players each ({} streams), \
         {} loop threads, {seconds} s a phase",
        names.join(" + "),
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
    let phases = [
        ("JSON", None),
        ("MessagePack", Some("game-host.msgpack")),
        ("binary delta", Some("game-host.delta")),
    ];
    for (label, protocol) in phases {
        let seen = Arc::new(Seen::default());
        let until = Instant::now() + phase + Duration::from_secs(2);
        let measured = runtime.block_on(async {
            let connecting = Arc::new(tokio::sync::Semaphore::new(64));
            let tasks: Vec<_> = streams
                .iter()
                .map(|(url, presses)| {
                    let (url, seen) = (url.clone(), seen.clone());
                    let connecting = connecting.clone();
                    tokio::spawn(client(url, protocol, *presses, seen, until, connecting))
                })
                .collect();
            // Connections settle, then the window is measured.
            tokio::time::sleep(Duration::from_secs(2)).await;
            server.take_window();
            let bytes = seen.bytes.load(Ordering::Relaxed);
            let messages = seen.messages.load(Ordering::Relaxed);
            let cpu = control_cpu();
            tokio::time::sleep(phase).await;
            let window = server.take_window();
            let cpu = control_cpu() - cpu;
            let bytes = seen.bytes.load(Ordering::Relaxed) - bytes;
            let messages = seen.messages.load(Ordering::Relaxed) - messages;
            for task in tasks {
                let _ = task.await;
            }
            (window, bytes, messages, cpu)
        });
        let (window, bytes, messages, cpu) = measured;
        let clients = streams.len() as f64;
        let mut latencies = seen.latencies_us.lock().unwrap().clone();
        latencies.sort_unstable();
        println!(
            "\n[{label} streams]\n  {}\n  per client: {:.0} bytes/s, {:.1} messages/s, \
             control threads' CPU {:.1} us a message ({:.2}% of a core per client)\n  \
             key to its update: p50 {:.2} ms, p99 {:.2} ms ({} presses)",
            frames(&window),
            bytes as f64 / clients / seconds,
            messages as f64 / clients / seconds,
            cpu * 1e6 / messages.max(1) as f64,
            cpu * 100.0 / clients / seconds,
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            latencies.len()
        );
    }
    drop(control);
    server.shut_down(Duration::from_secs(5));
}
