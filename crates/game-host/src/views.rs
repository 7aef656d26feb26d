//! [`Views`]: which entities each player of a served world sees, and which
//! of the game's components stream to players with them (the `views` WIT
//! interface). Scripts change them through [`ViewChange`]s, applied after
//! a frame's calls in the instances' order (so the result is the same on
//! any number of frame threads); the server reads them when it publishes a
//! frame. This module holds the rules, not the streams.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A player of one world; never reused within it. Defined here, the lowest
/// of the modules that speak of players (the guest boundary names this
/// module, and the `players` module names the boundary), and re-exported
/// by `players`.
pub type PlayerId = u64;

/// Entities with an audience of their own, at most.
pub const MAX_AUDIENCES: usize = 1 << 16;

/// Players named in all audiences together, at most.
pub const MAX_AUDIENCE_ENTRIES: usize = 1 << 18;

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
    /// Players it names.
    fn len(&self) -> usize {
        match self {
            Audience::Everyone { except } => except.len(),
            Audience::Only(players) => players.len(),
        }
    }

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
    /// Players named in `audiences`, all together.
    entries: usize,
    interests: BTreeMap<PlayerId, Interest>,
    replicated: Vec<String>,
}

/// A change past one of the views' caps: why, for the error of the script
/// that made it (which is stopped, as for any quota: a change that would
/// narrow what players see is never dropped quietly).
fn over(what: &str) -> String {
    format!(
        "quota exceeded: views: {what} (at most {MAX_AUDIENCES} entities with an audience, \
         {MAX_AUDIENCE_ENTRIES} players named in them, {MAX_REPLICATED} replicated components)"
    )
}

impl Views {
    /// Applies one change; one past a cap changes nothing and says why.
    pub fn apply(&mut self, change: ViewChange) -> Result<(), String> {
        match change {
            ViewChange::ShowTo(entity, player) => self.show_to(entity, player),
            ViewChange::HideFrom(entity, player) => self.hide_from(entity, player),
            ViewChange::ShowToAll(entity) => {
                if let Some(audience) = self.audiences.remove(&entity) {
                    self.entries -= audience.len();
                }
                Ok(())
            }
            ViewChange::SetInterest(player, interest) => {
                self.interests.insert(player, interest);
                Ok(())
            }
            ViewChange::ClearInterest(player) => {
                self.interests.remove(&player);
                Ok(())
            }
            ViewChange::Replicate(component) => {
                if !self.replicated.contains(&component) {
                    if self.replicated.len() >= MAX_REPLICATED {
                        return Err(over(&format!("replicate `{component}`")));
                    }
                    self.replicated.push(component);
                }
                Ok(())
            }
        }
    }

    /// Whether one more player may be named in an audience (a new one for
    /// `entity`, if it has none).
    fn room(&self, entity: u32) -> bool {
        self.entries < MAX_AUDIENCE_ENTRIES
            && (self.audiences.len() < MAX_AUDIENCES || self.audiences.contains_key(&entity))
    }

    fn show_to(&mut self, entity: u32, player: PlayerId) -> Result<(), String> {
        match self.audiences.get_mut(&entity) {
            None => {
                if !self.room(entity) {
                    return Err(over(&format!("show entity {entity} to player {player}")));
                }
                let only = Audience::Only(BTreeSet::from([player]));
                self.audiences.insert(entity, only);
                self.entries += 1;
            }
            Some(Audience::Everyone { except }) => {
                if except.remove(&player) {
                    self.entries -= 1;
                }
                if except.is_empty() {
                    self.audiences.remove(&entity);
                }
            }
            Some(Audience::Only(players)) => {
                if !players.contains(&player) {
                    if self.entries >= MAX_AUDIENCE_ENTRIES {
                        return Err(over(&format!("show entity {entity} to player {player}")));
                    }
                    players.insert(player);
                    self.entries += 1;
                }
            }
        }
        Ok(())
    }

