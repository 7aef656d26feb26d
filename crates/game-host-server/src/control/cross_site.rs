//! Cross-site requests, refused while no token is set. Without a token the
//! control surface listens on loopback only, and a web page the developer
//! visits can still reach loopback: by a name that resolves to it (DNS
//! rebinding: its `Host` is then the page's own name), or by a form or
//! `fetch` that changes state without the CORS preflight (its `Origin` is
//! the page's, and its body `text/plain` or a form). So, as browsers' and
//! Jupyter's local servers do:
//! - every request's `Host` must be a loopback name or the listen address;
//! - a request that changes state (and a stream's upgrade) must carry no
//!   `Origin` but this server's own (or, for what lets a player in, one
//!   the operator allowed: `allowed`);
//! - a request that changes state and has a `Content-Type` must have JSON's.
//!
//! With a token, the token guards every request that changes state, and a
//! server may sit behind a proxy under any name: only the public join
//! checks what a body says it is ([`json_only`]).

use std::net::SocketAddr;

use hyper::HeaderMap;
use hyper::header::{CONTENT_TYPE, HOST, ORIGIN};

use super::answer::Answer;
use super::origins::AllowedOrigins;

/// Checks a request without a token: `changes` when it changes state (or
/// opens a stream). `listen` is the address the server listens on;
/// `allowed`, the origins whose pages may make the request besides its own.
pub(super) fn check(
    headers: &HeaderMap,
    changes: bool,
    listen: SocketAddr,
    allowed: &AllowedOrigins,
) -> Result<(), Answer> {
    let Some(host) = headers.get(HOST).and_then(|h| h.to_str().ok()) else {
        return Err(Answer::error(400, "the request has no `Host` header"));
    };
    if !local(host, listen) {
        return Err(Answer::error(
            403,
            format!(
                "`Host: {host}` is not this server's address: without a control token only \
                 loopback names are answered (set a token to serve other names)"
            ),
        ));
    }
    if !changes {
        return Ok(());
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("?");
        // An origin names its port, or the scheme's (80, 443): another
        // port on loopback is another site.
        let own = [("http://", "80"), ("https://", "443")]
            .into_iter()
            .find_map(|(scheme, port)| Some((origin.strip_prefix(scheme)?, port)))
            .is_some_and(|(host, port)| match host.rsplit_once(':') {
                Some((_, at)) if !at.contains(']') => local(host, listen),
                _ => local(&format!("{host}:{port}"), listen),
            });
        if !own && !allowed.allows(origin) {
            return Err(Answer::error(
                403,
                format!("a request from `Origin: {origin}` may not change this server's worlds"),
            ));
        }
    }
    json_only(headers)
}

/// A request that changes state and says what its body is must say JSON:
/// a form or `text/plain` is what a page of another site can send without
/// asking the browser first.
pub(super) fn json_only(headers: &HeaderMap) -> Result<(), Answer> {
    if let Some(kind) = headers.get(CONTENT_TYPE) {
        let kind = kind.to_str().unwrap_or("?");
        let essence = kind.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(Answer::error(
                415,
                format!(
                    "`Content-Type: {kind}` is not JSON: send `Content-Type: application/json` \
                     (curl --json)"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `host` (a `Host` header, or an origin's host and port) names
/// this server: a loopback name or the listen address, on its port.
fn local(host: &str, listen: SocketAddr) -> bool {
    let (name, port) = match host.rsplit_once(':') {
        // `[::1]:9464`, `127.0.0.1:9464`, `localhost:9464`
        Some((name, port)) if !port.contains(']') => (name, Some(port)),
        _ => (host, None),
    };
    if port.is_some_and(|port| port.parse::<u16>() != Ok(listen.port())) {
        return false;
    }
    let name = name.trim_start_matches('[').trim_end_matches(']');
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip == listen.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    fn status(pairs: &[(&'static str, &str)], changes: bool) -> u16 {
        let listen: SocketAddr = "127.0.0.1:9464".parse().unwrap();
        let allowed = AllowedOrigins::new(&["https://game.example"]).unwrap();
        check(&headers(pairs), changes, listen, &allowed)
            .map_or_else(|answer| answer.status, |()| 200)
    }

    #[test]
    fn loopback_names_pass_and_other_names_and_sites_do_not() {
        for host in [
            "127.0.0.1:9464",
            "localhost:9464",
            "LOCALHOST",
            "[::1]:9464",
            "a.localhost:9464",
        ] {
            assert_eq!(status(&[("host", host)], false), 200, "{host}");
        }
        for host in [
            "evil.example:9464",
            "127.0.0.1:80",
            "10.0.0.1:9464",
            "[::1]",
        ] {
            let expected = if host == "[::1]" { 200 } else { 403 };
            assert_eq!(status(&[("host", host)], false), expected, "{host}");
        }
        assert_eq!(status(&[], false), 400);
        let host = ("host", "127.0.0.1:9464");
        assert_eq!(
            status(&[host, ("origin", "https://evil.example")], true),
            403
        );
        assert_eq!(status(&[host, ("origin", "null")], true), 403);
        // An origin the operator allowed.
        assert_eq!(
            status(&[host, ("origin", "https://game.example")], true),
            200
        );
        assert_eq!(
            status(&[host, ("origin", "http://localhost:9464")], true),
            200
        );
        // A foreign origin may read (the browser keeps the answer from it).
        assert_eq!(
            status(&[host, ("origin", "https://evil.example")], false),
            200
        );
        assert_eq!(status(&[host, ("content-type", "text/plain")], true), 415);
        assert_eq!(
            status(
                &[host, ("content-type", "application/x-www-form-urlencoded")],
                true
            ),
            415
        );
        assert_eq!(
            status(
                &[host, ("content-type", "application/json; charset=utf-8")],
                true
            ),
            200
        );
        assert_eq!(status(&[host], true), 200);
    }
}
