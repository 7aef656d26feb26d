//! `game:engine/queries`: the entities that have a set of components, and
//! their fields as columns, in one call; and columns written back in one.
//!
//! The scene's game data ([`GameData::query`](crate::scene::GameData))
//! answers which entities match and the columns of the game's components;
//! `Transform` and `Name` columns are read here, through the same calls as
//! `entities`, so a script's own writes of the frame are read back and its
//! transform writes are kept as theirs are (`guest::pending`). A query
//! answers only the entities the script may read; a write traps, as
//! `entities` does, on one it may not change.

use crate::guest::ScriptState;
use crate::guest::bindings::queries::{Column as WitColumn, Host, Query as WitQuery, Rows};
use crate::guest::bindings::scene::EntityId as WitEntityId;
use crate::guest::pending::{Fields, POSITION, ROTATION, SCALE, write_fields};
use crate::scene::{
    Column, FieldPath, NAME_COMPONENT, Query, TRANSFORM, TRANSFORM_COMPONENT, Transform,
    is_entity_component, transform_floats,
};

type Answer<T> = wasmtime::Result<Result<T, String>>;

impl From<Column> for WitColumn {
    fn from(column: Column) -> Self {
        match column {
            Column::Numbers(c) => WitColumn::Numbers(c),
            Column::Integers(c) => WitColumn::Integers(c),
            Column::Booleans(c) => WitColumn::Booleans(c),
            Column::Texts(c) => WitColumn::Texts(c),
            Column::Vec3s(c) => WitColumn::Vec3s(c),
            Column::Quats(c) => WitColumn::Quats(c),
        }
    }
}

impl From<WitColumn> for Column {
    fn from(column: WitColumn) -> Self {
        match column {
            WitColumn::Numbers(c) => Column::Numbers(c),
            WitColumn::Integers(c) => Column::Integers(c),
            WitColumn::Booleans(c) => Column::Booleans(c),
            WitColumn::Texts(c) => Column::Texts(c),
            WitColumn::Vec3s(c) => Column::Vec3s(c),
            WitColumn::Quats(c) => Column::Quats(c),
        }
    }
}

/// The transform field `path` names, and its floats in a transform's 10.
fn transform_part(path: &FieldPath) -> (Fields, std::ops::Range<usize>) {
    let floats = transform_floats(&path.field);
    let fields = match floats.start {
        0 => POSITION,
        3 => ROTATION,
        _ => SCALE,
    };
    (fields, floats)
}

fn parse_fields(fields: &[String]) -> Result<Vec<FieldPath>, String> {
    fields.iter().map(|f| FieldPath::parse(f)).collect()
}

impl Host for ScriptState {
    fn run(&mut self, q: WitQuery) -> Answer<Rows> {
        let query = match parse_fields(&q.fields) {
            Ok(fields) => Query {
                fields,
                with: q.filter_with,
                without: q.filter_without,
            },
            Err(e) => return Ok(Err(e)),
        };
        let named = (query.fields.iter().map(|f| f.component.as_str()))
            .chain(query.with.iter().map(String::as_str))
            .chain(query.without.iter().map(String::as_str))
            .filter(|c| !is_entity_component(c));
        let access = self.may_read_game(named)?;
        let rows = match self.with_game(access, |data| data.query(&query)) {
            Ok(rows) => rows,
            Err(e) => return Ok(Err(e)),
        };
        let found = rows.ids.len();
        let (kept, ids) = self.readable_of(rows.ids);
        let whole = kept.len() == found;
        self.pending.answer(&ids);
        let mut transforms = Vec::new();
        let unfilled = |(f, c): (&FieldPath, &Option<Column>)| {
            f.component == TRANSFORM_COMPONENT && c.is_none()
        };
        if query.fields.iter().zip(&rows.columns).any(unfilled) {
            let readable = self.may_read_all(&ids)?;
            if let Err(id) = self.entity_transforms(readable, &mut transforms) {
                return Ok(Err(format!("queries: entity {id} is gone")));
            }
        }
        let mut columns = Vec::with_capacity(query.fields.len());
        for (path, column) in query.fields.iter().zip(rows.columns) {
            let column = match column {
                // The scene's transforms, with the script's own writes of
                // the frame on top (as `entity_transforms` reads them).
                Some(column) if path.component == TRANSFORM_COMPONENT => {
                    let mut column = if whole {
                        column
                    } else {
                        select(&column, &kept)
                    };
                    if let Some(values) = column.floats_mut() {
                        self.own_writes_on_top(transform_floats(&path.field), &ids, values);
                    }
                    column
                }
                Some(column) if whole => column,
                Some(column) => select(&column, &kept),
                None if path.component == NAME_COMPONENT => {
                    let names = ids.iter().map(|&id| {
                        self.entity_name(crate::scene::EntityId::from(id))
                            .unwrap_or_default()
                    });
                    Column::Texts(names.collect())
                }
                // No entity matched: the scene made no column for it.
                None if path.component != TRANSFORM_COMPONENT => Column::Numbers(Vec::new()),
                None => {
                    let range = transform_floats(&path.field);
                    let values = transforms.as_chunks::<TRANSFORM>().0;
                    let mut column = Column::for_transform(&range, values.len());
                    let floats = column.floats_mut().expect("a transform column");
                    for t in values {
                        floats.extend_from_slice(&t[range.clone()]);
                    }
                    column
                }
            };
            columns.push(column.into());
        }
        Ok(Ok(Rows { ids, columns }))
    }

