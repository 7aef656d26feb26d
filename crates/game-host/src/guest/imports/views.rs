//! `game:engine/views`: which entities each player of a served world sees,
//! and the components that stream to players. Each call is checked here
//! (grants, the entity, the player, the values) and kept as a command,
//! applied after the frame's calls in the instances' order.

use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::guest::bindings::views::Host;
use crate::guest::{Command, ScriptState};
use crate::scene::EntityId;
use crate::views::PlayerId;
use crate::views::{Interest, ViewChange};

/// Longest name of a replicated component, in bytes.
const MAX_COMPONENT_NAME: usize = 64;

impl ScriptState {
    /// Deciding who sees an entity is a write on it: the script must be
    /// allowed to write it, and it must exist.
    fn view_of(&mut self, id: WitEntityId) -> wasmtime::Result<u32> {
        let entity = EntityId::from(id);
        self.may_write(entity)?;
        if !self.entity_exists(entity) {
            return Err(wasmtime::format_err!("views: no entity {id}"));
        }
        Ok(id)
    }

    /// A change naming a player no longer (or never) in the world is not
    /// kept: ids are never reused, so it could not matter.
    fn view_change(&mut self, player: PlayerId, change: ViewChange) -> wasmtime::Result<()> {
        if !self.players.roster.contains(player) {
            return Ok(());
        }
        self.push_command(Command::View(change))
    }
}

impl Host for ScriptState {
    fn show_to(&mut self, entity: WitEntityId, player: PlayerId) -> wasmtime::Result<()> {
        let entity = self.view_of(entity)?;
        self.view_change(player, ViewChange::ShowTo(entity, player))
    }

    fn hide_from(&mut self, entity: WitEntityId, player: PlayerId) -> wasmtime::Result<()> {
        let entity = self.view_of(entity)?;
        self.view_change(player, ViewChange::HideFrom(entity, player))
    }

    fn show_to_all(&mut self, entity: WitEntityId) -> wasmtime::Result<()> {
        let entity = self.view_of(entity)?;
        self.push_command(Command::View(ViewChange::ShowToAll(entity)))
    }

    fn set_interest(
        &mut self,
        player: PlayerId,
        center: WitEntityId,
        radius: f32,
    ) -> wasmtime::Result<()> {
        if !(radius.is_finite() && radius > 0.0) {
            return Err(wasmtime::format_err!(
                "views: set-interest of player {player} with radius {radius}: it must be finite \
                 and above zero"
            ));
        }
        let center = EntityId::from(center);
        // What the player sees of every entity changes (a tiny radius hides
        // them all), replacing any other script's interest: the script must
        // be allowed to write every entity (the center among them).
        self.may_write_every("set a player's interest")?;
        if !self.entity_exists(center) {
            return Err(wasmtime::format_err!("views: no entity {}", center.index()));
        }
        let interest = Interest {
            center: center.index() as u32,
            radius,
        };
        self.view_change(player, ViewChange::SetInterest(player, interest))
    }

    fn clear_interest(&mut self, player: PlayerId) -> wasmtime::Result<()> {
        // It undoes what another script may have set: only a script that
        // may write every entity may.
        self.may_write_every("clear a player's interest")?;
        self.view_change(player, ViewChange::ClearInterest(player))
    }

    fn replicate(&mut self, component: String) -> wasmtime::Result<()> {
        if component.is_empty() || component.len() > MAX_COMPONENT_NAME {
            return Err(wasmtime::format_err!(
                "views: replicate `{component}`: a component's name is 1 to \
                 {MAX_COMPONENT_NAME} bytes"
            ));
        }
        // Its fields go to players, for every entity that has it: the
        // script must be allowed to read it, on every entity.
        self.may_read_game([component.as_str()])?;
        self.may_read_every(&format!("replicate `{component}`"))?;
        self.push_command(Command::View(ViewChange::Replicate(component)))
    }
}
