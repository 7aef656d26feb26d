//! [`Views`]: which entities each player of a served world sees, and which
//! of the game's components stream to players with them (the `views` WIT
//! interface). Scripts change them through [`ViewChange`]s, applied after
//! a frame's calls in the instances' order (so the result is the same on
//! any number of frame threads); the server reads them when it publishes a
//! frame. This module holds the rules, not the streams.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::players::PlayerId;

/// Entities with an audience of their own, at most; past this a change
/// that would add one is dropped (and logged once).
pub const MAX_AUDIENCES: usize = 1 << 16;

/// Players named in one entity's audience, at most.
pub const MAX_AUDIENCE_PLAYERS: usize = 1024;

/// Game-data components that stream to players, at most.
pub const MAX_REPLICATED: usize = 64;

/// Who sees one entity, by itself (a player's interest narrows it again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// Every player but these.
    Everyone { except: BTreeSet<PlayerId> },
    /// Only these players.
    Only(BTreeSet<PlayerId>),
}

impl Audience {
    /// Whether `player` is in the audience.
    pub fn admits(&self, player: PlayerId) -> bool {
        match self {
            Audience::Everyone { except } => !except.contains(&player),
            Audience::Only(players) => players.contains(&player),
        }
    }
}

/// A player whose view is limited by distance: it sees the entities within
/// `radius` of entity `center`'s position (and `center` itself).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interest {
    pub center: u32,
    pub radius: f32,
}

impl Interest {
    /// Whether an entity at `position` is within the interest of a player
    /// whose center is at `center`.
    #[inline]
    pub fn covers(&self, center: [f32; 3], position: [f32; 3]) -> bool {
        let d = [
            position[0] - center[0],
            position[1] - center[1],
            position[2] - center[2],
        ];
        d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= self.radius * self.radius
    }
}

/// One change a script made to the views.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewChange {
    ShowTo(u32, PlayerId),
    HideFrom(u32, PlayerId),
    ShowToAll(u32),
    SetInterest(PlayerId, Interest),
    ClearInterest(PlayerId),
    Replicate(String),
}

/// The world's views: entities' audiences, players' interests, and the
/// replicated components.
#[derive(Debug, Clone, Default)]
pub struct Views {
    audiences: HashMap<u32, Audience>,
    interests: BTreeMap<PlayerId, Interest>,
    replicated: Vec<String>,
    /// Whether a change was dropped for a cap since the last log line.
    capped: bool,
}

impl Views {
    /// Applies one change. One past a cap is dropped and logged (once
    /// until a change fits again).
    pub fn apply(&mut self, change: ViewChange) {
        let fits = match change {
            ViewChange::ShowTo(entity, player) => self.show_to(entity, player),
            ViewChange::HideFrom(entity, player) => self.hide_from(entity, player),
            ViewChange::ShowToAll(entity) => {
                self.audiences.remove(&entity);
                true
            }
            ViewChange::SetInterest(player, interest) => {
                self.interests.insert(player, interest);
                true
            }
            ViewChange::ClearInterest(player) => {
                self.interests.remove(&player);
                true
            }
            ViewChange::Replicate(component) => {
                if self.replicated.contains(&component) {
                    true
                } else if self.replicated.len() < MAX_REPLICATED {
                    self.replicated.push(component);
                    true
                } else {
                    false
                }
            }
        };
        if !fits && !self.capped {
            tracing::warn!(
                target: "host",
                "views: a change was dropped: at most {MAX_AUDIENCES} entities with an audience, \
                 {MAX_AUDIENCE_PLAYERS} players in one, and {MAX_REPLICATED} replicated components"
            );
        }
        self.capped = !fits;
    }

    fn audience(&mut self, entity: u32) -> Option<&mut Audience> {
        let full = self.audiences.len() >= MAX_AUDIENCES;
        if full && !self.audiences.contains_key(&entity) {
            return None;
        }
        Some(self.audiences.entry(entity).or_insert(Audience::Everyone {
            except: BTreeSet::new(),
        }))
    }

