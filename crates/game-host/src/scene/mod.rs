//! The scene shared by every script: named entities, each with a transform.
//!
//! Scripts, the renderer and `--dump-scene` reach it through [`GameScene`]
//! (`game_scene`), the seam an embedder implements over its own entities.
//! The core's own [`Scene`] (`own`) keeps entities in creation order in one
//! flat vector, addressed by index ([`EntityId`]). A runtime holds one
//! [`SharedScene`] (`any`): the core's scene, called directly, or an
//! engine's, called through the trait.

mod any;
mod data;
mod digest;
mod dump;
mod entity;
mod game_scene;
mod handle;
mod own;
mod query;
mod table;
mod value;

pub use any::{AnyScene, SharedScene};
pub use data::{GameData, fields_json, no_component, no_entity, no_field, no_resource, wrong_kind};
pub use digest::{digest, entity_digest, entity_digests};
pub use dump::SceneDump;
pub use entity::{CUBE, Entity, EntityId, Transform};
pub use game_scene::{GameScene, QUAT, TRANSFORM, VEC3, floats_of, transform_of};
pub use handle::TransformHandle;
pub use own::Scene;
pub use query::{
    Column, FieldPath, NAME_COMPONENT, Query, Rows, TRANSFORM_COMPONENT, fill_columns,
    is_entity_component, registered_list, transform_floats, wrong_column,
};
pub use value::{Field, Value};