    fn hide_from(&mut self, entity: u32, player: PlayerId) -> Result<(), String> {
        // Only a hiding that names one more player needs room.
        let adds = match self.audiences.get(&entity) {
            None => true,
            Some(Audience::Everyone { except }) => !except.contains(&player),
            Some(Audience::Only(_)) => false,
        };
        if adds && !self.room(entity) {
            return Err(over(&format!("hide entity {entity} from player {player}")));
        }
        let audience = self.audiences.entry(entity).or_insert(Audience::Everyone {
            except: BTreeSet::new(),
        });
        match audience {
            Audience::Everyone { except } => {
                if except.insert(player) {
                    self.entries += 1;
                }
            }
            Audience::Only(players) => {
                if players.remove(&player) {
                    self.entries -= 1;
                }
            }
        }
        Ok(())
    }

    /// A player left: its interest ends, and no audience names it.
    pub fn player_left(&mut self, player: PlayerId) {
        self.interests.remove(&player);
        let mut removed = 0;
        self.audiences.retain(|_, audience| match audience {
            Audience::Everyone { except } => {
                removed += usize::from(except.remove(&player));
                !except.is_empty()
            }
            Audience::Only(players) => {
                removed += usize::from(players.remove(&player));
                true
            }
        });
        self.entries -= removed;
    }

    /// Forgets the audiences of entities for which `alive` is false.
    pub fn retain_entities(&mut self, mut alive: impl FnMut(u32) -> bool) {
        let mut removed = 0;
        self.audiences.retain(|id, audience| {
            let keep = alive(*id);
            if !keep {
                removed += audience.len();
            }
            keep
        });
        self.entries -= removed;
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
        views.apply(ViewChange::HideFrom(7, 1)).unwrap();
        let audience = views.audience_of(7).unwrap();
        assert!(!audience.admits(1) && audience.admits(2));
        // Shown again: every player sees it, and the views are open again.
        views.apply(ViewChange::ShowTo(7, 1)).unwrap();
        assert!(views.is_open());
        views.apply(ViewChange::ShowTo(7, 3)).unwrap();
        let audience = views.audience_of(7).unwrap();
        assert!(audience.admits(3) && !audience.admits(2));
        // Its one player gone, it is seen by no one (not by everyone).
        views.player_left(3);
        assert!(!views.audience_of(7).unwrap().admits(3));
        assert!(!views.audience_of(7).unwrap().admits(4));
        views.retain_entities(|id| id != 7);
        assert!(views.is_open());
        assert_eq!(views.entries, 0);
    }

    #[test]
    fn interests_cover_a_sphere_and_end_with_the_player() {
        let mut views = Views::default();
        let interest = Interest {
            center: 4,
            radius: 2.0,
        };
        views.apply(ViewChange::SetInterest(9, interest)).unwrap();
        assert!(interest.covers([0.0; 3], [2.0, 0.0, 0.0]));
        assert!(!interest.covers([0.0; 3], [1.5, 1.5, 0.0]));
        assert_eq!(views.interest_of(9), Some(interest));
        views.player_left(9);
        assert_eq!(views.interest_of(9), None);
    }

    #[test]
    fn replicated_components_are_kept_once_and_capped() {
        let mut views = Views::default();
        for n in 0..MAX_REPLICATED {
            views.apply(ViewChange::Replicate(format!("C{n}"))).unwrap();
            views.apply(ViewChange::Replicate("C0".into())).unwrap();
        }
        assert_eq!(views.replicated().len(), MAX_REPLICATED);
        assert_eq!(views.replicated()[0], "C0");
        let error = views
            .apply(ViewChange::Replicate("More".into()))
            .unwrap_err();
        assert!(
            error.starts_with("quota exceeded: views: replicate `More`"),
            "{error}"
        );
    }

    #[test]
    fn hiding_past_the_caps_is_refused_not_dropped() {
        let mut views = Views::default();
        for entity in 0..MAX_AUDIENCES as u32 {
            views.apply(ViewChange::HideFrom(entity, 1)).unwrap();
        }
        let error = views.apply(ViewChange::HideFrom(u32::MAX, 1)).unwrap_err();
        assert!(
            error.contains("hide entity 4294967295 from player 1"),
            "{error}"
        );
        // An entity with an audience already may still change.
        views.apply(ViewChange::HideFrom(0, 2)).unwrap();
        assert_eq!(views.entries, MAX_AUDIENCES + 1);
    }
}
