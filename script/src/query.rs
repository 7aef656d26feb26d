//! Queries over the game's entities (`game:engine/queries`): every entity
//! that has a set of components, with the fields asked for as columns, in
//! one call; and columns written back in one.
//!
//! ```ignore
//! use script::query::{Column, Query};
//!
//! let rows = Query::new(&["Spin.speed", "Transform.position"])
//!     .with(&["Enemy"])
//!     .without(&["Frozen"])
//!     .run()?;
//! let speeds = rows.numbers(0)?;
//! let mut positions = rows.vec3s(1)?.to_vec();
//! for (at, p) in positions.chunks_mut(3).enumerate() {
//!     p[1] += speeds[at] as f32 * script::time::delta_time();
//! }
//! script::query::write(&rows.ids, &["Transform.position"], vec![Column::Vec3s(positions)])?;
//! ```
//!
//! Fields are named `Component.field`: the game's registered components
//! (under `host run`, what scripts inserted with [`crate::data::insert`]),
//! `Transform.position`, `.rotation` and `.scale`, and `Name`. A failure
//! is one line naming the component and the field. Buffered
//! [`crate::entities`] writes go first.

use crate::bindings::game::engine::queries as wit;
pub use crate::bindings::game::engine::queries::Column;
use crate::entities::{self, EntityId};

/// A query: the fields to read, and the components an entity must (or
/// must not) also have.
#[derive(Debug, Clone, Default)]
pub struct Query {
    fields: Vec<String>,
    with: Vec<String>,
    without: Vec<String>,
}

/// A query's answer: the entities found, in id order, and one column per
/// field asked for.
#[derive(Debug, Clone)]
pub struct Rows {
    /// The entities found.
    pub ids: Vec<EntityId>,
    /// One column per field, in the query's order.
    pub columns: Vec<Column>,
}

impl Query {
    /// A query reading `fields` (`Spin.speed`, `Transform.position`,
    /// `Name`) of the entities that have their components.
    pub fn new(fields: &[&str]) -> Self {
        Query {
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
            ..Query::default()
        }
    }

    /// Only entities that also have each of `components`.
    pub fn with(mut self, components: &[&str]) -> Self {
        self.with.extend(components.iter().map(|c| (*c).to_owned()));
        self
    }

    /// Only entities that have none of `components`.
    pub fn without(mut self, components: &[&str]) -> Self {
        self.without
            .extend(components.iter().map(|c| (*c).to_owned()));
        self
    }

    /// Runs the query: one host call.
    pub fn run(&self) -> Result<Rows, String> {
        entities::flush();
        let rows = wit::run(&wit::Query {
            fields: self.fields.clone(),
            filter_with: self.with.clone(),
            filter_without: self.without.clone(),
        })?;
        Ok(Rows {
            ids: rows.ids,
            columns: rows.columns,
        })
    }
}

macro_rules! column_of {
    ($($name:ident: $case:ident => $ty:ty, $what:literal;)*) => {
        impl Rows {
            $(
                #[doc = concat!("Column `at` as ", $what, ", or why not.")]
                pub fn $name(&self, at: usize) -> Result<&[$ty], String> {
                    match self.columns.get(at) {
                        Some(Column::Numbers(values)) if values.is_empty() => Ok(&[]),
                        Some(Column::$case(values)) => Ok(values),
                        Some(other) => Err(format!("column {at} is not {}: {other:?}", $what)),
                        None => Err(format!("the query has no column {at}")),
                    }
                }
            )*
        }
    };
}

column_of! {
    numbers: Numbers => f64, "numbers";
    integers: Integers => i64, "integers";
    booleans: Booleans => bool, "booleans";
    texts: Texts => String, "texts";
    vec3s: Vec3s => f32, "vec3s (3 floats each)";
    quats: Quats => f32, "quats (4 floats each)";
}

/// Sets `fields` of entities `ids` to `columns` (one per field, one value
/// per id): one host call. Nothing changes if it fails.
pub fn write(ids: &[EntityId], fields: &[&str], columns: Vec<Column>) -> Result<(), String> {
    entities::flush();
    let fields: Vec<String> = fields.iter().map(|f| (*f).to_owned()).collect();
    wit::write(ids, &fields, &columns)
}
