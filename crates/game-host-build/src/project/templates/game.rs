//! Game `{{game}}`'s own components and resources as types: bindings of
//! `wit/game.wit`, which `host new --game` wrote from the game's
//! description. Run the script on a host given the same description
//! (`host run --game FILE`); a host running another one refuses it at load,
//! naming the component and field that differ.

script::wit_bindgen::generate!({
    path: "wit",
    world: "{{game}}:game/imports",
    runtime_path: "script::wit_bindgen::rt",
});

#[allow(unused_imports)] // a script uses what it needs
pub use self::{{game_module}}::game::{{{interfaces}}};
