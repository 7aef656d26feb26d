//! The control surface of `host serve` against clients that misbehave, on
//! raw sockets: a huge declared length, a body cut off, a slow body, slow
//! headers, more idle connections than the cap, running out of file
//! descriptors, SIGTERM with a stuck client, bodies that are not UTF-8,
//! a token missing or wrong. After each, the server answers as before.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use common::serve::{Serve, json, read_json, request};

/// Sends raw bytes on a new connection; the answer's status and body, as
/// far as the server sends them before closing.
fn raw(serve: &Serve, bytes: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    read_answer(&mut stream)
}

/// Reads an HTTP/1.1 answer until the server closes or its body is whole.
fn read_answer(stream: &mut TcpStream) -> (u16, String) {
    let mut text = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => text.extend_from_slice(&buffer[..n]),
        }
        let so_far = String::from_utf8_lossy(&text);
        if let Some((head, body)) = so_far.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(str::to_owned)
                })
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

fn world_count(serve: &Serve) -> usize {
    let (status, body) = request("GET", &serve.url("/worlds"), None);
    assert_eq!(status, 200, "{body}");
    json(&body).as_array().unwrap().len()
}

fn post(path: &str, body: &[u8], extra: &str) -> Vec<u8> {
    let mut bytes = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n{extra}\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

#[test]
fn bodies_too_large_cut_off_or_not_utf8_are_refused_and_nothing_is_started() {
    let serve = Serve::start(&["--worlds", "1"]);
    // A declared length of 100 GB is answered before any of it is read.
    let (status, body) = raw(
        &serve,
        b"POST /worlds HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999\r\n\r\n",
    );
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("larger than 65536 bytes"), "{body}");
    // Chunked, with no declared length: refused once it grows past the limit.
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream
        .write_all(
            b"POST /worlds HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .unwrap();
    for _ in 0..20 {
        if stream.write_all(b"1000\r\n").is_err()
            || stream.write_all(&[b' '; 0x1000]).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    assert_eq!(read_answer(&mut stream).0, 413);
    // Cut off: 100 bytes declared, 10 sent, then the client closes its side.
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream
        .write_all(
            b"POST /worlds HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"frames\":",
        )
        .unwrap();
    stream.shutdown(Shutdown::Write).unwrap();
    let (status, _) = read_answer(&mut stream);
    assert!(status == 400 || status == 0, "status {status}");
    // Not UTF-8.
    let (status, body) = raw(&serve, &post("/worlds", b"{\"frames\": \xff\xfe}", ""));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("not UTF-8"), "{body}");
    // Nothing above started a world; a good request still does.
    assert_eq!(world_count(&serve), 1);
    let (status, body) = raw(&serve, &post("/worlds", b"{\"frames\": 600}", ""));
    assert_eq!(status, 201, "{body}");
    assert_eq!(world_count(&serve), 2);
}

#[test]
fn slow_clients_time_out_and_hold_up_neither_others_nor_sigterm() {
    let mut serve = Serve::start(&["--worlds", "1", "--grace-seconds", "5"]);
    // Slow headers: a request line, then nothing.
    let mut headers = TcpStream::connect(&serve.addr).unwrap();
    headers.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
    // A slow body: a byte now and then.
    let mut body = TcpStream::connect(&serve.addr).unwrap();
    body.write_all(b"POST /worlds HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{")
        .unwrap();
    let dripping = std::thread::spawn(move || {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(500));
            if body.write_all(b" ").is_err() {
                break;
            }
        }
        body.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        (read_answer(&mut body), started.elapsed())
    });
    // Others are answered meanwhile.
    for _ in 0..5 {
        assert_eq!(request("GET", &serve.url("/healthz"), None).0, 200);
        std::thread::sleep(Duration::from_millis(300));
    }
    // Headers have 5 s; the connection is closed after them.
    headers
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let started = Instant::now();
    let (status, _) = read_answer(&mut headers);
    assert!(status == 408 || status == 0, "status {status}");
    assert!(started.elapsed() < Duration::from_secs(15));
    // The body has 10 s, then 408, whatever still drips in.
    let ((status, answer), took) = dripping.join().unwrap();
    assert_eq!(status, 408, "{answer}");
    assert!(answer.contains("did not arrive within 10 s"), "{answer}");
    assert!(took < Duration::from_secs(20), "{took:?}");

    // SIGTERM while a client holds a connection mid-request: the drain does
    // not wait for it.
    let mut stuck = TcpStream::connect(&serve.addr).unwrap();
    stuck
        .write_all(b"POST /worlds HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50\r\n\r\n{")
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    serve.terminate();
    assert_eq!(serve.wait(Duration::from_secs(10)), 0, "{}", serve.stderr());
    assert!(
        signalled.elapsed() < Duration::from_secs(8),
        "{:?}",
        signalled.elapsed()
    );
    drop(stuck);
}

