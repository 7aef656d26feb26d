//! The guest's stdout and stderr: each complete line becomes a log record
//! tagged with the script's name and instance id.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

use super::{LogLevel, LogSource, ScriptIdentity};

/// Longest line kept before it is logged without waiting for a newline.
const MAX_LINE: usize = 64 * 1024;

/// A `StdoutStream` that logs lines for one instance.
#[derive(Clone)]
pub(crate) struct ScriptStdio {
    identity: Arc<ScriptIdentity>,
    source: LogSource,
}

impl ScriptStdio {
    pub fn stdout(identity: Arc<ScriptIdentity>) -> Self {
        ScriptStdio {
            identity,
            source: LogSource::Stdout,
        }
    }

    pub fn stderr(identity: Arc<ScriptIdentity>) -> Self {
        ScriptStdio {
            identity,
            source: LogSource::Stderr,
        }
    }

    fn writer(&self) -> LineWriter {
        LineWriter {
            stdio: self.clone(),
            line: Vec::new(),
        }
    }
}

impl IsTerminal for ScriptStdio {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for ScriptStdio {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.writer())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.writer())
    }
}

/// Buffers bytes until a newline, then logs the line.
struct LineWriter {
    stdio: ScriptStdio,
    line: Vec<u8>,
}

impl LineWriter {
    fn push(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            match chunk.strip_suffix(b"\n") {
                Some(rest) => {
                    self.line.extend_from_slice(rest);
                    self.emit();
                }
                None => {
                    self.line.extend_from_slice(chunk);
                    if self.line.len() >= MAX_LINE {
                        self.emit();
                    }
                }
            }
        }
    }

    fn emit(&mut self) {
        let text = String::from_utf8_lossy(&self.line)
            .trim_end_matches('\r')
            .to_owned();
        self.line.clear();
        if text.trim().is_empty() {
            return;
        }
        let level = match self.stdio.source {
            LogSource::Stderr => LogLevel::Warn,
            _ => LogLevel::Info,
        };
        self.stdio.identity.log(level, self.stdio.source, text);
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            self.emit();
        }
    }
}

#[async_trait::async_trait]
impl Pollable for LineWriter {
    async fn ready(&mut self) {}
}

impl OutputStream for LineWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(MAX_LINE)
    }
}

impl tokio::io::AsyncWrite for LineWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.get_mut().push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
