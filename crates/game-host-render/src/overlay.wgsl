// The overlay: instanced cells, each a 5x7 glyph (or a filled rectangle),
// placed in clip space by the CPU. A cell's pixel is drawn where its
// glyph's bit is set.

struct Cell {
    @location(0) origin: vec2<f32>,
    @location(1) size: vec2<f32>,
    @location(2) bits: vec2<u32>,
    @location(3) color: vec4<f32>,
};

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) bits: vec2<u32>,
    @location(2) color: vec4<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32, cell: Cell) -> Out {
    // A triangle strip of four corners: (0,0) (1,0) (0,1) (1,1).
    let corner = vec2<f32>(f32(index & 1u), f32((index >> 1u) & 1u));
    var out: Out;
    out.clip = vec4<f32>(cell.origin + corner * cell.size, 0.0, 1.0);
    out.uv = corner;
    out.bits = cell.bits;
    out.color = cell.color;
    return out;
}

@fragment
fn fs_main(in: Out) -> @location(0) vec4<f32> {
    let col = min(u32(in.uv.x * 5.0), 4u);
    let row = min(u32(in.uv.y * 7.0), 6u);
    let bit = row * 5u + col;
    var on = 0u;
    if bit < 32u {
        on = (in.bits.x >> bit) & 1u;
    } else {
        on = (in.bits.y >> (bit - 32u)) & 1u;
    }
    if on == 0u {
        discard;
    }
    return in.color;
}