#[test]
fn connections_past_the_cap_make_room_for_new_ones_and_threads_stay_few() {
    let serve = Serve::start(&["--worlds", "1"]);
    let threads = serve.status("Threads");
    let idle: Vec<TcpStream> = (0..400)
        .map(|_| TcpStream::connect(&serve.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let during = serve.status("Threads");
    assert!(
        during <= threads + 2,
        "{threads} threads before, {during} with 400 connections"
    );
    // Every connection is taken by a client that sends nothing: a probe
    // makes room by closing the one that waited longest, and is answered
    // at its first try, as is the next.
    for _ in 0..2 {
        let mut probe = TcpStream::connect(&serve.addr).unwrap();
        probe
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        probe
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .unwrap();
        assert_eq!(read_answer(&mut probe).0, 200, "{}", serve.stderr());
    }
    drop(idle);
    assert!(
        serve
            .stderr()
            .contains("closing the ones that waited longest on their clients"),
        "{}",
        serve.stderr()
    );
}

#[test]
fn running_out_of_file_descriptors_is_survived() {
    // `ulimit -n 64`: the server's accept fails with EMFILE well before the
    // connection cap.
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 64 && exec {} serve --worlds 1 --listen 127.0.0.1:0 --cache-dir {}",
            env!("CARGO_BIN_EXE_host"),
            common::cache_dir().display()
        ))
        .current_dir(common::workspace())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let serve = Serve::adopt(child);
    let many: Vec<TcpStream> = (0..100)
        .filter_map(|_| TcpStream::connect(&serve.addr).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    drop(many);
    let started = Instant::now();
    while request("GET", &serve.url("/healthz"), None).0 != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        serve.stderr().contains("accepting a connection failed"),
        "{}",
        serve.stderr()
    );
}

#[test]
fn changing_the_worlds_needs_the_token_when_one_is_set() {
    let token = "s3cret-token-for-tests";
    let serve = Serve::start_with(&["--worlds", "1"], &[("GAME_HOST_CONTROL_TOKEN", token)]);
    for (header, why) in [
        ("", "needs `Authorization: Bearer <token>`"),
        (
            "Authorization: Bearer wrong-token-entirely\r\n",
            "the bearer token is wrong",
        ),
    ] {
        let mut stream = TcpStream::connect(&serve.addr).unwrap();
        stream.write_all(&post("/worlds", b"{}", header)).unwrap();
        let (status, body) = read_answer(&mut stream);
        assert_eq!(status, 401, "{body}");
        assert!(body.contains(why), "{body}");
        let (status, _) = raw(
            &serve,
            format!("DELETE /worlds/1 HTTP/1.1\r\nHost: localhost\r\n{header}\r\n").as_bytes(),
        );
        assert_eq!(status, 401);
    }
    // Probes and reads stay open.
    assert_eq!(request("GET", &serve.url("/healthz"), None).0, 200);
    assert_eq!(request("GET", &serve.url("/readyz"), None).0, 200);
    assert_eq!(world_count(&serve), 1);
    let (status, body) = raw(
        &serve,
        &post(
            "/worlds",
            b"{}",
            &format!("Authorization: Bearer {token}\r\n"),
        ),
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(world_count(&serve), 2);
}

#[test]
fn off_loopback_without_a_token_the_server_refuses_to_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["serve", "--listen", "0.0.0.0:0", "--seconds", "1"])
        .env_remove("GAME_HOST_CONTROL_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let error: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(error.len(), 1, "{stderr}");
    assert!(error[0].contains("without a token"), "{stderr}");
    assert!(error[0].contains("--control-token-file"), "{stderr}");
}

