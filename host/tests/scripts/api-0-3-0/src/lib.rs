//! Test script: binds `game:engine@0.3.0`, a release this host does not
//! provide (its `log` interface stands in for all of it). The host must
//! refuse it naming both versions, instead of a bare missing import.

wit_bindgen::generate!({
    inline: "
        package game:engine@0.3.0;
        interface log {
            enum level { trace, debug, info, warn, error }
            log: func(level: level, message: string);
        }
        world script {
            import log;
            export entrypoint: func();
        }
    ",
});

struct Future;

impl Guest for Future {
    fn entrypoint() {
        game::engine::log::log(game::engine::log::Level::Info, "from the future");
    }
}

export!(Future);
