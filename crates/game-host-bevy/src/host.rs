//! [`ScriptHost`]: the core's runtime inside a Bevy app, with the scripts
//! attached to entities. Each fixed step it lends the app's world to the
//! runtime's [`BevyScene`], starts, swaps and stops the scripts whose
//! [`Script`] components or assets changed, delivers input and messages,
//! runs one frame, and gives the world back.
//!
//! A script starts in two steps. The step that finds it new takes its
//! place among the runtime's scripts
//! ([`Starts::prepare`](game_host::runtime::Starts::prepare)) and has its
//! instance made on the background queue ([`Making`]), a Python or
//! JavaScript script's sources compiled there too: milliseconds that no
//! step waits for. The first step after that runs its `entrypoint`, which
//! needs the world, and sends [`ScriptStarted`]. Scripts found in one step
//! start in one step, in the order their entities were made. A changed
//! asset's new version is made the same way
//! ([`Starts::prepare_swap`](game_host::runtime::Starts::prepare_swap));
//! the old one runs until the step that hands its state over.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use anyhow::{Result, anyhow};
use bevy::asset::{AssetId, Assets};
use bevy::prelude::{Entity, Resource, World};
use game_host::runtime::Runtime;
use game_host::scene::{AnyScene, GameScene, SharedScene};
use game_host::sync::LockExt;
use game_host::{Event, InstanceInfo, ScriptComponent};
use uuid::Uuid;

use crate::assets::ScriptAsset;
use crate::events::{ScriptFailed, ScriptStarted};
use crate::making::{Made, Making, Order, Purpose};
use crate::scene::BevyScene;

/// The scripts of a Bevy app and the runtime they run on (a resource).
#[derive(Resource)]
pub struct ScriptHost(Arc<Mutex<HostState>>);

pub(crate) struct HostState {
    runtime: Runtime,
    /// The script each entity's `Script` component runs.
    attached: HashMap<Entity, Attached>,
    /// Whether a script has started: the runtime's clock runs from then.
    started: bool,
    /// Runtime errors already reported.
    reported: usize,
    /// Whether a wanted script's asset had not loaded at the last plan.
    waiting: bool,
    /// The [`Wanted`] fingerprint of the scripts of the last plan.
    planned: Wanted,
    /// Instances being made on the background queue.
    making: Making,
}

/// A fingerprint of the scripts a game wants (each entity with a `Script`,
/// and its asset), the same in any order: whether they are still those of
/// the last plan, whatever happened in between (added, changed, removed,
/// despawned, disabled, or done by scripts during the step).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Wanted {
    count: usize,
    sum: u64,
}

impl Wanted {
    pub(crate) fn add(&mut self, entity: Entity, asset: AssetId<ScriptAsset>) {
        use std::hash::BuildHasher;
        let hash = rustc_hash::FxBuildHasher.hash_one((entity, asset));
        self.count += 1;
        // Fx's last step is a multiply: mix the high bits down as well.
        self.sum = self.sum.wrapping_add(hash ^ hash.rotate_left(29));
    }
}

struct Attached {
    asset: AssetId<ScriptAsset>,
    /// The running instance; `None` while it starts, or once it failed to
    /// start or stopped.
    instance: Option<Uuid>,
    /// While an instance for it (a start, or a swap's new version) is made
    /// on the background queue: that instance's number.
    making: Option<u64>,
}

/// What a step does with an entity's script.
enum Change {
    Start(Entity, AssetId<ScriptAsset>, Result<ScriptComponent>),
    Swap(Entity, Uuid, Result<ScriptComponent>),
    Stop(Entity),
}

/// What a step asks of the host: the scripts wanted now (entity, asset),
/// `None` where they are those of the last plan (see
/// [`HostState::needs_plan`]), and their fingerprint; the assets that
/// changed; the events for scripts.
pub(crate) struct StepInput {
    pub wanted: Option<Vec<(Entity, AssetId<ScriptAsset>)>>,
    pub fingerprint: Wanted,
    pub modified: HashSet<AssetId<ScriptAsset>>,
    pub events: Vec<Event>,
}

impl ScriptHost {
    pub(crate) fn new(runtime: Runtime) -> Self {
        ScriptHost(Arc::new(Mutex::new(HostState {
            runtime,
            attached: HashMap::new(),
            started: false,
            reported: 0,
            waiting: false,
            planned: Wanted::default(),
            making: Making::default(),
        })))
    }

