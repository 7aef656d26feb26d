//! [`GameTypes`], [`Record`] and [`FieldType`]: what a game's description
//! holds, as `description` reads it and `wit` writes it.

use super::kind::Kind;

/// A game's description: its name and, in its order, its components and
/// resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameTypes {
    /// The game's name, a WIT namespace (`spin-demo`).
    pub name: String,
    /// Its components.
    pub components: Vec<Record>,
    /// Its resources.
    pub resources: Vec<Record>,
}

/// A described component or resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its name in the game (`Spin`), as `game-data` names it.
    pub name: String,
    /// Its WIT name (`spin`).
    pub wit: String,
    /// Its fields, in the game's order.
    pub fields: Vec<FieldType>,
}

/// A described field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldType {
    /// Its name in the game (`max_hp`), as `game-data` names it.
    pub name: String,
    /// Its WIT name (`max-hp`).
    pub wit: String,
    /// Its type.
    pub kind: Kind,
}
