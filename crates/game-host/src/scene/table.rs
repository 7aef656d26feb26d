//! [`DataTable`]: the core scene's game data, the components scripts
//! insert, by entity and name. A component's fields and their kinds are
//! fixed when it is inserted: a write to a field it lacks, or of another
//! kind, fails naming it.

use std::collections::{BTreeMap, HashMap};

use super::data::{no_component, no_field, wrong_kind};
use super::entity::EntityId;
use super::query::{Query, Rows, fill_columns};
use super::value::{Field, Value};

/// The most bytes of game data (names and values) the scene holds, so that
/// scripts inserting components cannot exhaust the host's memory.
pub(super) const MAX_BYTES: usize = 64 << 20;

/// Components by entity, then by name (each its fields in order).
#[derive(Debug, Default)]
pub(super) struct DataTable {
    by_entity: HashMap<u32, BTreeMap<String, Vec<Field>>>,
    /// Bytes held, as [`size_of_component`] counts them.
    bytes: usize,
}

/// The bytes a component's name and fields take, roughly (what the bound
/// counts).
fn size_of_component(name: &str, fields: &[Field]) -> usize {
    name.len()
        + fields
            .iter()
            .map(|f| 32 + f.name.len() + size_of_value(&f.value))
            .sum::<usize>()
}

/// The bytes a value takes, as [`size_of_component`] counts them.
fn size_of_value(value: &Value) -> usize {
    match value {
        Value::Text(text) => text.len(),
        Value::Numbers(list) => list.len() * 8,
        _ => 16,
    }
}

impl DataTable {
    pub(super) fn has(&self, id: EntityId, component: &str) -> bool {
        self.component(id, component).is_some()
    }

    pub(super) fn get(&self, id: EntityId, component: &str) -> Result<Vec<Field>, String> {
        self.component(id, component)
            .cloned()
            .ok_or_else(|| no_component(id, component))
    }

