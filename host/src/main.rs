//! `host`: the command-line front end. See `host run --help`.

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    quiet_vulkan_layer();
    tracing_subscriber::fmt()
        .with_env_filter(
            // The file watcher's own notes (a watched directory renamed
            // away, as editor types are when refreshed) are not the
            // author's business.
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,notify=warn".into()),
        )
        .with_writer(std::io::stderr)
        // Colour only on a terminal, and never under NO_COLOR
        // (https://no-color.org): a redirected log stays plain text.
        .with_ansi(
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        )
        .without_time()
        .init();
    let args = cli::Cli::parse();
    match cli::main(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` connects to
/// Wayland to find the default GPU; without `XDG_RUNTIME_DIR` (a server, a
/// container, CI) there is no Wayland session to find and libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set` on a run that succeeds.
/// Then the layer has nothing to add: turn it off (its documented
/// `NODEVICE_SELECT` switch) so the log shows only real errors.
fn quiet_vulkan_layer() {
    let unset = |name| std::env::var_os(name).is_none_or(|v| v.is_empty());
    if unset("XDG_RUNTIME_DIR") && unset("NODEVICE_SELECT") {
        // SAFETY: called first thing in `main`, before any thread exists
        // that could read the environment concurrently.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}