    fn show_to(&mut self, entity: u32, player: PlayerId) -> bool {
        let Some(audience) = self.audience(entity) else {
            return false;
        };
        match audience {
            Audience::Everyone { except } if except.is_empty() => {
                *audience = Audience::Only(BTreeSet::from([player]));
            }
            Audience::Everyone { except } => {
                except.remove(&player);
            }
            Audience::Only(players) => {
                if players.len() >= MAX_AUDIENCE_PLAYERS {
                    return false;
                }
                players.insert(player);
            }
        }
        true
    }

    fn hide_from(&mut self, entity: u32, player: PlayerId) -> bool {
        let Some(audience) = self.audience(entity) else {
            return false;
        };
        match audience {
            Audience::Everyone { except } => {
                if except.len() >= MAX_AUDIENCE_PLAYERS {
                    return false;
                }
                except.insert(player);
            }
            Audience::Only(players) => {
                players.remove(&player);
            }
        }
        true
    }

    /// A player left: its interest ends, and no audience names it.
    pub fn player_left(&mut self, player: PlayerId) {
        self.interests.remove(&player);
        for audience in self.audiences.values_mut() {
            match audience {
                Audience::Everyone { except } => except.remove(&player),
                Audience::Only(players) => players.remove(&player),
            };
        }
    }

    /// Forgets the audiences of entities for which `alive` is false.
    pub fn retain_entities(&mut self, mut alive: impl FnMut(u32) -> bool) {
        self.audiences.retain(|id, _| alive(*id));
    }

    /// Whether every player sees every entity (no audience, no interest).
    pub fn is_open(&self) -> bool {
        self.audiences.is_empty() && self.interests.is_empty()
    }

    /// Entity `entity`'s own audience; `None` when every player sees it.
    pub fn audience_of(&self, entity: u32) -> Option<&Audience> {
        self.audiences.get(&entity)
    }

    /// Whether any entity has an audience of its own.
    pub fn has_audiences(&self) -> bool {
        !self.audiences.is_empty()
    }

    /// Player `player`'s interest, if its view is limited by distance.
    pub fn interest_of(&self, player: PlayerId) -> Option<Interest> {
        self.interests.get(&player).copied()
    }

    /// The components that stream with entities, in the order first asked
    /// for.
    pub fn replicated(&self) -> &[String] {
        &self.replicated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audiences_start_with_everyone_and_narrow_on_the_first_show() {
        let mut views = Views::default();
        assert!(views.is_open());
        views.apply(ViewChange::HideFrom(7, 1));
        let audience = views.audience_of(7).unwrap();
        assert!(!audience.admits(1) && audience.admits(2));
        views.apply(ViewChange::ShowTo(7, 1));
        assert!(views.audience_of(7).unwrap().admits(2));
        views.apply(ViewChange::ShowToAll(7));
        views.apply(ViewChange::ShowTo(7, 3));
        let audience = views.audience_of(7).unwrap();
        assert!(audience.admits(3) && !audience.admits(2));
        views.player_left(3);
        assert!(!views.audience_of(7).unwrap().admits(3));
        views.retain_entities(|id| id != 7);
        assert!(views.is_open());
    }

    #[test]
    fn interests_cover_a_sphere_and_end_with_the_player() {
        let mut views = Views::default();
        let interest = Interest {
            center: 4,
            radius: 2.0,
        };
        views.apply(ViewChange::SetInterest(9, interest));
        assert!(interest.covers([0.0; 3], [2.0, 0.0, 0.0]));
        assert!(!interest.covers([0.0; 3], [1.5, 1.5, 0.0]));
        assert_eq!(views.interest_of(9), Some(interest));
        views.player_left(9);
        assert_eq!(views.interest_of(9), None);
    }

    #[test]
    fn replicated_components_are_kept_once_and_capped() {
        let mut views = Views::default();
        for n in 0..MAX_REPLICATED + 5 {
            views.apply(ViewChange::Replicate(format!("C{n}")));
            views.apply(ViewChange::Replicate("C0".into()));
        }
        assert_eq!(views.replicated().len(), MAX_REPLICATED);
        assert_eq!(views.replicated()[0], "C0");
    }
}
