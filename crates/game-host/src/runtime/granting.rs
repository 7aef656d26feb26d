//! [`Granting`]: a runtime's [`GrantPolicy`], given to each component it
//! starts (once per component: the check and its log line are not
//! repeated per instance).

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Result;

use crate::grants::{GrantPolicy, Grants};
use crate::guest::engine::ScriptComponent;

/// Components given their grants, kept for the next instance; cleared when
/// this many are kept (a long session of hot-swaps loads many versions).
const KEPT: usize = 64;

/// Which component (its name, code and grants so far) was given which
/// grants.
type Key = (Arc<str>, [u8; 32], usize);

#[derive(Default)]
pub(crate) struct Granting {
    policy: GrantPolicy,
    given: HashMap<Key, ScriptComponent>,
}

impl Granting {
    pub fn new(policy: GrantPolicy) -> Self {
        Granting {
            policy,
            given: HashMap::new(),
        }
    }

    /// `component` with its grants under the policy (itself when the policy
    /// grants everything); fails when the script may not run under them.
    pub fn apply(&mut self, component: &ScriptComponent) -> Result<ScriptComponent> {
        if self.policy.files().is_empty() {
            return Ok(component.clone());
        }
        let key = component.grant_key();
        if let Some(given) = self.given.get(&key) {
            return Ok(given.clone());
        }
        let grants = self.policy.grants_for(component.name(), &Grants::all());
        let given = component.with_grants(&grants)?;
        if self.given.len() >= KEPT {
            self.given.clear();
        }
        self.given.insert(key, given.clone());
        self.given.insert(given.grant_key(), given.clone());
        Ok(given)
    }
}