    pub(super) fn set_field(
        &mut self,
        id: EntityId,
        component: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String> {
        let fields = self
            .by_entity
            .get_mut(&id.0)
            .and_then(|components| components.get_mut(component))
            .ok_or_else(|| no_component(id, component))?;
        let slot = fields
            .iter_mut()
            .find(|f| f.name == field)
            .ok_or_else(|| no_field(id, component, field))?;
        let value = value
            .fit(slot.value.kind())
            .map_err(|why| wrong_kind(id, component, field, &why))?;
        let (old, new) = (
            size_of_component("", std::slice::from_ref(slot)),
            size_of_component("", &[Field::new(field, value.clone())]),
        );
        if self.bytes - old + new > MAX_BYTES {
            return Err(full(id, component));
        }
        self.bytes = self.bytes - old + new;
        slot.value = value;
        Ok(())
    }

    /// The values of fields `names`, in that order, looked up once.
    pub(super) fn get_fields(
        &self,
        id: EntityId,
        component: &str,
        names: &[String],
    ) -> Result<Vec<Value>, String> {
        let fields = (self.component(id, component)).ok_or_else(|| no_component(id, component))?;
        names
            .iter()
            .map(|name| {
                (fields.iter().find(|f| f.name == *name))
                    .map(|f| f.value.clone())
                    .ok_or_else(|| no_field(id, component, name))
            })
            .collect()
    }

    /// Sets fields `names` of the component to `values`, all or none:
    /// every name and kind is checked, and the bound kept, before any
    /// changes.
    pub(super) fn set_fields(
        &mut self,
        id: EntityId,
        component: &str,
        names: &[String],
        values: Vec<Value>,
    ) -> Result<(), String> {
        let fields = (self.by_entity.get_mut(&id.0))
            .and_then(|components| components.get_mut(component))
            .ok_or_else(|| no_component(id, component))?;
        let mut slots = Vec::with_capacity(names.len());
        let mut grown = 0isize;
        for (name, value) in names.iter().zip(values) {
            let at = (fields.iter().position(|f| f.name == *name))
                .ok_or_else(|| no_field(id, component, name))?;
            let value = (value.fit(fields[at].value.kind()))
                .map_err(|why| wrong_kind(id, component, name, &why))?;
            grown += size_of_value(&value) as isize - size_of_value(&fields[at].value) as isize;
            slots.push((at, value));
        }
        let bytes = self.bytes.saturating_add_signed(grown);
        if bytes > MAX_BYTES {
            return Err(full(id, component));
        }
        self.bytes = bytes;
        for (at, value) in slots {
            fields[at].value = value;
        }
        Ok(())
    }

    pub(super) fn insert(
        &mut self,
        id: EntityId,
        component: &str,
        fields: Vec<Field>,
    ) -> Result<(), String> {
        if component.is_empty() {
            return Err(format!(
                "game-data: a component of entity {} needs a name",
                id.index()
            ));
        }
        for (at, field) in fields.iter().enumerate() {
            if fields[..at].iter().any(|f| f.name == field.name) {
                return Err(format!(
                    "game-data: component `{component}` for entity {} names field `{}` twice",
                    id.index(),
                    field.name
                ));
            }
        }
        let old = self
            .component(id, component)
            .map_or(0, |old| size_of_component(component, old));
        let new = size_of_component(component, &fields);
        if self.bytes - old + new > MAX_BYTES {
            return Err(full(id, component));
        }
        self.bytes = self.bytes - old + new;
        self.by_entity
            .entry(id.0)
            .or_default()
            .insert(component.to_owned(), fields);
        Ok(())
    }

    pub(super) fn remove(&mut self, id: EntityId, component: &str) -> bool {
        let Some(components) = self.by_entity.get_mut(&id.0) else {
            return false;
        };
        let removed = components.remove_entry(component);
        if let Some((name, fields)) = &removed {
            self.bytes -= size_of_component(name, fields);
        }
        if components.is_empty() {
            self.by_entity.remove(&id.0);
        }
        removed.is_some()
    }

    /// Drops every component of a despawned entity.
    pub(super) fn forget(&mut self, id: EntityId) {
        if let Some(components) = self.by_entity.remove(&id.0) {
            for (name, fields) in &components {
                self.bytes -= size_of_component(name, fields);
            }
        }
    }

    /// The entities of `living` (in id order) that match `query`, with
    /// the columns of its game fields.
    pub(super) fn query(
        &self,
        living: impl Iterator<Item = u32>,
        query: &Query,
    ) -> Result<Rows, String> {
        let required = query.required();
        let mut rows = Rows {
            ids: Vec::new(),
            columns: vec![None; query.fields.len()],
        };
        if query.excludes_all() {
            return Ok(rows);
        }
        let empty = BTreeMap::new();
        for id in living {
            let components = self.by_entity.get(&id).unwrap_or(&empty);
            if !required.iter().all(|c| components.contains_key(*c))
                || query.without.iter().any(|c| components.contains_key(c))
            {
                continue;
            }
            let entity = EntityId(id);
            fill_columns(query, 0, &mut rows.columns, |_, path| {
                components[path.component.as_str()]
                    .iter()
                    .find(|f| f.name == path.field)
                    .map(|f| f.value.clone())
                    .ok_or_else(|| {
                        no_field(entity, &path.component, &path.field).replacen(
                            "game-data",
                            "queries",
                            1,
                        )
                    })
            })?;
            rows.ids.push(id);
        }
        Ok(rows)
    }

    fn component(&self, id: EntityId, component: &str) -> Option<&Vec<Field>> {
        self.by_entity.get(&id.0)?.get(component)
    }
}

fn full(id: EntityId, component: &str) -> String {
    format!(
        "game-data: cannot store `{component}` on entity {}: the scene holds its most game \
         data ({} MiB)",
        id.index(),
        MAX_BYTES >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_and_set_together_all_or_none() {
        let mut table = DataTable::default();
        let id = EntityId(1);
        let health = vec![
            Field::new("current", Value::Number(3.0)),
            Field::new("max", Value::Number(5.0)),
        ];
        table.insert(id, "Health", health).unwrap();
        let names = ["max".to_owned(), "current".to_owned()];
        let read = |table: &DataTable| table.get_fields(id, "Health", &names).unwrap();
        assert_eq!(read(&table), [Value::Number(5.0), Value::Number(3.0)]);

        let refused = table.set_fields(
            id,
            "Health",
            &names,
            vec![Value::Number(6.0), Value::Boolean(true)],
        );
        assert!(refused.unwrap_err().contains("Health.current"));
        assert_eq!(
            read(&table),
            [Value::Number(5.0), Value::Number(3.0)],
            "nothing changed"
        );

        table
            .set_fields(
                id,
                "Health",
                &names,
                vec![Value::Integer(6), Value::Number(4.0)],
            )
            .unwrap();
        assert_eq!(read(&table), [Value::Number(6.0), Value::Number(4.0)]);
        let missing = table.get_fields(id, "Health", &["armor".to_owned()]);
        assert!(missing.unwrap_err().contains("no field `armor`"));
    }

    #[test]
    fn fields_keep_their_kind_and_names_are_checked() {
        let mut table = DataTable::default();
        let id = EntityId(3);
        let spin = vec![Field::new("speed", Value::Number(1.0))];
        table.insert(id, "Spin", spin).unwrap();
        table
            .set_field(id, "Spin", "speed", Value::Integer(2))
            .unwrap();
        assert_eq!(
            table.get(id, "Spin").unwrap(),
            [Field::new("speed", Value::Number(2.0))]
        );
        assert_eq!(
            table.set_field(id, "Spin", "speed", Value::Boolean(true)),
            Err(
                "game-data: cannot set `Spin.speed` of entity 3: the field is a number \
                 and the value a boolean"
                    .into()
            )
        );
        assert_eq!(
            table.set_field(id, "Spin", "sped", Value::Number(0.0)),
            Err("game-data: component `Spin` of entity 3 has no field `sped`".into())
        );
        assert_eq!(
            table.get(id, "Health"),
            Err("game-data: entity 3 has no component `Health`".into())
        );
        assert!(table.remove(id, "Spin"));
        assert!(!table.has(id, "Spin"));
        assert!(!table.remove(id, "Spin"));
        assert_eq!(table.bytes, 0);
    }

    #[test]
    fn the_table_is_bounded() {
        let mut table = DataTable::default();
        let big = vec![Field::new("text", Value::Text("x".repeat(1 << 20)))];
        for n in 0..63 {
            table.insert(EntityId(n), "Big", big.clone()).unwrap();
        }
        let error = table.insert(EntityId(63), "Big", big.clone()).unwrap_err();
        assert!(
            error.contains("holds its most game data (64 MiB)"),
            "{error}"
        );
        table.forget(EntityId(0));
        table.insert(EntityId(63), "Big", big).unwrap();
    }
}
