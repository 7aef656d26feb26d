//! bevy_mod_scripting 0.23's side: the same work in Lua (LuaJIT), a static
//! script called each fixed step through its `on_update` callback, reaching
//! `Transform` by reflection as its users' scripts do. Per scenario:
//!
//! - cube: the cube's `Transform` reference kept, `rotate_y` each step;
//! - many: the idiomatic loop, a query each step and the translation's
//!   fields set per entity;
//! - batched: its cheapest form, the 10,000 references kept and set;
//! - behaviours: the kept references, each turned at its own speed;
//! - query: its dynamic query of `Transform` and the game's `Spin` each
//!   step, each entity turned at its own `Spin.speed`;
//! - scripts: a script attached to each of 10,000 entities
//!   (`ScriptComponent`, one Lua state each by BMS's default policy), each
//!   keeping its own entity's `Transform` (the `entity` global) and turning
//!   it.

use bevy::prelude::*;
use bevy_mod_scripting::core::event::ScriptErrorMessage;
use bevy_mod_scripting::prelude::*;

use crate::{MANY, Scenario, Spin, base_app, cube};

/// The entities the Lua script moves.
#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
pub struct Scripted;

callback_labels!(OnUpdate => "on_update");

/// Script errors so far (a failing script would time a no-op).
#[derive(Resource, Default)]
pub struct LuaErrors(pub Vec<String>);

const LUA: &str = r#"
local Transform = world.get_type_by_name("Transform")
local Scripted = world.get_type_by_name("Scripted")
local Spin = world.get_type_by_name("Spin")
assert(Transform ~= nil and Scripted ~= nil, "types not registered")
local SPEED = math.pi / 2
local DT = 1 / 60
local refs = nil

local function kept()
    if refs == nil then
        refs = {}
        for _, row in ipairs(world.query():component(Transform):with(Scripted):build()) do
            refs[#refs + 1] = row:components()[1]
        end
    end
    return refs
end

function on_update(frame, mode)
    if mode == 0 then
        kept()[1]:rotate_y(SPEED * DT)
    elseif mode == 1 then
        local rows = world.query():component(Transform):with(Scripted):build()
        for i, row in ipairs(rows) do
            local p = row:components()[1].translation
            p.x = i - 1
            p.y = frame
            p.z = 0
        end
    elseif mode == 2 then
        local all = kept()
        for i = 1, #all do
            local p = all[i].translation
            p.x = i - 1
            p.y = frame
            p.z = 0
        end
    elseif mode == 4 then
        local rows = world.query():component(Transform):component(Spin):build()
        for _, row in ipairs(rows) do
            local c = row:components()
            c[1]:rotate_y(c[2].speed * SPEED * DT)
        end
    else
        local all = kept()
        for i = 1, #all do
            all[i]:rotate_y(((i - 1) % 4 + 1) * SPEED * DT)
        end
    end
end
"#;

/// Each entity's own script in the `Scripts` scenario.
const OWN_LUA: &str = r#"
local Transform = world.get_type_by_name("Transform")
assert(Transform ~= nil, "Transform not registered")
local STEP = math.pi / 2 / 60
local own = world.get_component(entity, Transform)

function on_update(frame, mode)
    own:rotate_y(STEP)
end
"#;

fn mode(scenario: Scenario) -> i64 {
    match scenario {
        Scenario::Cube => 0,
        Scenario::Many => 1,
        Scenario::Batched => 2,
        Scenario::Behaviours => 3,
        Scenario::Query => 4,
        Scenario::Scripts => 5,
    }
}

/// The app, its script or scripts attached and run once.
pub fn app(scenario: Scenario) -> Option<App> {
    let mut app = base_app(scenario);
    app.add_plugins(BMSPlugin)
        .register_type::<Scripted>()
        .register_type::<Spin>()
        .register_type::<Transform>()
        .init_resource::<LuaErrors>()
        .add_systems(
            FixedUpdate,
            (call, event_handler::<OnUpdate, LuaScriptingPlugin>).chain(),
        )
        .add_systems(Last, keep_errors);
    let lua = match scenario {
        Scenario::Scripts => OWN_LUA,
        _ => LUA,
    };
    let handle = app
        .world_mut()
        .resource_mut::<Assets<ScriptAsset>>()
        .add(ScriptAsset::new(lua).with_language(Language::Lua));
    if scenario == Scenario::Scripts {
        app.world_mut().spawn_batch((0..MANY).map(move |_| {
            (
                Name::new(scenario.entity_name(0)),
                Transform::default(),
                ScriptComponent::new([handle.clone()]),
            )
        }));
    } else {
        spawn(&mut app, scenario);
        app.world_mut()
            .commands()
            .queue(AttachScript::<LuaScriptingPlugin>::new(
                ScriptAttachment::StaticScript(handle),
            ));
    }
    app.finish();
    app.cleanup();
    for _ in 0..3 {
        app.update();
    }
    // BMS loads scripts within a time budget a frame: on a slow machine
    // 10,000 take several updates. Each turns its entity once loaded.
    for _ in 0..1_000 {
        if scenario != Scenario::Scripts || all_turned(&mut app, scenario) {
            return Some(app);
        }
        app.update();
    }
    panic!("bevy_mod_scripting did not load its 10,000 scripts");
}

/// Whether every entity with a script of its own has turned.
fn all_turned(app: &mut App, scenario: Scenario) -> bool {
    let name = scenario.entity_name(0);
    let mut own = app.world_mut().query::<(&Name, &Transform)>();
    own.iter(app.world())
        .filter(|(n, t)| n.as_str() == name && t.rotation != Quat::IDENTITY)
        .count()
        == MANY
}

/// Fixed steps run, the script's `frame`.
#[derive(Default)]
struct Frame(i64);

fn call(
    mut frame: Local<Frame>,
    scenario: Res<Scenario>,
    mut out: MessageWriter<ScriptCallbackMessage>,
) {
    frame.0 += 1;
    out.write(ScriptCallbackMessage::new_for_all_scripts(
        OnUpdate,
        vec![
            ScriptValue::Integer(frame.0),
            ScriptValue::Integer(mode(*scenario)),
        ],
    ));
}

fn keep_errors(mut errors: MessageReader<ScriptErrorMessage>, mut kept: ResMut<LuaErrors>) {
    kept.0.extend(errors.read().map(|e| format!("{}", e.error)));
}

/// The moved entities, marked for the script's query.
fn spawn(app: &mut App, scenario: Scenario) {
    let world = app.world_mut();
    if scenario == Scenario::Cube {
        let cube = cube(world);
        world.entity_mut(cube).insert(Scripted);
        return;
    }
    world.spawn_batch((0..MANY).map(move |i| {
        (
            Name::new(scenario.entity_name(i)),
            Transform::default(),
            Scripted,
            Spin {
                speed: scenario.speed(i),
            },
        )
    }));
}
