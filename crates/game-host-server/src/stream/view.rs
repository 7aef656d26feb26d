//! [`PlayerViews`]: what each player sees, frame by frame, and the update
//! each distinct view gets. On the world's loop thread, after a published
//! frame: each player's view is the entities its world's
//! [`Views`](game_host::views::Views) let it see; players whose view was
//! and is the same share one [`ViewUpdate`], encoded once per format for
//! all their clients.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::delta;
use super::tracker::{Changes, SceneTracker};
use super::wire::{EntityState, Format, Wire};
use game_host::players::PlayerId;
use game_host::views::Views;

/// One view's update for one frame.
#[derive(Debug, Default)]
pub(crate) struct ViewUpdate {
    /// Entities that came into the view (or were spawned in it), whole.
    pub entered: Vec<Arc<EntityState>>,
    /// Entities in the view before and now that changed, with what changed.
    pub changed: Vec<(Arc<EntityState>, u8)>,
    /// Entities gone from the view (out of it, or despawned), in order.
    pub removed: Vec<u32>,
    encoded: [OnceLock<Bytes>; 3],
    /// The bytes the frame's updates hold, shared by its views
    /// ([`Routes::weight`]): each view adds what it holds when made, and
    /// each encoding when a client makes it.
    weight: Arc<AtomicUsize>,
}

impl ViewUpdate {
    fn is_empty(&self) -> bool {
        self.entered.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    /// Bytes it holds before any encoding: its entities (each counted
    /// whole, though the scene tracker may share it) and the ids it
    /// removes.
    fn held_bytes(&self) -> usize {
        let entity = |state: &EntityState| {
            std::mem::size_of::<EntityState>() + state.name.len() + state.data.kept_bytes()
        };
        let entities: usize = self.entered.iter().map(|s| entity(s)).sum::<usize>()
            + self.changed.iter().map(|(s, _)| entity(s)).sum::<usize>();
        entities + self.removed.len() * 4
    }

    /// Counts what it holds into its frame's `weight`.
    fn weighed_in(mut self, weight: &Arc<AtomicUsize>) -> ViewUpdate {
        weight.fetch_add(self.held_bytes(), Ordering::Relaxed);
        self.weight = weight.clone();
        self
    }

    /// The update in `format`, encoded by the first client that sends it
    /// (its bytes counted into the frame's weight).
    pub fn bytes(&self, frame: u64, format: Format, precision: f32) -> Bytes {
        self.encoded[format.slot()]
            .get_or_init(|| {
                let bytes = self.encode(frame, format, precision);
                self.weight.fetch_add(bytes.len(), Ordering::Relaxed);
                bytes
            })
            .clone()
    }

    fn encode(&self, frame: u64, format: Format, precision: f32) -> Bytes {
        match format {
            Format::Delta => delta::encode_update(
                frame,
                &self.entered,
                &self.changed,
                &self.removed,
                precision,
            ),
            Format::Json | Format::MessagePack => {
                let mut changed = self.entered.clone();
                changed.extend(self.changed.iter().map(|(state, _)| state.clone()));
                Wire {
                    frame: Some(frame),
                    changed: Some(&changed),
                    removed: (!self.removed.is_empty()).then_some(self.removed.as_slice()),
                    ..Wire::default()
                }
                .encode(format)
            }
        }
    }
}

/// Which update each player's clients get for a frame.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Each player's view's update, where it has one.
    pub of: HashMap<PlayerId, Arc<ViewUpdate>>,
    /// Every player's, where all share one view.
    pub all: Option<Arc<ViewUpdate>>,
    /// The bytes its views hold, each distinct view once, with every
    /// encoding a client has made of them so far: what a world's backlog
    /// counts, read in one load.
    pub weight: Arc<AtomicUsize>,
}

impl Routes {
    /// Player `player`'s update, if anything it sees changed.
    pub fn of(&self, player: PlayerId) -> Option<&Arc<ViewUpdate>> {
        self.all.as_ref().or_else(|| self.of.get(&player))
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_none() && self.of.is_empty()
    }

    /// Distinct views updated.
    #[cfg(test)]
    pub fn distinct(&self) -> usize {
        match &self.all {
            Some(_) => 1,
            None => {
                let mut seen: Vec<*const ViewUpdate> = self.of.values().map(Arc::as_ptr).collect();
                seen.sort_unstable();
                seen.dedup();
                seen.len()
            }
        }
    }
}

/// A (before, now) pair of views, by their shared id lists' addresses.
type ViewPair = (*const [u32], *const [u32]);

/// What each player saw at the last published frame: the ids, in order,
/// shared by players who saw the same.
#[derive(Debug, Default)]
pub(crate) struct PlayerViews {
    seen: HashMap<PlayerId, Arc<[u32]>>,
}

