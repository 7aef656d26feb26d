//! Looking up what scripts name, in a lent [`BevyScene`]: a registered
//! component with its reflection, a registered resource, a script id's
//! Bevy entity; each failure as `game-data`'s one line.

use bevy::ecs::reflect::ReflectComponent;
use bevy::prelude::ReflectDefault;
use game_host::scene::{EntityId, no_entity, no_resource, registered_list};

use crate::registry::{ResourceType, ScriptAccess};
use crate::scene::BevyScene;

impl BevyScene {
    /// The registered component named `component`, with its reflection,
    /// or why there is none. With `write`, also fails for a component the
    /// game registered as read-only.
    pub(crate) fn registered(
        &self,
        component: &str,
        write: bool,
    ) -> Result<(ReflectComponent, Option<ReflectDefault>), String> {
        let registered = self.access.components.get(component).ok_or_else(|| {
            let names: Vec<&str> = self.access.components.names().collect();
            format!(
                "game-data: no component named `{component}` is registered for scripts \
                 (registered: {})",
                registered_list(&names)
            )
        })?;
        if write && registered.access == ScriptAccess::Read {
            return Err(format!(
                "game-data: the game lets scripts read `{component}`, not write it"
            ));
        }
        let types = self
            .access
            .types
            .as_ref()
            .ok_or_else(|| "game-data: the app has no type registry".to_owned())?
            .read();
        let registration = types
            .get(registered.type_id)
            .ok_or_else(|| format!("game-data: `{component}` is not in the type registry"))?;
        let reflect = registration
            .data::<ReflectComponent>()
            .cloned()
            .ok_or_else(|| format!("game-data: `{component}` does not reflect Component"))?;
        Ok((reflect, registration.data::<ReflectDefault>().cloned()))
    }

    /// The registered resource named `name`, or why there is none.
    pub(crate) fn resource_type(&self, name: &str) -> Result<ResourceType, String> {
        self.access.resources.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.access.resources.names().collect();
            no_resource(name, &names)
        })
    }

    pub(crate) fn bevy_entity(&self, id: EntityId) -> Result<bevy::prelude::Entity, String> {
        self.entity(id)
            .filter(|&e| self.world.get_entity(e).is_ok())
            .ok_or_else(|| no_entity(id))
    }
}
