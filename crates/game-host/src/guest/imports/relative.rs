//! `game:engine/relative`: moves and turns that combine. Two scripts that
//! each turn one entity in a frame both turn it: the changes are applied in
//! the frame's call order, on what earlier calls left (`guest::pending`),
//! where `entity.set-rotation` would keep only the later value.

use crate::guest::ScriptState;
use crate::guest::bindings::relative::Host;
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::guest::bindings::types::{Quat, Vec3};
use crate::guest::store::view::Nudge;
use crate::scene::EntityId;

use super::entities::unknown;

impl ScriptState {
    fn nudge(&mut self, id: WitEntityId, nudge: Nudge) -> wasmtime::Result<()> {
        let writable = self.may_write(EntityId::from(id))?;
        if self.nudge_entity(writable, nudge) {
            Ok(())
        } else {
            Err(unknown("relative", id))
        }
    }
}

impl Host for ScriptState {
    fn translate(&mut self, id: WitEntityId, offset: Vec3) -> wasmtime::Result<()> {
        let offset: glam::Vec3 = offset.into();
        if !offset.is_finite() {
            return Err(wasmtime::format_err!(
                "relative: translate by {offset}, which is not finite"
            ));
        }
        self.nudge(id, Nudge::Translate(offset))
    }

    fn rotate(&mut self, id: WitEntityId, delta: Quat) -> wasmtime::Result<()> {
        let delta: glam::Quat = delta.into();
        // Changes combine: one script's NaN would spoil every other
        // script's turn of the entity, so it is refused here.
        if !delta.is_finite() || delta.length_squared() < 1e-12 {
            return Err(wasmtime::format_err!(
                "relative: rotate by {delta}, which is no rotation (zero or not finite)"
            ));
        }
        self.nudge(id, Nudge::Rotate(delta))
    }
}
