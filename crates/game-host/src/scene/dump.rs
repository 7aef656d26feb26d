//! The `--dump-scene` JSON form of a scene:
//! `{"frame": N, "entities": [{"name", "position": [x,y,z],
//! "rotation": [x,y,z,w], "scale": [x,y,z]}]}`, entities in creation order.

use serde::{Deserialize, Serialize};

use super::game_scene::GameScene;

/// A serializable snapshot of the scene after `frame` frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneDump {
    /// Number of frames run.
    pub frame: u64,
    /// Entities in creation order.
    pub entities: Vec<EntityDump>,
}

/// One entity in a [`SceneDump`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityDump {
    /// Entity name.
    pub name: String,
    /// `[x, y, z]`.
    pub position: [f32; 3],
    /// `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// `[x, y, z]`.
    pub scale: [f32; 3],
}

impl SceneDump {
    /// Snapshots `scene` as it is after `frame` frames.
    pub fn new(scene: &mut dyn GameScene, frame: u64) -> Self {
        let mut entities = Vec::with_capacity(scene.len());
        scene.for_each(&mut |_, name, transform| {
            entities.push(EntityDump {
                name: name.to_owned(),
                position: transform.position.to_array(),
                rotation: transform.rotation.to_array(),
                scale: transform.scale.to_array(),
            })
        });
        SceneDump { frame, entities }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scene dump always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_documented_shape() {
        let mut scene = crate::scene::Scene::with_default_cube();
        let json: serde_json::Value =
            serde_json::from_str(&SceneDump::new(&mut scene, 7).to_json()).unwrap();
        assert_eq!(json["frame"], 7);
        let cube = &json["entities"][0];
        assert_eq!(cube["name"], "cube");
        assert_eq!(cube["position"], serde_json::json!([0.0, 0.0, 0.0]));
        assert_eq!(cube["rotation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
        assert_eq!(cube["scale"], serde_json::json!([1.0, 1.0, 1.0]));
    }
}
