//! What each player of a served world sees (`game:engine/views`): per
//! entity, or within a radius of the player's own entity, and which of the
//! game's components stream to players with the entities.
//!
//! ```ignore
//! use script::players::{self, PlayerEvent};
//! use script::views;
//!
//! // Each player sees what is within 20 units of its avatar, and every
//! // entity's `Health` as it changes.
//! views::replicate("Health");
//! if let PlayerEvent::Joined(player) = event {
//!     let avatar = script::scene::spawn("avatar");
//!     views::set_interest(player, avatar.id(), 20.0);
//! }
//! ```
//!
//! Every player sees every entity until a script says otherwise. Changes
//! take effect after the frame; outside a server they change nothing.

use crate::bindings::game::engine::scene::EntityId;
use crate::bindings::game::engine::views as wit;
use crate::players::PlayerId;

/// Shows `entity` to `player`. An entity every player sees (the default)
/// is from then on seen only by the players it is shown to.
pub fn show_to(entity: EntityId, player: PlayerId) {
    wit::show_to(entity, player);
}

/// Hides `entity` from `player`.
pub fn hide_from(entity: EntityId, player: PlayerId) {
    wit::hide_from(entity, player);
}

/// Every player sees `entity` again.
pub fn show_to_all(entity: EntityId) {
    wit::show_to_all(entity);
}

/// `player` sees only the entities within `radius` of `center` (usually
/// its own entity, which it always sees).
pub fn set_interest(player: PlayerId, center: EntityId, radius: f32) {
    wit::set_interest(player, center, radius);
}

/// `player`'s view is no longer limited by distance.
pub fn clear_interest(player: PlayerId) {
    wit::clear_interest(player);
}

/// The game-data component `component` streams to players with every
/// entity that has it, as its fields change.
pub fn replicate(component: &str) {
    wit::replicate(component);
}
