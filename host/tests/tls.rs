//! `host serve --tls-cert FILE --tls-key FILE`: https and wss on the one
//! port, with a certificate a CA of the test's own signed (rcgen), checked
//! by a rustls client that trusts that CA alone. A renewal written over
//! the files is served without a restart, a bad one keeps the certificate
//! in use, and a pair that cannot serve is refused at start in one line. The view page plays over https and wss in chromium
//! (and the client library over wss in Node: `client_library.rs`).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::ClientConfig;

use common::browser::{Browser, Driver};
use common::serve::{MESSAGE_WINDOW, Serve, json};
use common::tls::{Issued, TestCa, connect, cube_over_wss, https, trusting};

/// The certificate the server shows a new connection.
fn shown(addr: &str, config: &Arc<ClientConfig>) -> Vec<u8> {
    let stream = connect(addr, config);
    stream.conn.peer_certificates().unwrap()[0].to_vec()
}

fn serve_tls(issued: &Issued) -> Serve {
    Serve::start(&[
        "--tls-cert",
        issued.cert.to_str().unwrap(),
        "--tls-key",
        issued.key.to_str().unwrap(),
    ])
}

/// How many times `served` logged `line`.
fn logged(served: &Serve, line: &str) -> usize {
    served.stderr().matches(line).count()
}

/// Waits until `served` logged `line` more than `before` times.
fn until_logged(served: &Serve, line: &str, before: usize) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while logged(served, line) <= before {
        assert!(
            Instant::now() < deadline,
            "no `{line}` in:\n{}",
            served.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Puts `from`'s files in place of `to`'s, the key first, each renamed
/// over the old one (as a certificate client writes them).
fn renew(from: &Issued, to: &Issued) {
    for (new, old) in [(&from.key, &to.key), (&from.cert, &to.cert)] {
        let staged = old.with_extension("new");
        std::fs::copy(new, &staged).unwrap();
        std::fs::rename(&staged, old).unwrap();
    }
}

#[test]
fn https_and_wss_are_served_on_one_port_and_a_renewal_needs_no_restart() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path());
    let first = ca.issue(dir.path(), "server");
    let served = serve_tls(&first);
    assert_eq!(served.scheme, "https");
    let addr = served.addr.clone();
    let client = trusting(&ca.ca_file);

    let (status, body) = https(&addr, &client, "GET", "/healthz");
    assert_eq!((status, body.trim()), (200, "ok"));
    assert_eq!(shown(&addr, &client), first.der);

    // Plain HTTP on the TLS port gets no HTTP answer.
    let mut plain = TcpStream::connect(&addr).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(!answer.starts_with(b"HTTP/"), "{answer:?}");

    // A player's stream over wss: its snapshot holds the spinning cube.
    let (status, body) = https(&addr, &client, "POST", "/worlds/1/players");
    assert_eq!(status, 201, "{body}");
    let path = json(&body)["stream"].as_str().unwrap().to_owned();
    cube_over_wss(&addr, &client, &path);

    // A renewal written over the files: new connections get it.
    const LOADED: &str = "loaded again (the files changed)";
    const KEPT: &str = "the certificate in use is kept";
    let second = ca.issue(dir.path(), "renewed");
    renew(&second, &first);
    until_logged(&served, LOADED, 0);
    assert_eq!(shown(&addr, &client), second.der);

    // A key that does not fit: said, and the certificate in use kept.
    let other = ca.issue(dir.path(), "other");
    let (loaded, kept) = (logged(&served, LOADED), logged(&served, KEPT));
    std::fs::copy(&other.key, &first.key).unwrap();
    until_logged(&served, KEPT, kept);
    assert_eq!(logged(&served, LOADED), loaded, "{}", served.stderr());
    assert_eq!(shown(&addr, &client), second.der);

    // The pair made whole again: served.
    renew(&other, &first);
    until_logged(&served, LOADED, loaded);
    assert_eq!(shown(&addr, &client), other.der);
    let (status, _) = https(&addr, &client, "GET", "/healthz");
    assert_eq!(status, 200);
}

#[test]
fn a_certificate_that_cannot_serve_is_refused_at_start_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path());
    let server = ca.issue(dir.path(), "server");
    let other = ca.issue(dir.path(), "other");
    for (args, said) in [
        (
            vec!["--tls-key", other.key.to_str().unwrap()],
            "does not serve the certificate",
        ),
        (
            vec![
                "--tls-key",
                server.key.to_str().unwrap(),
                "--peer-ca",
                other.key.to_str().unwrap(),
            ],
            "without --fleet: a server alone relays to no other node",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_host"))
            .args(["serve", "--listen", "127.0.0.1:0", "--tls-cert"])
            .arg(&server.cert)
            .args(&args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let error = common::only_error(&output);
        assert!(error.contains(said), "{error}");
    }
}

/// The view page from an https server, in chromium (which takes the test
/// CA's certificate as WebDriver's `acceptInsecureCerts` lets it): the
/// page, its client library and its stream (wss) all come over TLS, and
/// a key pressed on it reaches the script.
#[test]
fn the_view_page_plays_a_world_over_https_and_wss() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path());
    let issued = ca.issue(dir.path(), "server");
    let mut args = MESSAGE_WINDOW.to_vec();
    args.extend([
        "--tls-cert",
        issued.cert.to_str().unwrap(),
        "--tls-key",
        issued.key.to_str().unwrap(),
    ]);
    let served = Serve::start(&args);
    let client = trusting(&ca.ca_file);
    let (status, body) = https(&served.addr, &client, "POST", "/worlds");
    assert_eq!(status, 201, "{body}");
    let (status, body) = https(&served.addr, &client, "POST", "/worlds/1/players");
    assert_eq!(status, 201, "{body}");
    let view = json(&body)["view"].as_str().unwrap().to_owned();

    let driver = Driver::start();
    let browser = Browser::open_with(&driver, true);
    browser.post("/url", serde_json::json!({"url": served.url(&view)}));
    browser.wait_for(
        "return location.protocol + ' ' + (document.body.dataset.connected || '');",
        "https: true",
        Duration::from_secs(30),
    );
    let scale = r#"const cell = document.querySelector('tr[data-name="window"] td.scale');
                   return cell ? cell.textContent : null;"#;
    browser.wait_for(scale, "1.00, 1.00, 1.00", Duration::from_secs(10));
    browser.press("\u{E007}");
    browser.wait_for(scale, "1.00, 0.00, 1.00", Duration::from_secs(5));
}
