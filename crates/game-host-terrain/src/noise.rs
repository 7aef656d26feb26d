//! Deterministic 2-D value noise with fractal octaves: the terrain height
//! function. Integer hashing only, so results are identical on every thread
//! and machine.

/// Octaves summed for the height.
const OCTAVES: u32 = 5;
/// World units per lattice cell of the first octave.
const BASE_SCALE: f32 = 96.0;
/// Height of the first octave, in world units.
const AMPLITUDE: f32 = 24.0;
const SEED: u32 = 0x9e37_79b9;

/// Terrain height at world position `(x, z)`.
pub fn height(x: f32, z: f32) -> f32 {
    let mut sum = 0.0;
    let mut amplitude = AMPLITUDE;
    let mut frequency = 1.0 / BASE_SCALE;
    for octave in 0..OCTAVES {
        sum += amplitude * value_noise(x * frequency, z * frequency, SEED.wrapping_add(octave));
        amplitude *= 0.5;
        frequency *= 2.0;
    }
    sum
}

/// Smoothly interpolated lattice noise in `[-1, 1]`.
fn value_noise(x: f32, z: f32, seed: u32) -> f32 {
    let (x0, z0) = (x.floor(), z.floor());
    let (fx, fz) = (smooth(x - x0), smooth(z - z0));
    let (ix, iz) = (x0 as i32, z0 as i32);
    let corner = |dx: i32, dz: i32| lattice(ix.wrapping_add(dx), iz.wrapping_add(dz), seed);
    let top = lerp(corner(0, 0), corner(1, 0), fx);
    let bottom = lerp(corner(0, 1), corner(1, 1), fx);
    lerp(top, bottom, fz)
}

fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// A pseudo-random value in `[-1, 1]` for a lattice point.
fn lattice(x: i32, z: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x27d4_eb2d) ^ (z as u32).wrapping_mul(0x1656_67b1) ^ seed;
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    (h as f32 / u32::MAX as f32) * 2.0 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn height_is_bounded_and_varies() {
        let bound = AMPLITUDE * 2.0;
        let samples: Vec<f32> = (0..100)
            .map(|i| height(i as f32 * 7.3, i as f32 * -3.1))
            .collect();
        assert!(samples.iter().all(|h| h.abs() <= bound));
        let spread = samples.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
            - samples.iter().cloned().fold(f32::INFINITY, f32::min);
        assert!(spread > 1.0, "{spread}");
    }
}
