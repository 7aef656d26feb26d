//! The web origins whose pages may let players in ([`AllowedOrigins`],
//! `--allow-origin`): a game page served from its own site calls
//! `POST /play` and opens the player's stream across origins. For those
//! origins the public routes answer CORS (the preflight, and
//! `Access-Control-Allow-Origin` on the answer, [`AllowedOrigins::answer`]),
//! as the client library's files do (a page may import them from the game
//! server); a request from any other site is refused outright (403), so a
//! page the operator did not allow takes no seat, whatever the browser
//! would have shown it.

use anyhow::{Result, bail};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, HeaderMap, HeaderValue, VARY,
};

/// Origins allowed besides the server's own: `scheme://host[:port]`, or
/// `*` for every page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins(Vec<String>);

impl AllowedOrigins {
    /// Checks each origin's form: `http(s)://host[:port]`, with nothing
    /// after it, or `*`.
    pub fn new<S: AsRef<str>>(origins: &[S]) -> Result<Self> {
        let mut allowed = Vec::new();
        for origin in origins {
            let origin = origin.as_ref().trim();
            if origin != "*" {
                let Some(rest) = origin
                    .strip_prefix("https://")
                    .or_else(|| origin.strip_prefix("http://"))
                else {
                    bail!(
                        "--allow-origin `{origin}` is not an origin: give `https://HOST[:PORT]` \
                         (or `http://`), or `*`"
                    );
                };
                if rest.is_empty() || rest.contains(['/', '?', '#', ' ', '@', '*']) {
                    bail!(
                        "--allow-origin `{origin}` is not an origin: a page's origin is \
                         `https://HOST[:PORT]`, with no path (not even `/`) and no wildcard \
                         (`*` alone allows every page)"
                    );
                }
                let default = if origin.starts_with("https://") {
                    ":443"
                } else {
                    ":80"
                };
                if rest.ends_with(default) {
                    bail!(
                        "--allow-origin `{origin}`: a browser leaves the scheme's own port \
                         out of a page's origin; give `{}`",
                        origin.trim_end_matches(default)
                    );
                }
            }
            allowed.push(origin.to_ascii_lowercase());
        }
        Ok(AllowedOrigins(allowed))
    }

    /// No origin but the server's own.
    pub fn none() -> Self {
        AllowedOrigins::default()
    }

    /// Whether a page from `origin` (a request's `Origin` header) may let
    /// its player in.
    pub fn allows(&self, origin: &str) -> bool {
        self.0
            .iter()
            .any(|allowed| allowed == "*" || allowed.eq_ignore_ascii_case(origin))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Lets the page of `origin` (a request's `Origin`, if any) read the
    /// answer whose headers are `headers`, if its origin is allowed; a
    /// `preflight`'s answer also names the method and header it may send.
    pub(crate) fn answer(&self, origin: Option<&str>, headers: &mut HeaderMap, preflight: bool) {
        let Some(origin) = origin.filter(|origin| self.allows(origin)) else {
            return;
        };
        let Ok(origin) = HeaderValue::from_str(origin) else {
            return;
        };
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(VARY, HeaderValue::from_static("Origin"));
        headers.insert(
            ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("retry-after"),
        );
        if preflight {
            headers.insert(
                ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("POST"),
            );
            headers.insert(
                ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("content-type"),
            );
            headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_checked_for_their_form_and_matched_exactly() {
        let allowed =
            AllowedOrigins::new(&["https://game.example", "http://127.0.0.1:8080"]).unwrap();
        assert!(allowed.allows("https://game.example"));
        assert!(allowed.allows("HTTPS://Game.Example"));
        assert!(allowed.allows("http://127.0.0.1:8080"));
        assert!(!allowed.allows("http://game.example"));
        assert!(!allowed.allows("https://game.example:8443"));
        assert!(!allowed.allows("https://evil.game.example"));
        assert!(!allowed.allows("null"));
        assert!(AllowedOrigins::new(&["*"]).unwrap().allows("null"));
        assert!(!AllowedOrigins::none().allows("https://game.example"));
        for bad in [
            "game.example",
            "https://game.example/",
            "https://",
            "ftp://x",
        ] {
            let error = AllowedOrigins::new(&[bad]).unwrap_err().to_string();
            assert!(error.contains(&format!("`{bad}`")), "{bad}: {error}");
        }
    }
}