    /// A scene for a new runtime.
    pub(crate) fn scene() -> SharedScene {
        AnyScene::engine(BevyScene::new())
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, HostState> {
        self.0.lock_unpoisoned()
    }

    /// The host's state, shared: held while the app's world is lent out
    /// (the resource itself stays in the world; taking it out and back
    /// with `resource_scope` cost a few hundred ns a step).
    pub(crate) fn shared(world: &World) -> Arc<Mutex<HostState>> {
        world.resource::<ScriptHost>().0.clone()
    }

    /// The runtime's frame: fixed steps run since the first script started.
    pub fn frame(&self) -> u64 {
        self.state().runtime.frame()
    }

    /// The running instance of the script attached to `entity`: its name,
    /// swaps, subscriptions and waits.
    pub fn instance_of(&self, entity: Entity) -> Option<InstanceInfo> {
        let state = self.state();
        state
            .runtime
            .inspect()
            .instance(state.attached.get(&entity)?.instance?)
    }

    /// Runs `f` on the runtime with the app's `world` lent to its scene
    /// (see [`BevyScene::lend`]): scripts called in `f` act on the world.
    /// This is how to read the runtime's scene from the game, for example
    /// `runtime.inspect().dump()`. The world is given back even if `f`
    /// panics.
    pub fn with_runtime<R>(world: &mut World, f: impl FnOnce(&mut Runtime) -> R) -> R {
        let host = ScriptHost::shared(world);
        let mut state = host.lock_unpoisoned();
        let lent = Lent::new(state.runtime.scene().clone(), world);
        let result = f(&mut state.runtime);
        drop(lent);
        result
    }
}

/// The script's compiled component, or why it cannot run.
fn compiled(script: &ScriptAsset) -> Result<ScriptComponent> {
    script.compiled.clone().map_err(|e| anyhow!(e))
}

/// The app's world lent to a runtime's scene, given back on drop.
struct Lent<'w> {
    scene: SharedScene,
    world: &'w mut World,
}

impl<'w> Lent<'w> {
    fn new(scene: SharedScene, world: &'w mut World) -> Self {
        bevy_scene(&scene, |bevy| bevy.lend(world));
        Lent { scene, world }
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        bevy_scene(&self.scene, |bevy| bevy.give_back(self.world));
    }
}

fn bevy_scene(scene: &SharedScene, f: impl FnOnce(&mut BevyScene)) {
    let mut scene = scene.lock_unpoisoned();
    let bevy = scene
        .as_any_mut()
        .downcast_mut::<BevyScene>()
        .expect("a ScriptHost's runtime holds a BevyScene");
    f(bevy);
}

impl HostState {
    /// One fixed step (see the module's docs); answers the scripts that
    /// started and the failures to report.
    pub(crate) fn step(
        &mut self,
        world: &mut World,
        input: StepInput,
    ) -> (Vec<ScriptStarted>, Vec<ScriptFailed>) {
        let changes = self.plan(world, &input);
        let (mut started, mut failed) = (Vec::new(), Vec::new());
        let lent = Lent::new(self.runtime.scene().clone(), world);
        let mut orders = Vec::new();
        for change in changes {
            if let Err(failure) = self.apply(change, &mut orders) {
                failed.push(failure);
            }
        }
        self.making.queue(orders);
        while let Some(made) = self.making.next_ready() {
            self.use_made(made, &mut started, &mut failed);
        }
        if self.started {
            for event in input.events {
                self.runtime.input().event(event);
            }
            self.runtime.step();
        }
        drop(lent);
        failed.extend(self.new_errors());
        (started, failed)
    }

    /// Whether a step must compare the wanted scripts with the running
    /// ones: the game's scripts are now `wanted`, and whether an asset
    /// event came since the last step. Otherwise (most steps) the step
    /// skips collecting and looking up every script, which cost about
    /// 70 ns a script at 10,000.
    pub(crate) fn needs_plan(&self, wanted: Wanted, asset_events: bool) -> bool {
        asset_events || self.waiting || wanted != self.planned
    }

    /// The changes a step makes, with each new or changed script compiled.
    fn plan(&mut self, world: &World, input: &StepInput) -> Vec<Change> {
        let Some(wanted) = &input.wanted else {
            return Vec::new();
        };
        self.planned = input.fingerprint;
        // Most steps change nothing: every wanted script runs its asset.
        if input.modified.is_empty()
            && wanted.len() == self.attached.len()
            && wanted
                .iter()
                .all(|(entity, asset)| self.attached.get(entity).is_some_and(|a| a.asset == *asset))
        {
            self.waiting = false;
            return Vec::new();
        }
        let assets = world.resource::<Assets<ScriptAsset>>();
        let wanted_by_entity: HashMap<Entity, AssetId<ScriptAsset>> =
            wanted.iter().copied().collect();
        let mut changes: Vec<Change> = self
            .attached
            .iter()
            .filter(|(entity, attached)| wanted_by_entity.get(entity) != Some(&attached.asset))
            .map(|(&entity, _)| Change::Stop(entity))
            .collect();
        let mut new: Vec<(Entity, AssetId<ScriptAsset>)> = wanted.clone();
        // Scripts start in the order their entities were made.
        new.sort_by_key(|(entity, _)| *entity);
        self.waiting = false;
        for (entity, asset) in new {
            let Some(script) = assets.get(asset) else {
                self.waiting = true; // still loading: plan again next step
                continue;
            };
            match self.attached.get(&entity) {
                Some(attached) if attached.asset == asset => {
                    if !input.modified.contains(&asset) {
                        continue;
                    }
                    match attached.instance {
                        Some(instance) => {
                            changes.push(Change::Swap(entity, instance, compiled(script)));
                        }
                        // Changed while it was being made, or after it
                        // failed: started again, from the new version.
                        None => changes.push(Change::Start(entity, asset, compiled(script))),
                    }
                }
                _ => changes.push(Change::Start(entity, asset, compiled(script))),
            }
        }
        changes
    }

