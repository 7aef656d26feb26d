//! The per-frame update: [`subscribe`] to get
//! [`Script::on_update`](crate::Script::on_update) once every frame.
//!
//! A script holds one update subscription on the host (`subscribe-update`),
//! shared by the script's own [`Script::on_update`](crate::Script::on_update)
//! and the behaviours it attached (`behaviour::attach`): the SDK subscribes
//! while either wants the frame, and calls each that does.

use std::cell::Cell;

use crate::bindings::game::engine::runtime;

/// Who wants the frame's update call.
#[derive(Clone, Copy, Default)]
struct Wanted {
    /// The script's own `on_update` ([`subscribe`]).
    script: bool,
    /// Attached behaviours.
    behaviours: bool,
    /// Whether the host subscription is held.
    held: bool,
}

thread_local! {
    static WANTED: Cell<Wanted> = const {
        Cell::new(Wanted { script: false, behaviours: false, held: false })
    };
}

/// Call [`Script::on_update`](crate::Script::on_update) once per frame, from
/// the next frame on. Subscribing twice does nothing.
pub fn subscribe() {
    change(|wanted| wanted.script = true);
}

/// Stop calling [`Script::on_update`](crate::Script::on_update), from the
/// next frame on.
pub fn unsubscribe() {
    change(|wanted| wanted.script = false);
}

/// Who wants this frame's update: (the script's own `on_update`, the
/// behaviours).
#[inline]
pub(crate) fn wanted() -> (bool, bool) {
    let wanted = WANTED.get();
    (wanted.script, wanted.behaviours)
}

/// Keeps the update coming for attached behaviours.
pub(crate) fn subscribe_behaviours() {
    change(|wanted| wanted.behaviours = true);
}

/// Changes who wants the update, and the host subscription with it.
fn change(edit: impl FnOnce(&mut Wanted)) {
    let mut wanted = WANTED.get();
    edit(&mut wanted);
    let want = wanted.script || wanted.behaviours;
    if want != wanted.held {
        wanted.held = want;
        match want {
            true => runtime::subscribe_update(),
            false => runtime::unsubscribe_update(),
        }
    }
    WANTED.set(wanted);
}
