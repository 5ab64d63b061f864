//! Attachments (`common.v1.FileRef`) between the wire and a jsonb column.

use fleetdesk_proto::common::v1 as common;
use serde_json::{Value, json};

/// The files as stored: `[{name, key, contentType, sizeBytes}]`.
pub fn to_json(files: &[common::FileRef]) -> Value {
    Value::Array(
        files
            .iter()
            .map(|f| {
                let common::FileRef {
                    name,
                    key,
                    content_type,
                    size_bytes,
                } = f;
                json!({"name": name, "key": key, "contentType": content_type, "sizeBytes": size_bytes})
            })
            .collect(),
    )
}

/// The stored files back; entries without a key are dropped.
pub fn from_json(value: &Value) -> Vec<common::FileRef> {
    let text = |f: &Value, k: &str| f.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    value
        .as_array()
        .map(|files| {
            files
                .iter()
                .map(|f| common::FileRef {
                    name: text(f, "name"),
                    key: text(f, "key"),
                    content_type: text(f, "contentType"),
                    size_bytes: f.get("sizeBytes").and_then(Value::as_i64).unwrap_or(0),
                })
                .filter(|f| !f.key.is_empty())
                .collect()
        })
        .unwrap_or_default()
}
