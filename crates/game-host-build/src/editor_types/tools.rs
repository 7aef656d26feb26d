//! [`Tool`]: the editor-type tools beyond the build tools (jco writes
//! JavaScript declarations; pyright and TypeScript's `tsc` check scripts),
//! at the versions the project is tested with, and how to install each.

/// A tool installed from npm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// The command it installs.
    pub program: &'static str,
    /// Its npm package.
    pub package: &'static str,
    /// The version the project is tested with (and `./test.sh` installs).
    pub version: &'static str,
    /// Whether PyPI has it too, by the same name (a Python modder's way).
    pub on_pypi: bool,
}

/// jco, which writes a WIT world's TypeScript declarations. 1.35.0, the
/// newest, reads no WIT path at all (its filesystem shim opens nothing by
/// default), so the project stays on 1.34.0.
pub const JCO: Tool = Tool {
    program: "jco",
    package: "@bytecodealliance/jco",
    version: "1.34.0",
    on_pypi: false,
};

/// pyright, which type-checks Python scripts against the stubs.
pub const PYRIGHT: Tool = Tool {
    program: "pyright",
    package: "pyright",
    version: "1.1.414",
    on_pypi: true,
};

/// TypeScript's `tsc`, which type-checks JavaScript scripts (`checkJs`).
pub const TYPESCRIPT: Tool = Tool {
    program: "tsc",
    package: "typescript",
    version: "7.0.2",
    on_pypi: false,
};

impl Tool {
    /// The command that installs it.
    pub fn install_hint(&self) -> String {
        format!("npm install -g {}@{}", self.package, self.version)
    }

    /// One line saying it is missing and how to install it (from PyPI
    /// too, where it is there: `pip install "game-host[check]"` brings it).
    pub fn missing(&self) -> String {
        let mut line = format!(
            "{} is not installed: `{}`",
            self.program,
            self.install_hint()
        );
        if self.on_pypi {
            line.push_str(&format!(
                " (or `pip install {}=={}`)",
                self.package, self.version
            ));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_names_its_install_command() {
        assert_eq!(
            JCO.missing(),
            "jco is not installed: `npm install -g @bytecodealliance/jco@1.34.0`"
        );
        assert_eq!(
            PYRIGHT.missing(),
            "pyright is not installed: `npm install -g pyright@1.1.414` \
             (or `pip install pyright==1.1.414`)"
        );
    }
}
