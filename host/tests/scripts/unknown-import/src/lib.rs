//! Test script: imports `test:missing/thing`, which the host does not
//! provide. The host must refuse it with an error naming the import.

wit_bindgen::generate!({
    inline: "
        package test:missing;
        interface thing {
            frob: func();
        }
        world needs-thing {
            import thing;
            export entrypoint: func();
            export on-message: func(id: u32);
        }
    ",
});

struct NeedsThing;

impl Guest for NeedsThing {
    fn entrypoint() {
        test::missing::thing::frob();
    }

    fn on_message(_id: u32) {}
}

export!(NeedsThing);
