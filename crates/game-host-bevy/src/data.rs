//! Game data in Bevy: the components a game registers for scripts
//! ([`ScriptApp::register_script_component`](crate::ScriptApp)), read and
//! written by name through Bevy reflection (`reflect`), as the `game-data`
//! interface asks. Each failure is one line naming the entity, the
//! component and the field.

use bevy::reflect::Reflect;
use game_host::scene::{
    Column, EntityId, Field, FieldPath, GameData, Query, Rows, Value, no_component, registered_list,
};

use crate::reflect::{Place, fields_of, write_fields};

use crate::registry::ScriptAccess;
use crate::scene::BevyScene;

impl GameData for BevyScene {
    fn has(&mut self, id: EntityId, component: &str) -> bool {
        let (Ok((reflect, _)), Ok(entity)) =
            (self.registered(component, false), self.bevy_entity(id))
        else {
            return false;
        };
        reflect.contains(self.world.entity(entity))
    }

    fn get(&mut self, id: EntityId, component: &str) -> Result<Vec<Field>, String> {
        let (reflect, _) = self.registered(component, false)?;
        let entity = self.bevy_entity(id)?;
        let value = reflect
            .reflect(self.world.entity(entity))
            .ok_or_else(|| no_component(id, component))?;
        Ok(fields_of(value.as_partial_reflect()))
    }

    fn set_field(
        &mut self,
        id: EntityId,
        component: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String> {
        let (reflect, _) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let mut entity = self.world.entity_mut(entity);
        let mut current = reflect
            .reflect_mut(&mut entity)
            .ok_or_else(|| no_component(id, component))?;
        let target: &mut dyn Reflect = &mut *current;
        write_fields(
            target.as_partial_reflect_mut(),
            Place::Entity(id, component),
            vec![Field::new(field, value)],
        )
    }

    fn insert(&mut self, id: EntityId, component: &str, fields: Vec<Field>) -> Result<(), String> {
        let (reflect, default) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let default = default.ok_or_else(|| {
            format!(
                "game-data: cannot insert `{component}`: the game's type does not reflect Default"
            )
        })?;
        let mut value = default.default();
        write_fields(
            value.as_partial_reflect_mut(),
            Place::Entity(id, component),
            fields,
        )?;
        let types = self.access.types.clone().expect("checked by `registered`");
        let types = types.read();
        let mut entity = self.world.entity_mut(entity);
        reflect.insert(&mut entity, value.as_partial_reflect(), &types);
        Ok(())
    }

    fn query(&mut self, query: &Query) -> Result<Rows, String> {
        self.run_query(query)
    }

    fn write_columns(
        &mut self,
        ids: &[u32],
        fields: &[FieldPath],
        columns: &[Column],
    ) -> Result<(), String> {
        self.write_query_columns(ids, fields, columns)
    }

    fn resource(&mut self, name: &str) -> Result<Vec<Field>, String> {
        let kind = self.resource_type(name)?;
        (kind.read)(&self.world).ok_or_else(|| format!("resources: the game has no `{name}` now"))
    }

    fn set_resource_field(&mut self, name: &str, field: &str, value: Value) -> Result<(), String> {
        let kind = self.resource_type(name)?;
        if kind.access == ScriptAccess::Read {
            return Err(format!(
                "resources: the game lets scripts read `{name}`, not write it"
            ));
        }
        (kind.write)(&mut self.world, name, field, value)
    }

    fn write_message(&mut self, kind: &str, fields: Vec<Field>) -> Result<bool, String> {
        let Some(message) = self.access.messages.get(kind) else {
            let names: Vec<&str> = self.access.messages.names().collect();
            return Err(format!(
                "game-messages: no message type named `{kind}` is registered for scripts \
                 (registered: {})",
                registered_list(&names)
            ));
        };
        (message.write)(&mut self.world, kind, fields).map(|()| true)
    }

    fn remove(&mut self, id: EntityId, component: &str) -> Result<bool, String> {
        let (reflect, _) = self.registered(component, true)?;
        let entity = self.bevy_entity(id)?;
        let mut entity = self.world.entity_mut(entity);
        if !reflect.contains(&entity) {
            return Ok(false);
        }
        reflect.remove(&mut entity);
        Ok(true)
    }
}