#[test]
fn readiness_slots_and_starts_agree_up_to_the_instance_pool() {
    let serve = Serve::start(&["--worlds", "1", "--max-instances", "3"]);
    let slots = || {
        let (_, text) = request("GET", &serve.url("/metrics"), None);
        text.lines()
            .find_map(|l| l.strip_prefix("game_server_world_slots_free "))
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    assert_eq!(slots(), 2);
    for free in [1, 0] {
        assert_eq!(request("GET", &serve.url("/readyz"), None).0, 200);
        let (status, body) = request("POST", &serve.url("/worlds"), Some("{}"));
        assert_eq!(status, 201, "{body}");
        assert_eq!(slots(), free);
    }
    assert_eq!(
        request("GET", &serve.url("/readyz"), None),
        (503, "full\n".into())
    );
    let (status, body) = request("POST", &serve.url("/worlds"), Some("{}"));
    assert_eq!(status, 503, "{body}");
    // What a world must have: refused with room to spare.
    let mut newest = 3;
    for (body, why) in [
        (r#"{"scripts": []}"#, "a world needs at least one script"),
        (r#"{"frames": 0}"#, "a world runs at least one frame"),
    ] {
        let (status, answer) = request("DELETE", &serve.url(&format!("/worlds/{newest}")), None);
        assert_eq!(status, 200, "{answer}");
        assert_eq!(slots(), 1);
        let (status, answer) = request("POST", &serve.url("/worlds"), Some(body));
        assert_eq!(status, 400, "{answer}");
        assert!(answer.contains(why), "{answer}");
        let (status, answer) = request("POST", &serve.url("/worlds"), Some("{}"));
        assert_eq!(status, 201, "{answer}");
        newest = json(&answer)["id"].as_u64().unwrap();
    }
}

#[test]
fn dumps_and_metrics_are_on_disk_before_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let (dumps, metrics) = (dir.path().join("worlds"), dir.path().join("metrics.json"));
    let serve = Serve::start(&[
        "--worlds",
        "1",
        "--dump-worlds",
        dumps.to_str().unwrap(),
        "--metrics-json",
        metrics.to_str().unwrap(),
    ]);
    let (status, body) = request("POST", &serve.url("/worlds"), Some(r#"{"frames": 5}"#));
    assert_eq!(status, 201, "{body}");
    let id = json(&body)["id"].as_u64().unwrap();
    let dump = dumps.join(format!("world-{id}.json"));
    let started = Instant::now();
    while !(dump.exists()
        && std::fs::read_to_string(&metrics)
            .unwrap()
            .contains("\"worlds\": [\n"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    serve.signal("KILL");
    assert_eq!(read_json(&dump)["frame"], 5);
    let written = read_json(&metrics);
    assert_eq!(written["worlds"][0]["id"], id);
    assert_eq!(written["worlds"][0]["frames"], 5);
}

#[test]
fn unusable_paths_and_options_out_of_range_fail_at_start_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let host = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_host"))
            .args(args)
            .arg("--cache-dir")
            .arg(common::cache_dir())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let dumps_in_file = file.join("dumps");
    for (args, code, says) in [
        (
            vec!["serve", "--hz", "1e-300"],
            2,
            "`1e-300` is not a number from 0.1 to 1000",
        ),
        (
            vec!["serve", "--grace-seconds", "1e300"],
            2,
            "is not a number from 0 to 3600",
        ),
        (
            vec!["run", "--script-deadline-ms", "1e300"],
            2,
            "is not a number from 0 to 60000",
        ),
        (
            vec!["run", "--hz", "0"],
            2,
            "`0` is not a number from 0.1 to 1000",
        ),
        (
            vec![
                "serve",
                "--seconds",
                "1",
                "--dump-worlds",
                dumps_in_file.to_str().unwrap(),
            ],
            1,
            "--dump-worlds: cannot create the directory",
        ),
        (
            vec![
                "serve",
                "--seconds",
                "1",
                "--metrics-json",
                dir.path().to_str().unwrap(),
            ],
            1,
            "--metrics-json: failed to write",
        ),
        (vec!["run", "/dev/zero"], 1, "it is not a regular file"),
        (
            vec![
                "run",
                "--headless",
                "--frames",
                "1",
                "--instances",
                "300",
                "--max-instances",
                "256",
            ],
            1,
            "--instances 300 of 1 script(s) need 300 instances, more than --max-instances 256",
        ),
    ] {
        let (status, stderr) = host(&args);
        assert_eq!(status, Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn without_a_token_cross_site_requests_are_refused() {
    let serve = Serve::start(&["--worlds", "1"]);
    let port = serve.addr.rsplit(':').next().unwrap().to_owned();
    // A page elsewhere posts a form-like body to admit a player: refused,
    // for its Origin, and for its Content-Type with no Origin at all.
    let admit = |headers: &str| {
        raw(
            &serve,
            format!(
                "POST /worlds/1/players HTTP/1.1\r\n{headers}Content-Length: 2\r\n\
                 Connection: close\r\n\r\n{{}}"
            )
            .as_bytes(),
        )
    };
    let (status, body) = admit(&format!(
        "Host: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\nContent-Type: text/plain\r\n"
    ));
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Origin: https://evil.example"), "{body}");
    let (status, body) = admit(&format!(
        "Host: 127.0.0.1:{port}\r\nContent-Type: text/plain\r\n"
    ));
    assert_eq!(status, 415, "{body}");
    // DNS rebinding: the page's own name, resolved to loopback.
    let (status, body) = admit(&format!(
        "Host: evil.example:{port}\r\nContent-Type: application/json\r\n"
    ));
    assert_eq!(status, 403, "{body}");
    let (status, body) = raw(
        &serve,
        format!("GET /worlds HTTP/1.1\r\nHost: evil.example:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(status, 403, "{body}");
    // Nobody was admitted; the server's own clients are answered.
    let (status, body) = request("GET", &serve.url("/worlds/1"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["players"], 0, "{body}");
    let (status, body) = admit(&format!(
        "Host: localhost:{port}\r\nOrigin: http://localhost:{port}\r\nContent-Type: application/json\r\n"
    ));
    assert_eq!(status, 201, "{body}");
}
