//! A stored file as requests and answers name it (uploaded through `/files`).

use fleetdesk_proto::common::v1 as common;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A stored file (uploaded through `/files`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct FileRefBody {
    /// Object-store key from the upload.
    pub key: String,
    pub name: String,
    pub content_type: String,
    pub size_bytes: i64,
}

impl From<common::FileRef> for FileRefBody {
    fn from(f: common::FileRef) -> Self {
        FileRefBody {
            key: f.key,
            name: f.name,
            content_type: f.content_type,
            size_bytes: f.size_bytes,
        }
    }
}

impl From<FileRefBody> for common::FileRef {
    fn from(f: FileRefBody) -> Self {
        common::FileRef {
            name: f.name,
            key: f.key,
            content_type: f.content_type,
            size_bytes: f.size_bytes,
        }
    }
}
