//! [`Conn`]: one thread's connection to Redis, with timeouts, made
//! again after a failure (a restarted Redis, a dropped socket).

use std::time::Duration;

use redis::{Connection, RedisResult};

/// How long connecting, and any one command, may take.
const TIMEOUT: Duration = Duration::from_secs(2);

/// A connection, made when first used and after one fails.
pub(crate) struct Conn {
    client: redis::Client,
    con: Option<Connection>,
    timeout: Duration,
}

impl Conn {
    pub fn new(client: redis::Client) -> Conn {
        Conn::with_timeout(client, TIMEOUT)
    }

    /// A connection whose connecting and commands take at most `timeout`
    /// (a lease's renewals must not outlast the lease).
    pub fn with_timeout(client: redis::Client, timeout: Duration) -> Conn {
        Conn {
            client,
            con: None,
            timeout,
        }
    }

    fn get(&mut self) -> RedisResult<&mut Connection> {
        if self.con.is_none() {
            let con = self.client.get_connection_with_timeout(self.timeout)?;
            con.set_read_timeout(Some(self.timeout))?;
            con.set_write_timeout(Some(self.timeout))?;
            self.con = Some(con);
        }
        Ok(self.con.as_mut().expect("made above"))
    }

    /// Runs `f` on the connection; a connection that failed is dropped,
    /// and the next call makes a new one.
    pub fn run<T>(&mut self, f: impl FnOnce(&mut Connection) -> RedisResult<T>) -> RedisResult<T> {
        let result = self.get().and_then(f);
        if let Err(error) = &result
            && unreachable(error)
        {
            self.con = None;
        }
        result
    }
}

/// Whether `error` says Redis could not be reached (as opposed to an
/// answer it gave).
pub(crate) fn unreachable(error: &redis::RedisError) -> bool {
    error.is_io_error() || error.is_timeout() || error.is_connection_dropped()
}
