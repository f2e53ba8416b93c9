//! The one macro every constant family is built with.
//!
//! A family is a list of `NAME = value` pairs. The macro emits a `pub const` per
//! entry and a static table of `(value, "NAME")` so printers and parsers look names
//! up in data rather than in hand-written `match` arms.

/// Declares constants of one family plus a `(value, name)` table for them.
///
/// ```ignore
/// code_table! {
///     /// Section types.
///     pub SECTION_TYPES: u32 {
///         SHT_CUDA_INFO = 0x7000_0000,
///     }
/// }
/// ```
#[macro_export]
macro_rules! code_table {
    (
        $(#[$meta:meta])*
        pub $table:ident: $ty:ty {
            $( $(#[$cmeta:meta])* $name:ident = $value:expr ),* $(,)?
        }
    ) => {
        $( $(#[$cmeta])* pub const $name: $ty = $value; )*
        $(#[$meta])*
        pub static $table: &[($ty, &str)] = &[ $( ($value, stringify!($name)) ),* ];
    };
}

/// Finds the name of `value` in a table made by [`code_table!`].
pub fn lookup<T: PartialEq + Copy>(table: &[(T, &'static str)], value: T) -> Option<&'static str> {
    table.iter().find(|(v, _)| *v == value).map(|(_, n)| *n)
}

/// Finds the value of `name` in a table made by [`code_table!`].
pub fn lookup_value<T: Copy>(table: &[(T, &'static str)], name: &str) -> Option<T> {
    table.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
}
