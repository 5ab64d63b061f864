//! The Fleetdesk gRPC contracts. Module nesting mirrors the proto packages:
//! `fleetdesk.auth.v1` is `fleetdesk_proto::auth::v1`.

/// Encoded `FileDescriptorSet` of every contract, served by gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/fleetdesk_descriptor.bin"));

pub mod lean;

include!(concat!(env!("OUT_DIR"), "/packages.rs"));
