//! Test script: a component of another world, exporting `entrypoint` but no
//! `on-update`. The host must refuse it with an error naming the export.

wit_bindgen::generate!({
    inline: "
        package test:partial;
        world partial {
            export entrypoint: func();
        }
    ",
});

struct Partial;

impl Guest for Partial {
    fn entrypoint() {}
}

export!(Partial);
