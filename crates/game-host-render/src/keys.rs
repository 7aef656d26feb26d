//! The window's key codes for each script key (the keys and their names
//! are `game_host::input`'s one table).

use game_host::input::Key;
use winit::keyboard::KeyCode;

use KeyCode as K;

/// Each script key and the window key codes that produce it, in WIT order.
const CODES: &[(Key, &[KeyCode])] = &[
    (Key::Enter, &[K::Enter, K::NumpadEnter]),
    (Key::Escape, &[K::Escape]),
    (Key::Space, &[K::Space]),
    (Key::Tab, &[K::Tab]),
    (Key::Backspace, &[K::Backspace]),
    (Key::Up, &[K::ArrowUp]),
    (Key::Down, &[K::ArrowDown]),
    (Key::Left, &[K::ArrowLeft]),
    (Key::Right, &[K::ArrowRight]),
    (Key::A, &[K::KeyA]),
    (Key::B, &[K::KeyB]),
    (Key::C, &[K::KeyC]),
    (Key::D, &[K::KeyD]),
    (Key::E, &[K::KeyE]),
    (Key::F, &[K::KeyF]),
    (Key::G, &[K::KeyG]),
    (Key::H, &[K::KeyH]),
    (Key::I, &[K::KeyI]),
    (Key::J, &[K::KeyJ]),
    (Key::K, &[K::KeyK]),
    (Key::L, &[K::KeyL]),
    (Key::M, &[K::KeyM]),
    (Key::N, &[K::KeyN]),
    (Key::O, &[K::KeyO]),
    (Key::P, &[K::KeyP]),
    (Key::Q, &[K::KeyQ]),
    (Key::R, &[K::KeyR]),
    (Key::S, &[K::KeyS]),
    (Key::T, &[K::KeyT]),
    (Key::U, &[K::KeyU]),
    (Key::V, &[K::KeyV]),
    (Key::W, &[K::KeyW]),
    (Key::X, &[K::KeyX]),
    (Key::Y, &[K::KeyY]),
    (Key::Z, &[K::KeyZ]),
    (Key::Digit0, &[K::Digit0, K::Numpad0]),
    (Key::Digit1, &[K::Digit1, K::Numpad1]),
    (Key::Digit2, &[K::Digit2, K::Numpad2]),
    (Key::Digit3, &[K::Digit3, K::Numpad3]),
    (Key::Digit4, &[K::Digit4, K::Numpad4]),
    (Key::Digit5, &[K::Digit5, K::Numpad5]),
    (Key::Digit6, &[K::Digit6, K::Numpad6]),
    (Key::Digit7, &[K::Digit7, K::Numpad7]),
    (Key::Digit8, &[K::Digit8, K::Numpad8]),
    (Key::Digit9, &[K::Digit9, K::Numpad9]),
];

/// The script key for a window key code, if scripts know it.
pub fn key_for_code(code: KeyCode) -> Option<Key> {
    CODES
        .iter()
        .find(|(_, codes)| codes.contains(&code))
        .map(|(key, _)| *key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_window_codes_that_map_back() {
        let keys: Vec<Key> = game_host::input::keys().map(|(_, key)| key).collect();
        assert_eq!(keys.len(), CODES.len());
        for (key, codes) in CODES {
            assert!(keys.contains(key));
            assert!(!codes.is_empty(), "{key:?} has no window key code");
            for code in *codes {
                assert_eq!(key_for_code(*code), Some(*key));
            }
        }
        assert_eq!(key_for_code(KeyCode::NumpadEnter), Some(Key::Enter));
        assert_eq!(key_for_code(KeyCode::F1), None);
    }
}
