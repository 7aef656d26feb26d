//! A web site of a game's own, on another origin than the game server's: a
//! few files served over plain HTTP on a free loopback port (what a game's
//! page is served from in the cross-origin tests).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

/// Files served at `http://127.0.0.1:PORT/PATH` until the test ends.
pub struct Site {
    /// `http://127.0.0.1:PORT`: the site's origin.
    pub origin: String,
}

impl Site {
    /// Serves `files`: each a path (`/index.html`), a content type and a
    /// body. Anything else is a 404.
    pub fn serve(files: Vec<(String, &'static str, String)>) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                // The headers, to the blank line.
                let mut header = String::new();
                while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                    header.clear();
                }
                let path = line.split(' ').nth(1).unwrap_or("/");
                let path = path.split('?').next().unwrap_or(path);
                let found = files.iter().find(|(at, _, _)| at == path);
                let answer = match found {
                    Some((_, kind, body)) => format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\
                         connection: close\r\n\r\n{body}",
                        body.len()
                    ),
                    None => {
                        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            .to_owned()
                    }
                };
                let _ = (&stream).write_all(answer.as_bytes());
            }
        });
        Site { origin }
    }
}
