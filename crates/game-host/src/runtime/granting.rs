//! [`Granting`]: a runtime's [`GrantPolicy`], given to each component it
//! starts (once per component: the check and its log line are not
//! repeated per instance).

use anyhow::Result;

use crate::grants::{GrantPolicy, Grants, ScriptOrigin};
use crate::guest::engine::ScriptComponent;

/// Components given their grants, kept for the next instance; the oldest
/// goes when this many are kept (a long session of hot-swaps loads many
/// versions).
const KEPT: usize = 64;

#[derive(Default)]
pub(crate) struct Granting {
    policy: GrantPolicy,
    /// (the component as given, the same with its grants): a component is
    /// found again only if it is the same in every way that matters (see
    /// [`ScriptComponent::same_as`]).
    given: Vec<(ScriptComponent, ScriptComponent)>,
}

impl Granting {
    pub fn new(policy: GrantPolicy) -> Self {
        Granting {
            policy,
            given: Vec::new(),
        }
    }

    /// `component` with its grants under the policy (itself when the policy
    /// grants everything); fails when the script may not run under them.
    pub fn apply(&mut self, component: &ScriptComponent) -> Result<ScriptComponent> {
        if self.policy.files().is_empty() {
            return Ok(component.clone());
        }
        let found = self
            .given
            .iter()
            .find(|(asked, granted)| asked.same_as(component) || granted.same_as(component));
        if let Some((_, granted)) = found {
            return Ok(granted.clone());
        }
        // By where the script came from, never by the name it chose: the
        // real path, with `..` and links resolved, so no spelling of a path
        // reaches another folder's table.
        let path = component.source().map(|path| {
            std::fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_owned())
        });
        let digest = component.digest_hex();
        let origin = ScriptOrigin {
            path: path.as_deref(),
            sha256: &digest,
        };
        let grants = self.policy.grants_for(origin, &Grants::all());
        let granted = component.with_grants(&grants)?;
        if self.given.len() >= KEPT {
            self.given.remove(0);
        }
        self.given.push((component.clone(), granted.clone()));
        Ok(granted)
    }
}
