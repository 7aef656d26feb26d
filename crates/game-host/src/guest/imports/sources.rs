//! `game:live/sources`: a live Python or JavaScript script's sources,
//! handed to its language's runtime component as data (see
//! the live path of `componentize`). Read-only and in memory: the runtime sees
//! the files of its own script, and nothing of the host's file system.

use std::sync::Arc;

use crate::guest::LiveSources;
use crate::guest::ScriptState;
use crate::guest::bindings::live::sources::{Host, SourceFile};

impl Host for ScriptState {
    fn root(&mut self) -> wasmtime::Result<String> {
        Ok(self
            .live_sources()
            .map(|s| s.root.clone())
            .unwrap_or_default())
    }

    fn files(&mut self) -> wasmtime::Result<Vec<SourceFile>> {
        let files = self.live_sources().map(|sources| {
            sources
                .files
                .iter()
                .map(|(path, text)| SourceFile {
                    path: path.clone(),
                    text: text.clone(),
                })
                .collect()
        });
        Ok(files.unwrap_or_default())
    }
}

impl ScriptState {
    fn live_sources(&self) -> Option<&Arc<LiveSources>> {
        self.live.as_ref()
    }
}
