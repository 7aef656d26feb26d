//! Lower-case hexadecimal text of digests and keys. A leaf.

/// `bytes` as lower-case hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_digits_a_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xab]), "000fab");
    }
}
