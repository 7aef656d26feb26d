//! `game:engine/motion`: host-driven movement toward a target.

use wasmtime::component::Resource;

use crate::guest::bindings::motion::Host;
use crate::guest::bindings::types::Vec3;
use crate::guest::{Command, ScriptState};
use crate::scene::TransformHandle;

impl Host for ScriptState {
    fn move_to(
        &mut self,
        token: u64,
        entity: Resource<TransformHandle>,
        target: Vec3,
        speed: f32,
    ) -> wasmtime::Result<()> {
        let entity = self.table.get(&entity)?.entity();
        self.push_command(Command::MoveTo {
            token,
            entity,
            target: target.into(),
            speed,
        })
    }
}
