//! Compiles every `.proto` under `fleetdesk/` with the pure-Rust `protox` compiler
//! (no system `protoc`), writes the descriptor set for gRPC reflection, and
//! generates prost messages plus tonic clients and servers.

use std::path::{Path, PathBuf};

fn collect_protos(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_protos(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "proto") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let mut files = Vec::new();
    collect_protos(&root.join("fleetdesk"), &mut files);
    println!("cargo:rerun-if-changed=fleetdesk");

    let fds = protox::compile(&files, [&root]).expect("proto files compile");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("out dir"));
    std::fs::write(
        out_dir.join("fleetdesk_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )
    .expect("write descriptor set");

    tonic_prost_build::configure()
        // No default stubs: an RPC is either built or listed with
        // `fleetdesk_kit::not_built!`, so the unbuilt surface is written down.
        .generate_default_stubs(false)
        .compile_fds(fds.clone())
        .expect("generate Rust code");

    // One nested module per proto package: `fleetdesk.auth.v1` becomes `auth::v1`.
    let mut packages: Vec<String> = fds.file.iter().filter_map(|f| f.package.clone()).collect();
    packages.sort();
    packages.dedup();
    let mut tree = String::new();
    for package in packages.iter().filter(|p| p.starts_with("fleetdesk.")) {
        let parts: Vec<&str> = package.split('.').skip(1).collect();
        for part in &parts {
            tree.push_str(&format!("pub mod {part} {{\n"));
        }
        tree.push_str("#![allow(clippy::all, clippy::pedantic, missing_docs)]\n");
        tree.push_str(&format!(
            "include!(concat!(env!(\"OUT_DIR\"), \"/{package}.rs\"));\n"
        ));
        tree.push_str(&"}\n".repeat(parts.len()));
    }
    std::fs::write(out_dir.join("packages.rs"), tree).expect("write packages.rs");
}
