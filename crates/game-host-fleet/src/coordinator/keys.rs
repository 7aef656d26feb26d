//! Where each thing of a fleet is kept in Redis (see the module's
//! index for the whole list).

pub(crate) const NODES: &str = "fleet:nodes";
pub(crate) const NEXT_WORLD: &str = "fleet:next-world";

pub(crate) fn world_key(id: u64) -> String {
    format!("fleet:world:{id}")
}

pub(crate) fn log_key(id: u64, kind: Kind) -> String {
    match kind {
        Kind::Log => format!("fleet:world:{id}:log"),
        Kind::Seats => format!("fleet:world:{id}:seats"),
    }
}

/// The field of a world's hash that holds where its log of `kind` ends.
pub(crate) fn end_field(kind: Kind) -> &'static str {
    match kind {
        Kind::Log => "logend",
        Kind::Seats => "seatsend",
    }
}

pub(crate) fn worlds_key(node: &str) -> String {
    format!("fleet:node:{node}:worlds")
}

pub(crate) fn claims_key(node: &str) -> String {
    format!("fleet:node:{node}:claims")
}

pub(crate) fn lease_key(node: &str) -> String {
    format!("fleet:lease:{node}")
}

pub(crate) fn component_key(sha256: &str) -> String {
    format!("fleet:component:{sha256}")
}

/// Which of a world's two logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Its recording (`log.rec`).
    Log,
    /// Its players' seats (`seats.jsonl`).
    Seats,
}
