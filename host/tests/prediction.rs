//! Prediction in the players' browsers (`game:engine` world `predictor`):
//! `host build --predictor` makes dash's browser form with jco and refuses
//! a script that calls more than the world imports; `host serve
//! --predictor` serves it beside that very component and refuses one made
//! from another; then the client library's own tests of prediction run
//! under Node against a real `host serve`, through a relay that delays
//! each way (`client/test/predict.test.mjs`), and print what they
//! measured; and the view page predicts in chromium, through the same
//! relay, with its overlay (a picture of it is kept).

mod common;

use std::process::Command;

use sha2::{Digest, Sha256};

/// `host build examples/NAME --predictor -o OUT`, with jco on PATH.
fn build_predictor(name: &str, out: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_host"))
        .args(["build", &format!("examples/{name}"), "--predictor", "-o"])
        .arg(out)
        .arg("--cache-dir")
        .arg(common::cache_dir())
        .env("PATH", common::tool_path())
        .env("NO_COLOR", "1")
        .current_dir(common::workspace())
        .output()
        .unwrap()
}

#[test]
fn the_browser_predicts_with_the_servers_own_component() {
    let dir = tempfile::tempdir().unwrap();
    let dash = dir.path().join("dash.wasm");
    let built = build_predictor("dash", &dash);
    let said = common::stderr_of(&built);
    assert!(built.status.success(), "{said}");
    let predictor = dir.path().join("dash.predictor");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(predictor.join("predictor.json")).unwrap()).unwrap();
    let digest = game_host::hex::hex(&Sha256::digest(std::fs::read(&dash).unwrap()));
    assert_eq!(manifest["sha256"], digest.as_str(), "{said}");
    assert!(said.contains("wrote `"), "{said}");
    for file in manifest["files"].as_array().unwrap() {
        assert!(predictor.join(file.as_str().unwrap()).is_file(), "{file}");
    }

    // Arena waits on its players' events (`tasks`): it cannot predict.
    let arena = dir.path().join("arena.wasm");
    let refused = build_predictor("arena", &arena);
    assert!(!refused.status.success());
    let why = common::stderr_of(&refused);
    assert!(
        why.contains("`arena` cannot predict in the browser: it calls `tasks.")
            && why.contains("a predictor may call only controls, entities, entity, log, relative, runtime, scene"),
        "{why}"
    );
    assert!(!dir.path().join("arena.predictor").exists());

    // A predictor beside a component it was not made from is refused.
    let served = common::run_host(
        &[
            "serve",
            arena.to_str().unwrap(),
            "--predictor",
            predictor.to_str().unwrap(),
            "--seconds",
            "1",
        ],
        &common::cache_dir(),
    );
    assert!(!served.status.success());
    let why = common::stderr_of(&served);
    assert!(
        why.contains(&format!(
            "was built from a component (sha256:{digest}) that is none of the scripts given"
        )),
        "{why}"
    );

    let gust = common::build("gust");
    let mut node = Command::new("node");
    // A test that hangs fails within its timeout, as one that fails.
    node.args(["--experimental-websocket", "--test", "--test-reporter=spec"])
        .arg("--test-timeout=240000")
        .arg("test/predict.test.mjs")
        .current_dir(common::workspace().join("client"))
        .env("GAME_HOST_BIN", env!("CARGO_BIN_EXE_host"))
        .env("ARENA", &arena)
        .env("DASH", &dash)
        .env("PREDICTOR", &predictor)
        .env("GUST", &gust)
        .env("GAME_HOST_CACHE_DIR", common::cache_dir());
    let output = node.output().expect("node runs (./test.sh installs it)");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The measurements, for whoever reads the test's output.
    println!("{report}");
    assert!(
        output.status.success() && report.contains("ℹ pass 7") && report.contains("ℹ fail 0"),
        "{report}"
    );
}

/// The client tests' delay relay (`client/test/serve.mjs`) in a Node
/// process of its own, to the server on `port`; stopped when dropped.
struct DelayRelay {
    child: std::process::Child,
    url: String,
}

impl DelayRelay {
    fn start(port: &str, delay_ms: u32, jitter_ms: u32) -> DelayRelay {
        use std::io::BufRead;
        let script = format!(
            "import {{ delayRelay }} from './test/serve.mjs';\n\
             const relay = await delayRelay({port}, {{ delayMs: {delay_ms}, jitterMs: {jitter_ms} }});\n\
             console.log(relay.url);"
        );
        let mut child = Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .current_dir(common::workspace().join("client"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node runs (./test.sh installs it)");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("http://"), "the relay said {line:?}");
        DelayRelay {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for DelayRelay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_view_page_predicts_and_overlays_the_servers_position_in_chromium() {
    use common::browser::{Browser, Driver};
    use common::serve::Serve;
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let dash = dir.path().join("dash.wasm");
    let built = build_predictor("dash", &dash);
    assert!(built.status.success(), "{}", common::stderr_of(&built));
    let predictor = dir.path().join("dash.predictor");
    let gust = common::build("gust");
    let serve = Serve::start(&[
        "examples/arena",
        dash.to_str().unwrap(),
        gust.to_str().unwrap(),
        "--predictor",
        predictor.to_str().unwrap(),
    ]);
    let (_, stream) = common::client::admit(&serve, 1);
    let view = stream.replace("/stream?", "/view?") + "&overlay=1";
    let driver = Driver::start();
    let browser = Browser::open(&driver);
    // Through the Node tests' delay relay, 50 ± 10 ms each way.
    let port = serve.addr.rsplit(':').next().unwrap();
    let relay = DelayRelay::start(port, 50, 10);
    browser.post(
        "/url",
        serde_json::json!({"url": format!("{}{view}", relay.url)}),
    );
    browser.wait_for(
        "return document.body.dataset.predicting || ''",
        "dash",
        Duration::from_secs(30),
    );
    // Right held: dash moves the entity at once, and the gusts (one a
    // second, which only the server runs) are corrected. The picture is
    // taken while it moves, the server's position a round trip behind.
    // Right until the first correction, then left until the second (so
    // it stays on the canvas).
    let corrected = |count: u32| {
        format!("return String(Number(document.body.dataset.corrections || 0) >= {count})")
    };
    browser.key("\u{E014}", true);
    browser.wait_for(&corrected(1), "true", Duration::from_secs(10));
    browser.key("\u{E014}", false);
    browser.key("\u{E012}", true);
    browser.wait_for(&corrected(2), "true", Duration::from_secs(10));
    let png = browser.screenshot();
    browser.key("\u{E012}", false);
    let said = browser.eval("return document.getElementById('prediction').textContent");
    assert!(
        said.as_str().unwrap().starts_with("predicting with dash: "),
        "{said}"
    );
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let shot = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("prediction-overlay.png");
    std::fs::write(&shot, &png).unwrap();
    println!("the overlay: {} ({said})", shot.display());
}
