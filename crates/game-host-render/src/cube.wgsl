// Instanced, lit cubes: one draw call for the whole scene.

struct Globals {
    view_projection: mat4x4<f32>,
    // xyz: direction toward the light (world space).
    light: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // The instance's model matrix, one column per attribute.
    @location(2) model_0: vec4<f32>,
    @location(3) model_1: vec4<f32>,
    @location(4) model_2: vec4<f32>,
    @location(5) model_3: vec4<f32>,
    @location(6) color: vec4<f32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec3<f32>,
};

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    let model = mat4x4<f32>(v.model_0, v.model_1, v.model_2, v.model_3);
    var out: VertexOut;
    out.clip = globals.view_projection * model * vec4<f32>(v.position, 1.0);
    // Rotation-and-scale part; normalizing after is enough for our scales.
    out.normal = (model * vec4<f32>(v.normal, 0.0)).xyz;
    out.color = v.color.rgb;
    return out;
}

@fragment
fn fs_main(f: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(f.normal);
    let diffuse = max(dot(n, normalize(globals.light.xyz)), 0.0);
    return vec4<f32>(f.color * (0.3 + 0.7 * diffuse), 1.0);
}
