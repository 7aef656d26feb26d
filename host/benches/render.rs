//! Offscreen frame time for scenes of 1, 1,000 and 10,000 cubes (one
//! instanced draw call each), including the instance upload and waiting for
//! the GPU. Run with `cargo bench -p game-host-cli --bench render`; on a machine
//! without a GPU it measures lavapipe, Mesa's software Vulkan.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use game_host::{Scene, Transform};
use game_host_render::Offscreen;
use glam::{Quat, Vec3};

/// `n` cubes on a square grid, each turned a little differently.
fn grid(n: usize) -> Scene {
    let side = (n as f32).sqrt().ceil() as usize;
    let mut scene = Scene::new();
    for i in 0..n {
        let (x, z) = ((i % side) as f32, (i / side) as f32);
        scene.spawn_with(
            &format!("cube {i}"),
            Transform {
                position: Vec3::new(x * 2.0, 0.0, z * 2.0),
                rotation: Quat::from_rotation_y(i as f32 * 0.1),
                scale: Vec3::ONE,
            },
        );
    }
    scene
}

fn frame_time(c: &mut Criterion) {
    let mut offscreen = Offscreen::new(640, 480).expect("a GPU or lavapipe");
    println!("adapter: {}", offscreen.gpu().describe());
    let mut group = c.benchmark_group("render_640x480");
    for n in [1, 1_000, 10_000] {
        let mut scene = grid(n);
        group.bench_function(format!("{n}_cubes"), |b| {
            b.iter(|| offscreen.render(&mut scene).unwrap())
        });
    }
    group.finish();
}

criterion_group! {
    name = render;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = frame_time
}
criterion_main!(render);
