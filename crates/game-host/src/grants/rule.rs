//! [`NameRule`]: which names (of entities, or of event channels) a grant
//! allows, as layers of patterns that must all allow a name.

use std::fmt;
use std::sync::Arc;

/// Names a grant allows. Each layer is a list of patterns (an exact name,
/// or `*` matching any run of characters, as in `enemy-*`); a name is
/// allowed when every layer has a pattern that matches it. No layers: every
/// name. A policy adds a layer; narrowing it (a world's own grants) adds
/// another, so a narrower grant can never allow more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameRule {
    layers: Vec<Arc<[String]>>,
}

impl NameRule {
    /// Every name.
    pub fn any() -> Self {
        NameRule::default()
    }

    /// Only the names `patterns` match.
    pub fn only<S: AsRef<str>>(patterns: &[S]) -> Self {
        NameRule::any().and(patterns)
    }

    /// This rule, also requiring a match in `patterns`.
    pub fn and<S: AsRef<str>>(mut self, patterns: &[S]) -> Self {
        let layer: Arc<[String]> = patterns.iter().map(|p| p.as_ref().to_owned()).collect();
        self.add(layer);
        self
    }

    /// Adds `layer`, unless the rule has it already (it would change
    /// nothing).
    fn add(&mut self, layer: Arc<[String]>) {
        if !self.layers.contains(&layer) {
            self.layers.push(layer);
        }
    }

    /// What both this rule and `other` allow.
    pub fn both(&self, other: &NameRule) -> NameRule {
        let mut both = self.clone();
        for layer in &other.layers {
            both.add(layer.clone());
        }
        both
    }

    /// Whether it allows every name (no layer restricts it).
    pub fn is_any(&self) -> bool {
        self.layers.is_empty()
    }

    /// Whether it allows `name`.
    pub fn allows(&self, name: &str) -> bool {
        self.layers
            .iter()
            .all(|layer| layer.iter().any(|pattern| matches(pattern, name)))
    }
}

/// `["cube", "enemy-*"]`; layers joined with ` and `; `*` when any.
impl fmt::Display for NameRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.layers.is_empty() {
            return f.write_str("any");
        }
        for (i, layer) in self.layers.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{layer:?}")?;
        }
        Ok(())
    }
}

/// Whether `name` matches `pattern`, where `*` matches any run of
/// characters (none included) and every other character itself.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: the whole name
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_names_with_stars() {
        assert!(matches("cube", "cube"));
        assert!(!matches("cube", "cubes"));
        assert!(!matches("cube", "cub"));
        assert!(matches("enemy-*", "enemy-1"));
        assert!(matches("enemy-*", "enemy-"));
        assert!(!matches("enemy-*", "ally-1"));
        assert!(matches("*", ""));
        assert!(matches("*-moon", "py-moon"));
        assert!(matches("a*b*c", "a-x-b-y-c"));
        assert!(!matches("a*b*c", "a-x-c-y-b"));
        assert!(!matches("ab*ba", "aba"));
    }

    #[test]
    fn every_layer_must_allow_a_name() {
        let rule = NameRule::only(&["enemy-*", "cube"]).and(&["enemy-*"]);
        assert!(rule.allows("enemy-3"));
        assert!(!rule.allows("cube"));
        assert!(NameRule::any().allows("anything"));
        assert!(!NameRule::only::<&str>(&[]).allows("cube"));
        assert_eq!(rule.to_string(), r#"["enemy-*", "cube"] and ["enemy-*"]"#);
        assert_eq!(
            rule.both(&rule),
            rule,
            "a layer it has already changes nothing"
        );
    }
}
