//! The host extensions this binary links: every dependency that says it is
//! one (`build.rs` reads what Cargo passes on from each extension crate),
//! so adding an extension to the `host` binary is adding its crate to
//! `host/Cargo.toml`. Scripts that import an extension's WIT then load,
//! and its job kinds run.

include!(concat!(env!("OUT_DIR"), "/extensions.rs"));
