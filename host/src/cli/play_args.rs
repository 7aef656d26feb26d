//! `host serve --play GAME`: the public join's options (`POST /play`,
//! players joining from any page with no token), and what the control
//! surface is given of them.

use std::time::Duration;

use anyhow::Result;
use clap::Args;
use game_host_server::control::{AllowedOrigins, JoinRate, Play};

use super::ranges::number_in;

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// Let players join game NAME from any page, with no token: `POST
    /// /play {"game": "NAME"}` seats a player in the first world with room
    /// (--max-players), or starts a new world of these scripts. Joins are
    /// counted per client address (--joins-per-minute); pages of other
    /// sites need --allow-origin.
    #[arg(long, value_name = "NAME", value_parser = game_name)]
    pub play: Option<String>,

    /// A web origin whose pages may let players in (POST /play, CORS, and
    /// the players' streams): `https://HOST[:PORT]`, or `*` for any page;
    /// repeat for more. Without it, only the server's own pages may.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,

    /// With --play: joins one client address may make per minute, after
    /// its first --join-burst (a proxy in front of the server counts as one
    /// address). Past it a join is answered 429 with `Retry-After`.
    #[arg(long, value_name = "N", default_value_t = 30, requires = "play",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    joins_per_minute: u32,

    /// With --play: stop a world the join started once no player's client
    /// has been connected to it for S seconds.
    #[arg(long, value_name = "S", default_value_t = 60.0, requires = "play",
          value_parser = number_in(0.1, 86_400.0))]
    empty_world_seconds: f64,

    /// With --play: joins one client address may make at once.
    #[arg(long, value_name = "N", default_value_t = 10, requires = "play",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    join_burst: u32,
}

impl PlayArgs {
    /// The public join, if asked for.
    pub fn play(&self) -> Option<Play> {
        self.play.clone().map(|game| Play {
            game,
            rate: JoinRate {
                per_minute: self.joins_per_minute,
                burst: self.join_burst,
            },
            empty_world_ends: Duration::from_secs_f64(self.empty_world_seconds),
        })
    }

    /// The origins whose pages may let players in, checked.
    pub fn allowed_origins(&self) -> Result<AllowedOrigins> {
        AllowedOrigins::new(&self.allow_origin)
    }
}

/// A game's name, as players join it: a few plain characters.
fn game_name(name: &str) -> Result<String, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() || name.len() > 64 || !name.chars().all(plain) {
        return Err(format!(
            "`{name}` is not a game name: 1 to 64 letters, digits, `-`, `_` or `.`"
        ));
    }
    Ok(name.to_owned())
}
