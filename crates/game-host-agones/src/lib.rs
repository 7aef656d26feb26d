//! # game-host-agones — a `host serve` process as an Agones game server
//!
//! [Agones](https://agones.dev) runs game servers as Kubernetes pods, each
//! beside an SDK server (a sidecar) it reports to. [`Agones::start`]
//! connects to it through the official SDK and, on a thread of its own:
//!
//! - calls `Ready()` when told the server listens and launched its worlds
//!   ([`Agones::ready`]);
//! - calls `Health()` every [`HEALTH_EVERY`] while the server's own
//!   `/healthz` answers 200, so that a server whose control surface hangs
//!   goes unhealthy and is replaced;
//! - keeps the label `world-slots-free` at the server's free world slots
//!   (the SDK server prefixes it `agones.dev/sdk-`), for allocation
//!   selectors and autoscaling to read;
//! - keeps the Counter `worlds` ([`WORLDS_COUNTER`]) at the worlds the
//!   server holds, its capacity at those plus its free world slots, where
//!   the game server declares it (Agones' Counters): a Counter
//!   `FleetAutoscaler` then keeps a buffer of free world slots across the
//!   fleet (`deploy/autoscaler.yaml`); without it (an SDK server without
//!   the beta API, or no such Counter) a warning says so once;
//! - calls `Allocate()` once the server is full (no free world slot), and
//!   `Ready()` again once it has room: Agones never removes an allocated
//!   server, so a full one is never scaled down (a server with room that a
//!   scale-down removes drains: a fleet's worlds move to its other nodes);
//! - reads the address and port Agones reports for the game server
//!   ([`Agones::address`]), which a node of a fleet advertises to the
//!   others when not told one: the node's internal address where Agones
//!   gives one, so what nodes relay to each other stays off the public
//!   network;
//! - calls `Shutdown()` when told the server drained ([`Agones::shutdown`]):
//!   its last world has moved to another node or ended.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use game_host_server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

mod address;
mod counter;

pub use counter::WORLDS_COUNTER;

/// How often health is checked and reported.
pub const HEALTH_EVERY: Duration = Duration::from_secs(2);

/// The label that holds the free world slots.
pub const SLOTS_LABEL: &str = "world-slots-free";

/// How long a call of a beat may take (a hung SDK server must not hold up
/// the next beat's health ping, or Shutdown).
const CALL_WITHIN: Duration = Duration::from_secs(5);

/// How long connecting to the SDK server may take.
const CONNECT_WITHIN: Duration = Duration::from_secs(30);

/// The game server's port whose number is advertised (`deploy/fleet.yaml`
/// names the control surface's port so); without one, its only port.
pub const PORT_NAME: &str = "control";

enum Order {
    Ready,
    Shutdown(std::sync::mpsc::Sender<Result<()>>),
}

/// A server reporting to its Agones SDK server.
pub struct Agones {
    orders: mpsc::UnboundedSender<Order>,
    thread: Option<JoinHandle<()>>,
    address: Option<String>,
}

impl Agones {
    /// Connects to the SDK server (on `AGONES_SDK_GRPC_PORT`, 9357 by
    /// default, as Agones sets it) and starts reporting for `server`, whose
    /// control surface listens on `control`. Fails, in one line, if the SDK
    /// server cannot be reached. `address`: wait (a few seconds at most)
    /// for the address Agones reports for the game server.
    pub fn start(server: Arc<Server>, control: SocketAddr, address: bool) -> Result<Agones> {
        let (orders, receiver) = mpsc::unbounded_channel();
        let (connected, connecting) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("agones".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = connected.send(Err(anyhow!("no runtime for the SDK: {error}")));
                        return;
                    }
                };
                runtime.block_on(report(server, control, address, receiver, connected));
            })
            .context("failed to start the Agones thread")?;
        let address = connecting
            .recv()
            .map_err(|_| anyhow!("the Agones thread stopped"))??;
        Ok(Agones {
            orders,
            thread: Some(thread),
            address,
        })
    }

    /// The game server's address and port as Agones reports them
    /// (`HOST:PORT`: its status' address, and its port named [`PORT_NAME`]
    /// or else its first), when asked for at start and given in time.
    pub fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }

    /// The server listens and launched its worlds: `Ready()`.
    pub fn ready(&self) {
        let _ = self.orders.send(Order::Ready);
    }

    /// The server drained (its last world moved or ended): `Shutdown()`,
    /// waited for up to `within`.
    pub fn shutdown(mut self, within: Duration) -> Result<()> {
        let (done, result) = std::sync::mpsc::channel();
        self.orders
            .send(Order::Shutdown(done))
            .map_err(|_| anyhow!("the Agones thread stopped"))?;
        let result = result.recv_timeout(within).map_err(|_| {
            anyhow!(
                "Agones: Shutdown was not answered within {} s",
                within.as_secs_f64()
            )
        })?;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        result
    }
}

