//! Compiles every `.proto` under `fleetdesk/` with the pure-Rust `protox` compiler
//! (no system `protoc`), writes the descriptor set for gRPC reflection, and
//! generates prost messages, tonic clients and servers, and the lean clients
//! of `src/lean.rs`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use heck::{ToSnakeCase, ToUpperCamelCase};
use prost::Message as _;
use prost_types::FileDescriptorSet;

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
        fds.encode_to_vec(),
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
    let lean = lean_clients(&fds);
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
        if let Some(code) = lean.get(package) {
            std::fs::write(out_dir.join(format!("lean.{package}.rs")), code)
                .expect("write lean clients");
            tree.push_str(&format!(
                "/// Lean clients of this package's services (`crate::lean`).\n\
                 pub mod lean {{\ninclude!(concat!(env!(\"OUT_DIR\"), \"/lean.{package}.rs\"));\n}}\n"
            ));
        }
        tree.push_str(&"}\n".repeat(parts.len()));
    }
    std::fs::write(out_dir.join("packages.rs"), tree).expect("write packages.rs");
}

/// The Rust path of message `full_name` (`.fleetdesk.vehicle.v1.Foo`) from
/// a package's `lean` module, as prost-build names it.
fn rust_type(full_name: &str, packages: &[String]) -> String {
    let name = full_name.trim_start_matches('.');
    let package = packages
        .iter()
        .filter(|p| name.starts_with(&format!("{p}.")))
        .max_by_key(|p| p.len())
        .unwrap_or_else(|| panic!("no package holds {name}"));
    let mut parts: Vec<&str> = name[package.len() + 1..].split('.').collect();
    let message = parts.pop().expect("a message name").to_upper_camel_case();
    let nesting: Vec<String> = parts.iter().map(|p| p.to_snake_case()).collect();
    let root = match package.strip_prefix("fleetdesk.") {
        Some(rest) => format!("crate::{}", rest.replace('.', "::")),
        None if package == "google.protobuf" => "::prost_types".to_owned(),
        None => panic!("RPC message {name} outside the fleetdesk packages"),
    };
    [root]
        .into_iter()
        .chain(nesting)
        .chain([message])
        .collect::<Vec<_>>()
        .join("::")
}

/// Per package, the code of its `lean` module: a client per service with
/// tonic's method names and signatures, calling through
/// `crate::lean::LeanChannel`.
fn lean_clients(fds: &FileDescriptorSet) -> BTreeMap<String, String> {
    let packages: Vec<String> = fds.file.iter().filter_map(|f| f.package.clone()).collect();
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for file in &fds.file {
        let package = file.package();
        for service in &file.service {
            let code = out.entry(package.to_owned()).or_default();
            let client = format!("{}Client", service.name().to_upper_camel_case());
            let qualified = format!("{package}.{}", service.name());
            writeln!(
                code,
                "/// `{qualified}`, every unary call through one instantiation of tonic's.\n\
                 #[derive(Debug, Clone)]\n\
                 pub struct {client} {{ inner: crate::lean::LeanChannel }}\n\
                 impl {client} {{\n\
                 pub fn new(channel: tonic::transport::Channel) -> Self {{ \
                 {client} {{ inner: crate::lean::LeanChannel::new(channel) }} }}\n\
                 /// Limits the size of a decoded message (tonic's default: 4 MB).\n\
                 #[must_use]\n\
                 pub fn max_decoding_message_size(self, limit: usize) -> Self {{ \
                 {client} {{ inner: self.inner.max_decoding_message_size(limit) }} }}"
            )
            .unwrap();
            for method in &service.method {
                assert!(
                    !method.client_streaming(),
                    "{qualified}.{}: lean clients make no client-streaming calls",
                    method.name()
                );
                let input = rust_type(method.input_type(), &packages);
                let output = rust_type(method.output_type(), &packages);
                let rpc = format!(
                    "crate::lean::Rpc {{ path: \"/{qualified}/{name}\", service: \"{qualified}\", method: \"{name}\" }}",
                    name = method.name()
                );
                let (answer, call) = if method.server_streaming() {
                    (
                        format!("tonic::codec::Streaming<{output}>"),
                        "server_streaming",
                    )
                } else {
                    (output.clone(), "unary")
                };
                writeln!(
                    code,
                    "pub async fn {fn_name}(&mut self, request: impl tonic::IntoRequest<{input}>) \
                     -> Result<tonic::Response<{answer}>, tonic::Status> {{ \
                     self.inner.{call}(request.into_request(), {rpc}).await }}",
                    fn_name = method.name().to_snake_case()
                )
                .unwrap();
            }
            code.push_str("}\n");
        }
    }
    out
}
