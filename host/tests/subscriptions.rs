//! Subscribing and unsubscribing from inside `entrypoint` and `on-message`.

mod common;

#[test]
fn changes_made_in_on_message_take_effect_next_frame() {
    let engine = common::engine();
    let churn = common::load(&engine, "churn");
    let (mut runtime, log) = common::runtime();
    let id = runtime.spawn(&churn).unwrap();
    // entrypoint: subscribe 1, unsubscribe 1, subscribe 1.
    assert_eq!(runtime.inspect().dispatch_order(), [(id, 1)]);

    runtime.run_frames(12);

    let expected = [
        (1, 1),
        (2, 1), // subscribes 2
        (3, 1),
        (3, 2),
        (4, 1), // unsubscribes 1; msg 1 was already dispatched this frame
        (4, 2),
        (5, 2), // subscribes 1 twice: once, after 2
        (6, 2),
        (6, 1),
        (7, 2),
        (7, 1),
        (8, 2), // unsubscribes 1 and 2; 1 still runs this frame
        (8, 1),
    ]
    .map(|(frame, msg)| format!("frame {frame} msg {msg}"));
    assert_eq!(log.messages(), expected);
    assert_eq!(
        runtime.inspect().instance(id).unwrap().subscriptions,
        Vec::<u32>::new()
    );
    assert!(runtime.inspect().errors().is_empty());
}
