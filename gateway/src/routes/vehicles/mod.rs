//! Vehicles and who drives them: asset files, terminal bindings, private
//! cars, drivers and usage records.

pub mod assets;
pub mod bindings;
pub mod brand_types;
mod convert;
pub mod drivers;
pub mod private_cars;
pub mod usage_records;
