//! Many instances of one component: ids, independent state, dispatch order.

mod common;

use uuid::Uuid;

#[test]
fn two_instances_have_distinct_v7_ids_and_independent_state() {
    let engine = common::engine();
    let counter = common::load(&engine, "counter");
    let (mut runtime, log) = common::runtime();
    let a = runtime.spawn(&counter).unwrap();
    let b = runtime.spawn(&counter).unwrap();

    assert_ne!(a, b);
    assert_eq!(a.get_version_num(), 7);
    assert_eq!(b.get_version_num(), 7);

    runtime.run_frames(10);

    // Each instance counted its own 10 updates in its own memory.
    assert_eq!(common::transform(&runtime, "counter-0").position.x, 10.0);
    assert_eq!(common::transform(&runtime, "counter-1").position.x, 10.0);

    // Both subscribed; dispatch order is subscription order, every frame.
    assert_eq!(runtime.inspect().dispatch_order(), [(a, 0), (b, 0)]);
    let ticks: Vec<(u64, Uuid, String)> = log
        .records()
        .into_iter()
        .map(|r| (r.frame, r.instance, r.message))
        .collect();
    let expected: Vec<(u64, Uuid, String)> = (1..=10)
        .flat_map(|f| [(f, a, format!("tick {f}")), (f, b, format!("tick {f}"))])
        .collect();
    assert_eq!(ticks, expected);

    let infos = runtime.inspect().instances();
    assert_eq!(infos.len(), 2);
    assert!(infos.iter().all(|i| i.name == "test_counter"));
    assert!(infos.iter().all(|i| i.subscriptions == [0]));
}

#[test]
fn one_load_serves_many_instances() {
    const N: usize = 40;
    let engine = common::engine();
    let counter = common::load(&engine, "counter");
    let (mut runtime, _log) = common::runtime();
    let ids: Vec<Uuid> = (0..N).map(|_| runtime.spawn(&counter).unwrap()).collect();

    runtime.run_frames(3);

    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), N);
    for k in 0..N {
        let t = common::transform(&runtime, &format!("counter-{k}"));
        assert_eq!(t.position.x, 3.0, "counter-{k}");
    }
    assert_eq!(runtime.inspect().live_instances(), N);
}

#[test]
fn despawned_instance_stops_and_its_slot_is_reused() {
    let engine = common::engine();
    let counter = common::load(&engine, "counter");
    let (mut runtime, _log) = common::runtime();
    let a = runtime.spawn(&counter).unwrap();
    let b = runtime.spawn(&counter).unwrap();
    runtime.run_frames(2);

    assert!(runtime.despawn(a));
    assert!(!runtime.despawn(a));
    runtime.run_frames(3);
    let c = runtime.spawn(&counter).unwrap();
    runtime.run_frames(1);

    assert_eq!(common::transform(&runtime, "counter-0").position.x, 2.0);
    assert_eq!(common::transform(&runtime, "counter-1").position.x, 6.0);
    assert_eq!(common::transform(&runtime, "counter-2").position.x, 1.0);
    assert_eq!(runtime.inspect().dispatch_order(), [(b, 0), (c, 0)]);
}
