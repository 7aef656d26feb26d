//! The script key of a window key code, from `game_host::input`'s one
//! table of keys, their names and their codes.

use game_host::input::Key;
use winit::keyboard::KeyCode;

/// The script key for a window key code, if scripts know it: by the
/// code's W3C name, in the core's one key table.
pub fn key_for_code(code: KeyCode) -> Option<Key> {
    game_host::input::key_for_code_name(&format!("{code:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_codes_map_to_script_keys_through_the_one_table() {
        assert_eq!(key_for_code(KeyCode::KeyA), Some(Key::A));
        assert_eq!(key_for_code(KeyCode::ArrowUp), Some(Key::Up));
        assert_eq!(key_for_code(KeyCode::Digit7), Some(Key::Digit7));
        assert_eq!(key_for_code(KeyCode::Numpad7), Some(Key::Digit7));
        assert_eq!(key_for_code(KeyCode::NumpadEnter), Some(Key::Enter));
        assert_eq!(key_for_code(KeyCode::F1), None);
    }
}
