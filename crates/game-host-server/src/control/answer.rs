//! [`Answer`]: what the control surface answers, besides a stream's
//! upgrade: a status, a body and its type, as the handlers and the guards
//! make it, and the HTTP response it becomes.

use axum::body::Body;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue, REFERRER_POLICY,
    WWW_AUTHENTICATE,
};
use axum::http::{Response, StatusCode};
use axum::response::IntoResponse;
use serde_json::json;

/// An answer: status, body and its type.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub body: String,
    pub content_type: &'static str,
    /// Ask for a bearer token (`WWW-Authenticate: Bearer`), with a 401.
    pub challenge: bool,
}

impl Answer {
    pub fn json(status: u16, value: serde_json::Value) -> Answer {
        Answer {
            status,
            body: format!("{value}\n"),
            content_type: "application/json",
            challenge: false,
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            body: body.into(),
            content_type: "text/plain; charset=utf-8",
            challenge: false,
        }
    }

    pub fn error(status: u16, error: impl std::fmt::Display) -> Answer {
        Answer::json(status, json!({ "error": format!("{error:#}") }))
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response<Body> {
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        if self.challenge {
            headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if self.content_type.starts_with("text/html") {
            // The view page's address holds a player's token: no referrer,
            // no cache, and nothing loaded or connected to but this server.
            headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
            headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(
                CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'none'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; \
                     style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'",
                ),
            );
        }
        response
    }
}
