//! [`Watching`]: a `host run --watch` in the background (started directly
//! or through a package's launcher), its stderr collected by line.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A watching host and what it has said so far.
pub struct Watching {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Watching {
    /// Starts `command` (a `host run ... --watch`) in a process group of
    /// its own, so that a launcher's child stops with it.
    pub fn start(mut command: Command) -> Watching {
        let mut child = command
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start host run --watch");
        let lines: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = lines.clone();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Watching { child, lines }
    }

    /// How many lines so far contain `needle`.
    pub fn count(&self, needle: &str) -> usize {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(needle))
            .count()
    }

    /// Waits (up to a generous limit: builds share two cores with the rest
    /// of the tests) until `needle` has appeared `times` times.
    pub fn wait_for(&self, needle: &str, times: usize) {
        let deadline = Instant::now() + Duration::from_secs(240);
        while self.count(needle) < times {
            assert!(
                Instant::now() < deadline,
                "no `{needle}` (x{times}) within 240 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Everything said so far.
    pub fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        // The whole group: a launcher and the host it started.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