    /// Applies `change`; an instance to make (a start, a swap's new
    /// version) joins `orders`.
    fn apply(&mut self, change: Change, orders: &mut Vec<Order>) -> Result<(), ScriptFailed> {
        match change {
            Change::Stop(entity) => {
                self.detach(entity);
                Ok(())
            }
            Change::Start(entity, asset, component) => {
                self.detach(entity);
                let mut attached = Attached {
                    asset,
                    instance: None,
                    making: None,
                };
                let preparing = component.and_then(|c| self.runtime.starts().prepare(&c));
                let result = preparing.map(|preparing| {
                    let number = self.making.number();
                    attached.making = Some(number);
                    orders.push((entity, number, Purpose::Start, preparing));
                });
                self.attached.insert(entity, attached);
                result.map_err(|e| ScriptFailed::new(entity, e))
            }
            Change::Swap(entity, id, component) => {
                let preparing = component
                    .and_then(|c| self.runtime.starts().prepare_swap(id, &c))
                    .map_err(|e| ScriptFailed::new(entity, e))?;
                let number = self.making.number();
                if let Some(attached) = self.attached.get_mut(&entity) {
                    attached.making = Some(number);
                }
                orders.push((entity, number, Purpose::Swap, preparing));
                Ok(())
            }
        }
    }

    /// Starts, or swaps in, the instances of one plan that are ready, in
    /// their plan's order; those whose entity's script stopped or changed
    /// since are dropped.
    fn use_made(
        &mut self,
        made: Vec<Made>,
        started: &mut Vec<ScriptStarted>,
        failed: &mut Vec<ScriptFailed>,
    ) {
        for Made {
            entity,
            number,
            purpose,
            prepared,
        } in made
        {
            let Some(attached) = self
                .attached
                .get_mut(&entity)
                .filter(|a| a.making == Some(number))
            else {
                continue;
            };
            attached.making = None;
            let frame = self.runtime.frame();
            let result = match purpose {
                Purpose::Start => prepared
                    .and_then(|p| self.runtime.starts().start(p))
                    .map(|id| {
                        attached.instance = Some(id);
                        self.started = true;
                        started.push(ScriptStarted { entity, frame });
                    }),
                // Said in the log as `host run --watch` says it: a swap
                // is otherwise seen only in what the script then does.
                Purpose::Swap => {
                    prepared
                        .and_then(|p| self.runtime.starts().swap(p))
                        .map(|report| {
                            bevy::log::info!(
                                script = %report.script,
                                id = %report.instance,
                                old_bytes = report.old_size,
                                new_bytes = report.new_size,
                                pause = ?report.pause,
                                state = if report.restored { "handed over" } else { "restarted" },
                                "hot-swapped"
                            )
                        })
                }
            };
            if let Err(e) = result {
                failed.push(ScriptFailed::new(entity, e));
            }
        }
    }

    /// Stops the script attached to `entity`, if one runs.
    fn detach(&mut self, entity: Entity) {
        if let Some(Attached {
            instance: Some(id), ..
        }) = self.attached.remove(&entity)
        {
            self.runtime.despawn(id);
        }
    }

    /// The failures the runtime recorded since the last step, each with
    /// the entity its script is attached to.
    fn new_errors(&mut self) -> Vec<ScriptFailed> {
        let errors = &self.runtime.inspect().errors()[self.reported..];
        self.reported += errors.len();
        errors
            .iter()
            .filter_map(|error| {
                let (&entity, attached) = self
                    .attached
                    .iter_mut()
                    .find(|(_, a)| a.instance == Some(error.instance))?;
                if !self.runtime.inspect().is_alive(error.instance) {
                    attached.instance = None;
                }
                Some(ScriptFailed::new(entity, anyhow::Error::new(error.clone())))
            })
            .collect()
    }
}