/// The entities of `tracker` that `player` sees under `views`, in order.
pub(crate) fn visible(views: &Views, tracker: &SceneTracker, player: PlayerId) -> Vec<u32> {
    let audiences = views.has_audiences();
    let admits = |id: u32| !audiences || views.audience_of(id).is_none_or(|a| a.admits(player));
    let ids = tracker.ids();
    let Some(interest) = views.interest_of(player) else {
        return ids.iter().copied().filter(|&id| admits(id)).collect();
    };
    // A player whose center is gone sees nothing; its center it always
    // sees.
    let Some(center) = tracker.state(interest.center).map(|s| s.position) else {
        return Vec::new();
    };
    ids.iter()
        .zip(tracker.positions())
        .filter(|&(&id, at)| id == interest.center || (interest.covers(center, *at) && admits(id)))
        .map(|(&id, _)| id)
        .collect()
}

/// Ids in `a` and not in `b`, both in order.
fn minus(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut j = 0;
    for &id in a {
        while j < b.len() && b[j] < id {
            j += 1;
        }
        if j >= b.len() || b[j] != id {
            out.push(id);
        }
    }
    out
}

impl PlayerViews {
    /// Each of `players`' views now, and the update of each distinct
    /// (before, now) pair; from now on the views are as they are now.
    pub fn update(
        &mut self,
        players: &[PlayerId],
        views: &Views,
        tracker: &SceneTracker,
        changes: &Changes,
    ) -> Routes {
        let mut routes = Routes::default();
        if views.is_open() {
            // Everyone sees everything: one view, shared.
            let all: Arc<[u32]> = tracker.ids().into();
            let before = players.first().and_then(|p| self.seen.get(p)).cloned();
            let shared = players
                .iter()
                .all(|p| self.seen.get(p).map(Arc::as_ptr) == before.as_ref().map(Arc::as_ptr));
            if shared && let Some(before) = before {
                let update = self.diff(&before, &all, tracker, changes);
                routes.all =
                    (!update.is_empty()).then(|| Arc::new(update.weighed_in(&routes.weight)));
                self.seen = players.iter().map(|p| (*p, all.clone())).collect();
                return routes;
            }
            return self.route(players.iter().map(|p| (*p, all.clone())), tracker, changes);
        }
        // Players who see the same share the ids.
        let mut distinct: HashMap<Vec<u32>, Arc<[u32]>> = HashMap::new();
        let now: Vec<(PlayerId, Arc<[u32]>)> = players
            .iter()
            .map(|&player| {
                let ids = visible(views, tracker, player);
                let ids = distinct
                    .entry(ids)
                    .or_insert_with_key(|ids| ids.as_slice().into());
                (player, ids.clone())
            })
            .collect();
        self.route(now.into_iter(), tracker, changes)
    }

    fn route(
        &mut self,
        now: impl Iterator<Item = (PlayerId, Arc<[u32]>)>,
        tracker: &SceneTracker,
        changes: &Changes,
    ) -> Routes {
        let empty: Arc<[u32]> = Arc::from(Vec::new());
        let mut routes = Routes::default();
        // By the (before, now) pair of shared id lists, both alive for the
        // whole call: each distinct pair's update, made once.
        let mut updates: HashMap<ViewPair, Option<Arc<ViewUpdate>>> = HashMap::new();
        let mut seen = HashMap::new();
        for (player, ids) in now {
            let before = self.seen.get(&player).unwrap_or(&empty).clone();
            let key = (Arc::as_ptr(&before), Arc::as_ptr(&ids));
            let update = updates.entry(key).or_insert_with(|| {
                let update = self.diff(&before, &ids, tracker, changes);
                (!update.is_empty()).then(|| Arc::new(update.weighed_in(&routes.weight)))
            });
            if let Some(update) = update {
                routes.of.insert(player, update.clone());
            }
            seen.insert(player, ids);
        }
        self.seen = seen;
        routes
    }

    fn diff(
        &self,
        before: &[u32],
        now: &[u32],
        tracker: &SceneTracker,
        changes: &Changes,
    ) -> ViewUpdate {
        let state = |id| tracker.state(id).expect("visible ids are known").clone();
        let entered = minus(now, before);
        let mut update = ViewUpdate {
            entered: entered.iter().map(|&id| state(id)).collect(),
            removed: minus(before, now),
            ..ViewUpdate::default()
        };
        if !changes.changed.is_empty() {
            let mut j = 0;
            for &id in now {
                // Entered ones go whole.
                while j < entered.len() && entered[j] < id {
                    j += 1;
                }
                if j < entered.len() && entered[j] == id {
                    continue;
                }
                if let Some(&changed) = changes.changed.get(&id) {
                    update.changed.push((state(id), changed));
                }
            }
        }
        update
    }

