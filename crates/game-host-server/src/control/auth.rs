//! [`ControlToken`]: the bearer token that requests changing the worlds
//! (`POST`, `DELETE`) must carry. Health, readiness, metrics and the list
//! of worlds stay open, for probes and scrapers.

use std::path::Path;

use anyhow::{Context, Result, bail};
use hyper::HeaderMap;
use hyper::header::AUTHORIZATION;
use sha2::{Digest, Sha256};

use super::answer::Answer;

/// The environment variable a token may come from instead of a file.
pub(crate) const TOKEN_ENV: &str = game_host::secrets::CONTROL_TOKEN_ENV;

/// Longest token file read (a token is a line of text).
const MAX_TOKEN_FILE: u64 = 4 << 10;

/// Fewest characters of a token.
const MIN_TOKEN: usize = 16;

/// A bearer token, kept only as its SHA-256 digest, so comparing a
/// request's token with it takes the same time whatever the two share.
#[derive(Clone)]
pub struct ControlToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for ControlToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ControlToken(..)")
    }
}

impl ControlToken {
    /// A token from its text (at least 16 characters, no whitespace).
    pub fn new(text: &str) -> Result<Self> {
        let text = text.trim();
        if text.len() < MIN_TOKEN || text.chars().any(char::is_whitespace) {
            bail!("a control token is one word of at least {MIN_TOKEN} characters");
        }
        Ok(ControlToken {
            digest: Sha256::digest(text.as_bytes()).into(),
        })
    }

    /// The token in `file` (a regular file of at most 4 KiB holding one
    /// word), else in `$GAME_HOST_CONTROL_TOKEN`, else none.
    pub fn load(file: Option<&Path>) -> Result<Option<Self>> {
        if let Some(file) = file {
            let read = || -> Result<Self> {
                let meta = std::fs::metadata(file)?;
                if !meta.is_file() || meta.len() > MAX_TOKEN_FILE {
                    bail!("it is not a regular file of at most {MAX_TOKEN_FILE} bytes");
                }
                ControlToken::new(&std::fs::read_to_string(file)?)
            };
            return read()
                .with_context(|| format!("cannot use the token file `{}`", file.display()))
                .map(Some);
        }
        match std::env::var(TOKEN_ENV) {
            Ok(text) if !text.trim().is_empty() => ControlToken::new(&text)
                .with_context(|| format!("cannot use ${TOKEN_ENV}"))
                .map(Some),
            _ => Ok(None),
        }
    }

    /// Whether `headers` carry this token as `Authorization: Bearer ...`;
    /// the 401 answer if not.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Answer> {
        let Some(given) = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return Err(unauthorized(
                "this request changes the worlds and needs `Authorization: Bearer <token>`",
            ));
        };
        let digest: [u8; 32] = Sha256::digest(given.trim().as_bytes()).into();
        let differ = digest
            .iter()
            .zip(&self.digest)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if differ == 0 {
            Ok(())
        } else {
            Err(unauthorized("the bearer token is wrong"))
        }
    }

    /// What a node of a fleet sends another with a request it passes on
    /// for a client that carries no token (a player's join): it proves the
    /// sender holds the fleet's token (every node has the same) without
    /// sending the token, which this server keeps only as its digest.
    /// Whoever reads it off the fleet's network can send it again, as they
    /// could the token itself (that network is trusted: see `relay`).
    pub(crate) fn peer_proof(&self) -> String {
        let mut proof = Sha256::new();
        proof.update(b"game-host peer\0");
        proof.update(self.digest);
        proof
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    /// Whether `headers` carry [`ControlToken::peer_proof`] in
    /// [`PEER_PROOF`], compared in the same time whatever the two share.
    pub(crate) fn proves_peer(&self, headers: &HeaderMap) -> bool {
        let Some(given) = headers.get(PEER_PROOF).map(|v| v.as_bytes()) else {
            return false;
        };
        let proof = self.peer_proof();
        given.len() == proof.len()
            && given
                .iter()
                .zip(proof.as_bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// The header [`ControlToken::peer_proof`] travels in.
pub(crate) const PEER_PROOF: &str = "x-game-host-peer";

fn unauthorized(why: &str) -> Answer {
    Answer {
        challenge: true,
        ..Answer::error(401, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(authorization: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(AUTHORIZATION, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn only_the_right_bearer_token_passes() {
        let token = ControlToken::new("correct-horse-battery\n").unwrap();
        assert!(
            token
                .check(&headers(Some("Bearer correct-horse-battery")))
                .is_ok()
        );
        for (given, why) in [
            (None, "needs `Authorization: Bearer <token>`"),
            (Some("Basic Y29ycmVjdA=="), "needs `Authorization: Bearer"),
            (
                Some("Bearer correct-horse-batter"),
                "the bearer token is wrong",
            ),
            (Some("Bearer "), "the bearer token is wrong"),
        ] {
            let answer = token.check(&headers(given)).unwrap_err();
            assert_eq!(answer.status, 401);
            assert!(answer.challenge);
            assert!(answer.body.contains(why), "{given:?}: {}", answer.body);
        }
    }

    #[test]
    fn short_or_spaced_tokens_are_refused() {
        assert!(ControlToken::new("short").is_err());
        assert!(ControlToken::new("two words of a token").is_err());
        assert!(
            format!("{:?}", ControlToken::new("0123456789abcdef").unwrap()) == "ControlToken(..)"
        );
    }

    #[test]
    fn a_peer_proves_it_holds_the_token_without_sending_it() {
        let token = ControlToken::new("correct-horse-battery").unwrap();
        let proof = token.peer_proof();
        assert!(!proof.contains("correct-horse-battery"));
        let mut headers = HeaderMap::new();
        assert!(!token.proves_peer(&headers));
        headers.insert(PEER_PROOF, HeaderValue::from_str(&proof).unwrap());
        assert!(token.proves_peer(&headers));
        let other = ControlToken::new("another-horse-battery").unwrap();
        assert!(!other.proves_peer(&headers));
        headers.insert(PEER_PROOF, HeaderValue::from_str(&proof[1..]).unwrap());
        assert!(!token.proves_peer(&headers));
    }
}
