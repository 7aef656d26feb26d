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
//! - `writes`: at each write (a transform, a despawn, a motion, game data):
//!   a write to an entity the script did not spawn and whose name the grant
//!   does not allow traps with an error naming the entity. The script is
//!   taken out of the frame, as after any trap; the game goes on.
//! - `send`, `listen`, `keys`: when the script sends, waits or listens (a
//!   trap naming the channel or the keys).
//! - `jobs`: when the script asks for a job (a trap naming the kind).
//! - `deadline_ms`, `memory_mib`, `quotas`: they lower the script's limits.

mod effective;
mod rule;
mod spec;

pub use effective::Grants;
pub use rule::NameRule;
pub use spec::{GrantFile, GrantPolicy, GrantSpec, INTERFACES, ScriptOrigin};
