//! What a script may touch: [`Grants`] per script, as a game declares them
//! ([`GrantFile`], [`GrantPolicy`]) and a script asks for them
//! ([`GrantSpec`] embedded by `host build`). A leaf, like
//! [`limits`](crate::limits): plain configuration, checked by the guest
//! boundary.
//!
//! Where each grant is enforced:
//! - `imports`: when a component is given its grants
//!   ([`ScriptComponent::with_grants`](crate::ScriptComponent::with_grants)):
//!   a compiled script importing an interface outside them is refused, with
//!   one line naming it. A live Python or JavaScript script runs in a runtime
//!   that imports everything: its sources' imports are checked the same way,
//!   and the interfaces it is not granted are linked to functions that trap
//!   naming the grant.
//! - `writes`, `reads`: at each write (a transform, a despawn, a motion,
//!   game data) or read (a transform, game data): one of an entity the
//!   script did not spawn and whose name the grant does not allow traps
//!   with an error naming the entity. The script is taken out of the frame,
//!   as after any trap; the game goes on. The host functions reach the
//!   scene only with a proof of the check (`guest::store::access`).
//! - `data_reads`, `data_writes`: at each game-data call, by component.
//! - `send`, `listen`, `keys`: when the script sends, waits or listens (a
//!   trap naming the channel or the keys).
//! - `jobs`: when the script asks for a job (a trap naming the kind).
//! - `deadline_ms`, `memory_mib`, `quotas`: they lower the script's limits.
//!
//! [`GUARDS`] says which keys guard each interface; the list of interfaces
//! is made from `wit/` at build time and a test fails when one has no row.

mod effective;
mod guards;
mod rule;
mod source;
mod spec;

pub use effective::Grants;
pub use guards::{GUARDS, KEYS};
pub use rule::NameRule;
pub use source::ScriptOrigin;
pub use spec::{GrantFile, GrantPolicy, GrantSpec, INTERFACES};
