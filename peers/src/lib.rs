//! The peer benchmark's Lua side: the host API a game engine embedding Lua
//! would write (a transform userdata with methods, `scene` and `runtime`
//! tables of functions) over the host's own [`Scene`], and the scripts of
//! each scenario in `lua/`. The benchmark itself is `benches/peers.rs`.

use std::cell::Cell;
use std::rc::Rc;

use game_host::scene::{EntityId, GameScene, SharedScene};
use game_host::sync::LockExt;
use mlua::{Function, Lua, UserData, UserDataMethods};

pub mod chart;

/// The scenarios' Lua scripts, by name.
pub mod scripts {
    /// An `on_message` that does nothing.
    pub const BARE: &str = include_str!("../lua/bare.lua");
    /// The spinning cube, fetching the cube's handle every update.
    pub const CUBE: &str = concat!(
        include_str!("../lua/turn.lua"),
        include_str!("../lua/cube.lua")
    );
    /// The spinning cube, keeping its handle.
    pub const CUBE_KEPT: &str = concat!(
        include_str!("../lua/turn.lua"),
        include_str!("../lua/cube_kept.lua")
    );
    /// Spawns 10,000 entities and sets each one's position every update.
    pub const MANY: &str = include_str!("../lua/many.lua");
    /// `fib(25)` by naive recursion every update.
    pub const FIB: &str = include_str!("../lua/fib.lua");
    /// Float-heavy code: a rotation integrated `QUAT_LOOP` times per update.
    pub const QUAT: &str = include_str!("../lua/quat.lua");

    /// `count` entities, each with a spinning behaviour (a table with an
    /// update method), all run every update.
    pub fn behaviours(count: usize) -> String {
        format!("COUNT = {count}\n{}", include_str!("../lua/behaviours.lua"))
    }
}

/// Which Lua this build embeds.
pub const LUA_NAME: &str = if cfg!(feature = "lua54") {
    "Lua 5.4"
} else {
    "LuaJIT"
};

/// A handle to one entity's transform, as a Lua userdata.
struct Transform {
    scene: SharedScene,
    id: EntityId,
}

impl UserData for Transform {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("rotation", |_, this, ()| {
            let mut scene = this.scene.lock_unpoisoned();
            let r = scene
                .transform(this.id)
                .map(|t| t.rotation)
                .unwrap_or_default();
            Ok((r.x, r.y, r.z, r.w))
        });
        methods.add_method(
            "set_rotation",
            |_, this, (x, y, z, w): (f32, f32, f32, f32)| {
                let rotation = glam::Quat::from_xyzw(x, y, z, w);
                this.scene.lock_unpoisoned().set_rotation(this.id, rotation);
                Ok(())
            },
        );
        methods.add_method("set_position", |_, this, (x, y, z): (f32, f32, f32)| {
            let position = glam::Vec3::new(x, y, z);
            this.scene.lock_unpoisoned().set_position(this.id, position);
            Ok(())
        });
    }
}

/// One Lua state running one script against `scene`, like one script
/// instance of the host.
pub struct LuaScript {
    lua: Lua,
    on_message: Function,
    frame: Rc<Cell<u64>>,
}

impl LuaScript {
    /// A fresh state with the host API, `source` loaded and its
    /// `entrypoint` (if any) called.
    pub fn new(scene: &SharedScene, source: &str) -> mlua::Result<Self> {
        let lua = Lua::new();
        let frame = Rc::new(Cell::new(0u64));

        let scene_api = lua.create_table()?;
        let shared = scene.clone();
        scene_api.set(
            "cube",
            lua.create_function(move |_, ()| {
                let id = shared.lock_unpoisoned().find("cube");
                Ok(id.map(|id| Transform {
                    scene: shared.clone(),
                    id,
                }))
            })?,
        )?;
        let shared = scene.clone();
        scene_api.set(
            "spawn",
            lua.create_function(move |_, name: mlua::String| {
                let id = shared.lock_unpoisoned().spawn(&name.to_str()?);
                Ok(Transform {
                    scene: shared.clone(),
                    id,
                })
            })?,
        )?;
        lua.globals().set("scene", scene_api)?;

        let runtime_api = lua.create_table()?;
        runtime_api.set(
            "delta_time",
            lua.create_function(|_, ()| Ok(1.0f32 / 60.0))?,
        )?;
        let counter = frame.clone();
        runtime_api.set(
            "frame",
            lua.create_function(move |_, ()| Ok(counter.get()))?,
        )?;
        lua.globals().set("runtime", runtime_api)?;

        lua.load(source).exec()?;
        if let Ok(entrypoint) = lua.globals().get::<Function>("entrypoint") {
            entrypoint.call::<()>(())?;
        }
        let on_message = lua.globals().get::<Function>("on_message")?;
        Ok(LuaScript {
            lua,
            on_message,
            frame,
        })
    }

    /// One update: the frame counter advances and `on_message(0)` runs.
    pub fn update(&self) -> mlua::Result<()> {
        self.frame.set(self.frame.get() + 1);
        self.on_message.call::<()>(0u32)
    }

    /// A global of the script (e.g. a result it keeps).
    pub fn global<T: mlua::FromLua>(&self, name: &str) -> mlua::Result<T> {
        self.lua.globals().get(name)
    }

    /// Memory the Lua state holds, in bytes.
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }
}
