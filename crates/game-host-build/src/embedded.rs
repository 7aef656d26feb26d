//! What `build.rs` embeds from the workspace: the SDK's files
//! (`SDK_FILES`, `SDK_ID`), and each extension's guest half, found by its
//! layout (a crate under `crates/` with `guest/` and `wit/`): its WIT
//! package (`EXTENSION_WIT`), which Python and JavaScript scripts are built
//! against, and its guest crate (`GUEST_CRATES`), which ships in the SDK.

include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));
