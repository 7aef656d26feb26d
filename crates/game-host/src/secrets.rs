//! The environment variables that hold the host's secrets. No child the
//! host starts (a build tool running a script crate's `build.rs`, a
//! componentizer) is handed them: [`without_secrets`] removes them from a
//! command's environment.

use std::process::Command;

/// The control surface's token (`host serve`).
pub const CONTROL_TOKEN_ENV: &str = "GAME_HOST_CONTROL_TOKEN";

/// The password of a fleet's Redis (`host serve --fleet`).
pub const FLEET_PASSWORD_ENV: &str = "GAME_HOST_FLEET_PASSWORD";

/// Every variable that holds a secret: a secret the host reads from its
/// environment is named here, and so kept from every child it starts
/// (the tests set each one and look for it in a build script's
/// environment).
pub const SECRET_ENV: &[&str] = &[CONTROL_TOKEN_ENV, FLEET_PASSWORD_ENV];

/// Keeps this process from the other processes of its user, once it
/// holds a secret: a crate's build script runs as the user, and
/// `/proc/PID/environ` keeps the environment the process started with
/// (a secret removed from a child's environment is still there). The
/// process is made non-dumpable, so its `/proc/PID/environ`, `mem` and
/// `maps` are root's alone and no process of the user's may attach a
/// debugger to it (nor does it leave a core dump). Fails only on a system
/// without `prctl`, where it says so and goes on.
pub fn keep_from_other_processes() {
    use rustix::process::{DumpableBehavior, set_dumpable_behavior};
    if let Err(error) = set_dumpable_behavior(DumpableBehavior::NotDumpable) {
        tracing::warn!(
            "cannot keep the host's secrets from its user's other processes ({error}): a build \
             script could read them in /proc"
        );
    }
}

/// `command`, with none of [`SECRET_ENV`] in its environment.
pub fn without_secrets(command: &mut Command) -> &mut Command {
    for name in SECRET_ENV {
        command.env_remove(name);
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_holding_secrets_is_not_dumpable() {
        keep_from_other_processes();
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }

    #[test]
    fn a_child_never_sees_a_secret() {
        for name in SECRET_ENV {
            let mut command = Command::new("sh");
            command.env(name, "sixteen-chars-or-more");
            without_secrets(&mut command);
            let seen = command
                .args(["-c", &format!("printf %s \"${{{name}-unset}}\"")])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&seen.stdout), "unset", "{name}");
        }
    }
}