    /// Player `player` was sent `ids` (a snapshot): its next update is
    /// from there.
    pub fn saw(&mut self, player: PlayerId, ids: Vec<u32>) {
        self.seen.insert(player, ids.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_host::Scene;
    use game_host::views::{Interest, ViewChange};

    fn ids(update: &ViewUpdate) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        (
            update.entered.iter().map(|s| s.id).collect(),
            update.changed.iter().map(|(s, _)| s.id).collect(),
            update.removed.clone(),
        )
    }

    #[test]
    fn a_frames_weight_counts_each_view_once_and_each_encoding_once() {
        let mut scene = Scene::new();
        for _ in 0..3 {
            scene.spawn("e");
        }
        let mut tracker = SceneTracker::default();
        let views = Views::default();
        let changes = tracker.update(&mut scene, &[]);
        let routes = PlayerViews::default().update(&[1, 2], &views, &tracker, &changes);
        // Both players' first view is the same: one update, weighed once.
        assert_eq!(routes.distinct(), 1);
        let held = routes.weight.load(Ordering::Relaxed);
        let view = routes.of(1).unwrap();
        assert_eq!(held, view.held_bytes());
        assert!(held >= 3 * std::mem::size_of::<EntityState>(), "{held}");
        let json = view.bytes(1, Format::Json, 0.001);
        let delta = view.bytes(1, Format::Delta, 0.001);
        view.bytes(1, Format::Json, 0.001);
        assert_eq!(
            routes.weight.load(Ordering::Relaxed),
            held + json.len() + delta.len()
        );
    }

    #[test]
    fn players_see_their_radius_and_their_audiences_and_share_equal_views() {
        let mut scene = Scene::new();
        let mut spawn = |x: f32| {
            let id = scene.spawn("e");
            scene.transform_mut(id).unwrap().position.x = x;
            id.index() as u32
        };
        let (a, near, far, secret) = (spawn(0.0), spawn(5.0), spawn(50.0), spawn(1.0));
        let mut tracker = SceneTracker::default();
        let mut views = Views::default();
        let interest = Interest {
            center: a,
            radius: 10.0,
        };
        views.apply(ViewChange::SetInterest(1, interest)).unwrap();
        views.apply(ViewChange::ShowTo(secret, 2)).unwrap();
        let mut players = PlayerViews::default();
        let changes = tracker.update(&mut scene, &[]);
        let routes = players.update(&[1, 2, 3], &views, &tracker, &changes);
        assert_eq!(ids(routes.of(1).unwrap()), (vec![a, near], vec![], vec![]));
        assert_eq!(
            ids(routes.of(2).unwrap()),
            (vec![a, near, far, secret], vec![], vec![])
        );
        assert_eq!(
            ids(routes.of(3).unwrap()),
            (vec![a, near, far], vec![], vec![])
        );
        assert_eq!(routes.distinct(), 3);
        // The near one moves out of player 1's radius; the far one moves.
        scene.transform_mut(near.into()).unwrap().position.x = 20.0;
        scene.transform_mut(far.into()).unwrap().position.x = 40.0;
        let changes = tracker.update(&mut scene, &[]);
        let routes = players.update(&[1, 2, 3], &views, &tracker, &changes);
        assert_eq!(ids(routes.of(1).unwrap()), (vec![], vec![], vec![near]));
        assert_eq!(
            ids(routes.of(3).unwrap()),
            (vec![], vec![near, far], vec![])
        );
        // Shown to all: players 1 (within its radius) and 3 get it.
        views.apply(ViewChange::ShowToAll(secret)).unwrap();
        let changes = tracker.update(&mut scene, &[]);
        let routes = players.update(&[1, 2, 3], &views, &tracker, &changes);
        assert!(routes.of(2).is_none());
        assert_eq!(ids(routes.of(1).unwrap()), (vec![secret], vec![], vec![]));
        assert_eq!(ids(routes.of(3).unwrap()), (vec![secret], vec![], vec![]));
        assert_eq!(routes.distinct(), 2);
        // Open again: one shared view.
        views.apply(ViewChange::ClearInterest(1)).unwrap();
        let changes = tracker.update(&mut scene, &[]);
        let routes = players.update(&[1, 2, 3], &views, &tracker, &changes);
        assert_eq!(
            ids(routes.of(1).unwrap()),
            (vec![near, far], vec![], vec![])
        );
        assert!(routes.of(2).is_none());
        scene.transform_mut(far.into()).unwrap().position.x = 41.0;
        let changes = tracker.update(&mut scene, &[]);
        let routes = players.update(&[1, 2, 3], &views, &tracker, &changes);
        assert!(routes.all.is_some());
        assert_eq!(routes.distinct(), 1);
    }
}
