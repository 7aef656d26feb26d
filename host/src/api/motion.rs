//! `game:engine/motion`: host-driven movement toward a target.

use wasmtime::component::Resource;

use crate::api::scene::TransformHandle;
use crate::bindings::motion::Host;
use crate::bindings::types::Vec3;
use crate::state::{Request, ScriptState};

impl Host for ScriptState {
    fn move_to(
        &mut self,
        token: u64,
        entity: Resource<TransformHandle>,
        target: Vec3,
        speed: f32,
    ) -> wasmtime::Result<()> {
        let entity = self.table.get(&entity)?.entity();
        self.requests.push(Request::MoveTo {
            token,
            entity,
            target: target.into(),
            speed,
        });
        Ok(())
    }
}