    fn write(
        &mut self,
        ids: Vec<WitEntityId>,
        fields: Vec<String>,
        columns: Vec<WitColumn>,
    ) -> Answer<()> {
        let paths = match parse_fields(&fields) {
            Ok(paths) => paths,
            Err(e) => return Ok(Err(e)),
        };
        if paths.len() != columns.len() {
            return Ok(Err(format!(
                "queries: write got {} fields and {} columns; it takes one column a field",
                paths.len(),
                columns.len()
            )));
        }
        let columns: Vec<Column> = columns.into_iter().map(Column::from).collect();
        let (mut game, mut own) = (Vec::new(), Vec::new());
        for (path, column) in paths.into_iter().zip(columns) {
            if path.component == NAME_COMPONENT {
                return Ok(Err("queries: `Name` is read-only".to_owned()));
            }
            if let Err(e) = column.check_length(&path, ids.len()) {
                return Ok(Err(e));
            }
            match path.is_entity_field() {
                true => own.push((path, column)),
                false => game.push((path, column)),
            }
        }
        for (path, column) in &own {
            let (_, range) = transform_part(path);
            let fits = matches!(
                (column, range.len()),
                (Column::Quats(_), 4) | (Column::Vec3s(_), 3)
            );
            if !fits {
                return Ok(Err(format!(
                    "queries: the column of `{path}` must be {}",
                    if range.len() == 4 { "quats" } else { "vec3s" }
                )));
            }
        }
        let writable = self.may_write_all(&ids)?;
        // Every id must name an entity this call sees before anything
        // changes: the game's data first, then the transforms.
        if let Some(gone) = (!own.is_empty())
            .then(|| self.first_missing(&ids))
            .flatten()
        {
            return Ok(Err(format!("queries: no entity has id {gone}")));
        }
        if !game.is_empty() {
            let access = self.may_write_game(game.iter().map(|(p, _)| p.component.as_str()))?;
            let (paths, columns): (Vec<FieldPath>, Vec<Column>) = game.into_iter().unzip();
            let written = self.with_game(access, |data| data.write_columns(&ids, &paths, &columns));
            if let Err(e) = written {
                return Ok(Err(e));
            }
        }
        for (path, column) in own {
            let (fields, _) = transform_part(&path);
            let value = |at: usize| {
                let mut t = Transform::default();
                match &column {
                    Column::Quats(c) => t.rotation = glam::Quat::from_slice(&c[at * 4..at * 4 + 4]),
                    Column::Vec3s(c) => {
                        let v = glam::Vec3::from_slice(&c[at * 3..at * 3 + 3]);
                        match fields {
                            POSITION => t.position = v,
                            _ => t.scale = v,
                        }
                    }
                    _ => {}
                }
                t
            };
            let set = self.write_entities(writable, fields, value, |scene| {
                scene.check(&ids)?;
                for (at, &id) in ids.iter().enumerate() {
                    write_fields(scene, crate::scene::EntityId::from(id), fields, &value(at));
                }
                Ok(())
            });
            if let Err(id) = set {
                return Ok(Err(format!("queries: no entity has id {id}")));
            }
        }
        Ok(Ok(()))
    }
}

/// The values of `column` at positions `kept`.
fn select(column: &Column, kept: &[usize]) -> Column {
    let mut out = match column {
        Column::Numbers(_) => Column::Numbers(Vec::new()),
        Column::Integers(_) => Column::Integers(Vec::new()),
        Column::Booleans(_) => Column::Booleans(Vec::new()),
        Column::Texts(_) => Column::Texts(Vec::new()),
        Column::Vec3s(_) => Column::Vec3s(Vec::new()),
        Column::Quats(_) => Column::Quats(Vec::new()),
    };
    for &at in kept {
        out.push(column.value(at)).expect("one kind");
    }
    out
}
