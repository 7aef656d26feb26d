//! [`Kind`]: the type of a described field, as a description and WIT spell
//! it. (Its values cross in `guest::imports::typed_data`.)

/// A described field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    F32,
    F64,
    S32,
    S64,
    U32,
    Bool,
    String,
    Vec3,
    Quat,
}

impl Kind {
    /// Every kind, in the order errors list them.
    pub const ALL: [Kind; 9] = [
        Kind::F32,
        Kind::F64,
        Kind::S32,
        Kind::S64,
        Kind::U32,
        Kind::Bool,
        Kind::String,
        Kind::Vec3,
        Kind::Quat,
    ];

    /// Its name in a description, which is also its WIT type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::F32 => "f32",
            Kind::F64 => "f64",
            Kind::S32 => "s32",
            Kind::S64 => "s64",
            Kind::U32 => "u32",
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Vec3 => "vec3",
            Kind::Quat => "quat",
        }
    }

    /// The kind a description names.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}
