//! The [`Script`] trait and the [`export!`](crate::export!) macro that turns
//! an implementation of it into the component's exports.

/// A game script: state created by `entrypoint`, driven by messages and
/// async tasks.
///
/// The host calls [`Script::entrypoint`] once when the instance starts, then
/// [`Script::on_update`] once per frame while the script is subscribed with
/// [`update::subscribe`](crate::update::subscribe) (the call brings the
/// frame clock along, so [`time::delta_time`](crate::time::delta_time)
/// costs no host call). Tasks started with [`task::spawn`](crate::task::spawn)
/// run between those calls, woken by the host (`on-wake`) only when what
/// they wait for is due. Each instance of a component has its own memory,
/// so its own value of `Self`.
pub trait Script: 'static {
    /// Starts the script and returns its state. Subscribe to updates or
    /// spawn tasks here.
    fn entrypoint() -> Self;

    /// The frame's update, once per frame while subscribed
    /// ([`update::subscribe`](crate::update::subscribe)). Scripts that only
    /// use tasks need not implement it.
    fn on_update(&mut self) {}

    /// Hands the script's state over to its next version when the host
    /// hot-swaps the component: return the bytes for
    /// [`Script::restore_state`]. The default, `None`, starts the new
    /// version with [`Script::entrypoint`].
    fn save_state(&self) -> Option<Vec<u8>> {
        None
    }

    /// Rebuilds the script from what the previous version's
    /// [`Script::save_state`] returned, instead of `entrypoint`. Subscribe
    /// and spawn tasks again here: a swap withdraws the old version's
    /// subscriptions and waits. Returning `None` (the default, or bytes the
    /// new version cannot read) falls back to `entrypoint`.
    fn restore_state(state: &[u8]) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = state;
        None
    }
}

/// Exports a [`Script`] implementation as the component's `entrypoint`,
/// `on-update`, `on-wake` and state hand-over functions. Use it once per
/// script crate, at the top level:
///
/// ```ignore
/// script::export!(MyScript);
/// ```
#[macro_export]
macro_rules! export {
    ($script:ty) => {
        const _: () = {
            ::std::thread_local! {
                static STATE: ::core::cell::RefCell<::core::option::Option<$script>> =
                    const { ::core::cell::RefCell::new(::core::option::Option::None) };
            }

            struct Exports;

            impl $crate::bindings::Guest for Exports {
                fn entrypoint() {
                    $crate::__private::begin_call(::core::option::Option::None);
                    let state = <$script as $crate::Script>::entrypoint();
                    STATE.with(|cell| *cell.borrow_mut() = ::core::option::Option::Some(state));
                    $crate::__private::end_call();
                }

                fn save_state() -> ::core::option::Option<::std::vec::Vec<u8>> {
                    $crate::__private::begin_call(::core::option::Option::None);
                    STATE.with(|cell| {
                        cell.borrow()
                            .as_ref()
                            .and_then(<$script as $crate::Script>::save_state)
                    })
                }

                fn restore_state(saved: ::std::vec::Vec<u8>) {
                    $crate::__private::begin_call(::core::option::Option::None);
                    let state = <$script as $crate::Script>::restore_state(&saved)
                        .unwrap_or_else(<$script as $crate::Script>::entrypoint);
                    STATE.with(|cell| *cell.borrow_mut() = ::core::option::Option::Some(state));
                    $crate::__private::end_call();
                }

                fn on_update(clock: $crate::time::FrameClock) {
                    $crate::__private::begin_call(::core::option::Option::Some(clock));
                    $crate::__private::update(|| {
                        STATE.with(|cell| {
                            if let ::core::option::Option::Some(state) = cell.borrow_mut().as_mut()
                            {
                                <$script as $crate::Script>::on_update(state);
                            }
                        });
                    });
                    $crate::__private::end_call();
                }

                fn on_wake(
                    clock: $crate::time::FrameClock,
                    wakes: ::std::vec::Vec<$crate::bindings::game::engine::tasks::Wake>,
                ) {
                    $crate::__private::begin_call(::core::option::Option::Some(clock));
                    $crate::__private::deliver_wakes(wakes);
                    $crate::__private::end_call();
                }
            }

    $crate::bindings::export_world!(Exports with_types_in $crate::bindings);
        };
    };
}
