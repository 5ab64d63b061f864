//! A new migration file rebuilds the crate: `sqlx::migrate!` embeds the
//! directories at compile time, and on stable Rust Cargo learns of a file
//! only when told (an edited one it tracks, an added one it would miss).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=migrations-org-replica");
}
