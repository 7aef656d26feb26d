//! The address and port Agones reports for the game server, which a node
//! of a fleet advertises to the others.

use std::time::Duration;

use crate::{PORT_NAME, why};

/// How long to wait for Agones to give the game server its address (it
/// does once the pod is scheduled, a moment after the sidecar starts).
const ADDRESS_WITHIN: Duration = Duration::from_secs(10);

/// The game server's `HOST:PORT` as Agones reports it, once it has an
/// address (within [`ADDRESS_WITHIN`]); `None`, and a warning, if not.
pub(crate) async fn reported_address(sdk: &mut agones::Sdk) -> Option<String> {
    let deadline = tokio::time::Instant::now() + ADDRESS_WITHIN;
    loop {
        match sdk.get_gameserver().await {
            Ok(game_server) => {
                if let Some(address) = advertised(game_server.status.unwrap_or_default()) {
                    return Some(address);
                }
            }
            Err(error) => tracing::debug!("Agones: GameServer: {}", why(&error)),
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                "Agones: the game server has no address and port after {} s",
                ADDRESS_WITHIN.as_secs()
            );
            return None;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `HOST:PORT` of a game server's status: its internal address where it
/// has one, else its address; the port named [`PORT_NAME`], or its only
/// port. `None` until it has both.
fn advertised(status: agones::Status) -> Option<String> {
    let port = match status.ports.iter().find(|port| port.name == PORT_NAME) {
        Some(port) => port,
        None if status.ports.len() == 1 => &status.ports[0],
        None => return None,
    };
    let port = u16::try_from(port.port).ok().filter(|port| *port != 0)?;
    let host = (status.addresses.iter())
        .find(|address| address.r#type == "InternalIP" && !address.address.is_empty())
        .map_or(status.address, |address| address.address.clone());
    if host.is_empty() {
        return None;
    }
    Some(match host.contains(':') {
        true => format!("[{host}]:{port}"),
        false => format!("{host}:{port}"),
    })
}
