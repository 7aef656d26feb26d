//! The dispatch path allocates nothing per frame: after a warm-up, frames
//! of scripts that only update (no-ops, and a spinning cube kept by entity
//! id) make no heap allocation on the frame thread. (These run on one frame
//! thread: a frame handed to the frame threads allocates a little more,
//! rayon's scope and a job per helper.) Counted with a counting
//! global allocator, not timed. (A call that borrows a resource handle
//! allocates once, in wasmtime's borrow tracking; fetching a handle by name
//! every frame allocates the name string and the table entry.)

mod common;

use game_host::scene::GameScene;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// thread-local counter is const-initialised, so counting never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed through.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `realloc` is passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Allocations on this thread while `runtime` runs `frames` frames.
fn allocations_in(runtime: &mut game_host::Runtime, frames: u64) -> u64 {
    let before = allocations();
    runtime.run_frames(frames);
    allocations() - before
}

#[test]
fn the_dispatch_path_allocates_nothing_per_frame() {
    let engine = common::engine();
    let noop = common::load(&engine, "noop");
    let (mut runtime, _log) = common::runtime_with(game_host::RuntimeConfig {
        frame_threads: 1,
        ..game_host::RuntimeConfig::default()
    });
    for _ in 0..50 {
        runtime.spawn(&noop).unwrap();
    }
    // Warm-up: buffers grow to their working size.
    runtime.run_frames(100);
    let made = allocations_in(&mut runtime, 1000);
    assert_eq!(
        made, 0,
        "{made} allocations in 1,000 frames of 50 instances"
    );
    assert_eq!(runtime.frame(), 1100);
    assert_eq!(runtime.inspect().live_instances(), 50);
    assert!(runtime.inspect().errors().is_empty());
}

/// Runs the peers script in `mode` (spinning the cube with two host calls
/// per update: read the rotation, write it back) and returns the
/// allocations made in 1,000 frames after a warm-up.
fn kept_cube_allocations(mode: &str) -> u64 {
    let engine = common::engine();
    let peers = common::load(&engine, "peers");
    let (mut runtime, _log) = common::runtime();
    runtime.scene().lock().unwrap().spawn(mode);
    runtime.spawn(&peers).unwrap();
    runtime.run_frames(100);
    let made = allocations_in(&mut runtime, 1000);
    assert!(runtime.inspect().errors().is_empty(), "{mode}");
    let rotation = common::transform(&runtime, "cube").rotation;
    assert_ne!(
        rotation,
        game_host::Transform::default().rotation,
        "{mode}: the cube turned"
    );
    made
}

#[test]
fn host_calls_by_entity_id_allocate_nothing() {
    // WIT `entity`: flat values by id, no resource borrowed.
    let made = kept_cube_allocations("peers:kept");
    assert_eq!(made, 0, "{made} allocations in 1,000 frames");
}

#[test]
fn the_sdk_transform_component_goes_by_entity_id_and_allocates_nothing() {
    // the `host new` template's script keeps a `TransformComponent` and calls its
    // methods: they take the flat `entity` calls, no resource borrowed.
    let made = kept_cube_allocations("peers:kept-transform");
    assert_eq!(made, 0, "{made} allocations in 1,000 frames");
}

#[test]
fn host_calls_on_a_borrowed_handle_allocate_at_most_once_each() {
    // wasmtime records each borrowed resource handle for the length of the
    // call (a fresh list per call with a borrow: one allocation).
    let made = kept_cube_allocations("peers:kept-handle");
    assert!(made <= 2 * 1000, "{made} allocations in 1,000 frames");
}
