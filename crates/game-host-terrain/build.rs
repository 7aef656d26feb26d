//! Tells the build script of a crate that depends on this one that it is
//! a host extension, and which crate offers `extension()`: Cargo passes a
//! `links` package's metadata to its direct dependents' build scripts
//! (`DEP_GAME_HOST_TERRAIN_EXTENSION`), so the `host` binary links every
//! extension it depends on without naming one in its code.

fn main() {
    let crate_name = env!("CARGO_PKG_NAME").replace('-', "_");
    println!("cargo::metadata=extension={crate_name}");
    println!("cargo::rerun-if-changed=build.rs");
}