/// The Agones thread: connects, then reports until told to shut down.
async fn report(
    server: Arc<Server>,
    control: SocketAddr,
    address: bool,
    mut orders: mpsc::UnboundedReceiver<Order>,
    connected: std::sync::mpsc::Sender<Result<Option<String>>>,
) {
    let sdk = tokio::time::timeout(CONNECT_WITHIN, agones::Sdk::new(None, None)).await;
    let mut sdk = match sdk {
        Ok(Ok(mut sdk)) => {
            let reported = match address {
                true => address::reported_address(&mut sdk).await,
                false => None,
            };
            let _ = connected.send(Ok(reported));
            sdk
        }
        Ok(Err(error)) => {
            let _ = connected.send(Err(anyhow!(
                "--agones: cannot reach the Agones SDK server (AGONES_SDK_GRPC_PORT): {error}"
            )));
            return;
        }
        Err(_) => {
            let _ = connected.send(Err(anyhow!(
                "--agones: the Agones SDK server did not answer within {} s",
                CONNECT_WITHIN.as_secs()
            )));
            return;
        }
    };
    let health = sdk.health_check();
    let mut worlds = counter::Worlds::new(sdk.beta().clone());
    let mut ready = false;
    let mut allocated = false;
    let mut slots: Option<String> = None;
    let mut beat = tokio::time::interval(HEALTH_EVERY);
    loop {
        tokio::select! {
            order = orders.recv() => match order {
                Some(Order::Ready) => match sdk.ready().await {
                    Ok(()) => {
                        ready = true;
                        tracing::info!("Agones: Ready");
                    }
                    Err(error) => tracing::error!("Agones: Ready failed: {}", why(&error)),
                },
                Some(Order::Shutdown(done)) => {
                    let result = sdk
                        .shutdown()
                        .await
                        .map_err(|error| anyhow!("Agones: Shutdown failed: {}", why(&error)));
                    if result.is_ok() {
                        tracing::info!("Agones: Shutdown");
                    }
                    let _ = done.send(result);
                    return;
                }
                None => return,
            },
            _ = beat.tick() => {
                // Health from the start (the control surface listens before
                // the sidecar starts); the rest once Ready.
                if answers(control).await {
                    let _ = health.try_send(());
                } else {
                    tracing::warn!("Agones: /healthz does not answer; no health ping");
                }
                if !ready {
                    continue;
                }
                // The worlds held and the free slots, read once a beat for
                // the allocation, the label and the Counter alike.
                let (held, free) = server.world_slots();
                // Allocated while full, Ready again once it has room (not
                // while it drains: it is on its way out).
                let full = free == Some(0);
                if full != allocated && server.is_accepting() {
                    let (call, done) = match full {
                        true => ("Allocate", within(sdk.allocate()).await),
                        false => ("Ready", within(sdk.ready()).await),
                    };
                    match done {
                        Ok(()) => {
                            allocated = full;
                            tracing::info!("Agones: {call} (the server is {})", match full {
                                true => "full",
                                false => "no longer full",
                            });
                        }
                        Err(why) => tracing::warn!("Agones: {call} failed: {why}"),
                    }
                }
                let label = free.map_or_else(|| "unlimited".to_owned(), |n| n.to_string());
                if slots.as_deref() != Some(label.as_str()) {
                    match within(sdk.set_label(SLOTS_LABEL, label.clone())).await {
                        Ok(()) => slots = Some(label),
                        Err(why) => tracing::warn!("Agones: the slots label failed: {why}"),
                    }
                }
                let keep = worlds.keep(&mut sdk, (held, free));
                if tokio::time::timeout(CALL_WITHIN, keep).await.is_err() {
                    tracing::warn!(
                        "Agones: the Counter `{WORLDS_COUNTER}`: no answer within {} s",
                        CALL_WITHIN.as_secs()
                    );
                }
            }
        }
    }
}

/// A call to the SDK server, given up after [`CALL_WITHIN`]; what went
/// wrong in one line.
async fn within<T>(
    call: impl std::future::Future<Output = agones::errors::Result<T>>,
) -> Result<T, String> {
    match tokio::time::timeout(CALL_WITHIN, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(why(&error)),
        Err(_) => Err(format!("no answer within {} s", CALL_WITHIN.as_secs())),
    }
}

/// What went wrong in a call to the SDK server, in one line: the gRPC
/// status' code and message where it answered (the SDK's own `Display`
/// says only "rpc failure").
fn why(error: &agones::errors::Error) -> String {
    match error {
        agones::errors::Error::Rpc(status) if status.message().is_empty() => {
            format!("{:?}", status.code())
        }
        agones::errors::Error::Rpc(status) => {
            format!("{:?}: {}", status.code(), status.message())
        }
        error => {
            let mut line = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                line = format!("{line}: {cause}");
                source = cause.source();
            }
            line
        }
    }
}

/// Whether the control surface's `/healthz` answers 200 within a second.
async fn answers(control: SocketAddr) -> bool {
    let ask = async {
        let mut stream = tokio::net::TcpStream::connect(control).await.ok()?;
        let ask = format!("GET /healthz HTTP/1.1\r\nHost: {control}\r\nConnection: close\r\n\r\n");
        stream.write_all(ask.as_bytes()).await.ok()?;
        let mut head = [0; 12];
        stream.read_exact(&mut head).await.ok()?;
        Some(head.starts_with(b"HTTP/1.1 200"))
    };
    tokio::time::timeout(Duration::from_secs(1), ask)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifests in `deploy/` name the Counter and the port this
    /// crate uses (`deploy/validate.py` checks them against Agones' schema
    /// and each other).
    #[test]
    fn the_manifests_name_the_counter_and_port_used_here() {
        let fleet = include_str!("../../../deploy/fleet.yaml");
        let scaler = include_str!("../../../deploy/autoscaler.yaml");
        let counters = fleet
            .find("counters:")
            .expect("the Fleet declares counters");
        assert!(
            fleet[counters..]
                .lines()
                .nth(1)
                .is_some_and(|line| line.trim() == format!("{WORLDS_COUNTER}:")),
            "{fleet}"
        );
        assert!(fleet.contains(&format!("- name: {PORT_NAME}\n")), "{fleet}");
        assert!(
            fleet.contains(&format!("key: {WORLDS_COUNTER}\n")),
            "{fleet}"
        );
        assert!(
            scaler.contains(&format!("key: {WORLDS_COUNTER}\n")),
            "{scaler}"
        );
        assert!(scaler.contains("type: Counter\n"), "{scaler}");
    }
}
