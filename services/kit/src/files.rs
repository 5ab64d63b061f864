//! The object store (docs/ARCHITECTURE.md §5): where uploads, exports and statements
//! live. A local directory for now (`FLEETDESK_OBJECT_STORE_DIR`, shared by
//! the gateway and every service that writes files); an S3-compatible store
//! later through object_store's `["aws-base", "reqwest", "ring"]` features
//! (not `aws`, which pulls aws-lc).
//!
//! Keys are namespaced by enterprise: `<enterprise_id>/<purpose>/<id>/<name>`,
//! so a key names its tenant and every check of a download can compare it.
//! Signed download links stay in the gateway, on top of this store.

use std::sync::Arc;

use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{GetResult, ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use tokio::io::AsyncReadExt as _;
use uuid::Uuid;

use crate::error::{ErrorCode, ServiceError};

/// The answer to a missing object, a bad or an expired link.
pub const GONE: &str = "文件不存在或已过期";

/// Size of the parts a local file is streamed to the store in.
const PART_BYTES: usize = 4 * 1024 * 1024;

/// The object store.
#[derive(Clone, Debug)]
pub struct FileStore {
    store: Arc<dyn ObjectStore>,
}

fn internal(err: &object_store::Error) -> ServiceError {
    ServiceError::internal(err)
}

/// A key as a store path; `None` for keys that are not well-formed.
pub fn path(key: &str) -> Option<Path> {
    if key.is_empty() || key.starts_with('/') || key.ends_with('/') {
        return None;
    }
    Path::parse(key).ok()
}

/// 4004 for a missing object.
pub fn gone() -> ServiceError {
    ServiceError::new(ErrorCode::NotFound, GONE)
}

/// The lower-case extension of a name, empty without one.
pub fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The content type of a stored name, from its extension.
pub fn content_type(name: &str) -> &'static str {
    match extension(name).as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "csv" => "text/csv; charset=utf-8",
        "pdf" => "application/pdf",
        "mp4" => "video/mp4",
        _ => "application/octet-stream",
    }
}

/// A file name safe as one key segment: its last path component, letters
/// (any script), digits and `.-_()` kept, everything else `_`, at most 80
/// characters keeping the extension, never starting with a dot.
pub fn sanitise(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    let mut clean: String = base
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '(' | ')') {
                c
            } else {
                '_'
            }
        })
        .collect();
    const MAX: usize = 80;
    if clean.chars().count() > MAX {
        let ext = extension(&clean);
        let keep = MAX.saturating_sub(ext.chars().count() + 1);
        let stem: String = clean.chars().take(keep).collect();
        clean = if ext.is_empty() {
            stem
        } else {
            format!("{stem}.{ext}")
        };
    }
    if clean.starts_with('.') || clean.is_empty() {
        clean.insert(0, '_');
    }
    clean
}

/// The key of a file of `enterprise_id` for `purpose`: a fresh or given id
/// segment keeps equal names apart, the last segment is the download name.
pub fn key(enterprise_id: Uuid, purpose: &str, id: &str, name: &str) -> String {
    format!("{enterprise_id}/{purpose}/{id}/{}", sanitise(name))
}

/// The name part of a key (its last segment).
pub fn key_name(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// Whether `key` belongs to `enterprise_id` (its first segment).
pub fn owned_by(key: &str, enterprise_id: Uuid) -> bool {
    key.split('/').next() == Some(enterprise_id.to_string().as_str())
}

impl FileStore {
    /// The store in a local directory, created when missing.
    pub fn local(dir: &std::path::Path) -> anyhow::Result<FileStore> {
        std::fs::create_dir_all(dir)?;
        let store = LocalFileSystem::new_with_prefix(dir)?.with_automatic_cleanup(true);
        Ok(FileStore {
            store: Arc::new(store),
        })
    }

    pub async fn put(&self, key: &str, bytes: Bytes) -> Result<(), ServiceError> {
        let path = path(key).ok_or_else(|| ServiceError::invalid("key", "文件名无效"))?;
        self.store
            .put(&path, PutPayload::from(bytes))
            .await
            .map_err(|e| internal(&e))?;
        Ok(())
    }

    /// Stores the local file at `source` under `key` in parts, so a large
    /// export never sits in memory whole. Returns its size in bytes.
    pub async fn put_file(&self, key: &str, source: &std::path::Path) -> Result<u64, ServiceError> {
        let path = path(key).ok_or_else(|| ServiceError::invalid("key", "文件名无效"))?;
        let mut file = tokio::fs::File::open(source)
            .await
            .map_err(|e| ServiceError::internal(&e))?;
        let upload = self
            .store
            .put_multipart(&path)
            .await
            .map_err(|e| internal(&e))?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
        let mut buffer = vec![0u8; 256 * 1024];
        let mut size = 0u64;
        loop {
            let read = match file.read(&mut buffer).await {
                Ok(read) => read,
                Err(err) => {
                    writer.abort().await.ok();
                    return Err(ServiceError::internal(&err));
                }
            };
            if read == 0 {
                break;
            }
            size += read as u64;
            // Bounds the parts in flight, and so the memory held.
            if let Err(err) = writer.wait_for_capacity(2).await {
                return Err(internal(&err));
            }
            writer.write(&buffer[..read]);
        }
        writer.finish().await.map_err(|e| internal(&e))?;
        Ok(size)
    }

    /// Whether an object exists at `key`.
    pub async fn exists(&self, key: &str) -> Result<bool, ServiceError> {
        let Some(path) = path(key) else {
            return Ok(false);
        };
        match self.store.head(&path).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(internal(&e)),
        }
    }

    /// The object at `key`; 4004 when there is none.
    pub async fn get(&self, key: &str) -> Result<GetResult, ServiceError> {
        let path = path(key).ok_or_else(gone)?;
        match self.store.get(&path).await {
            Ok(found) => Ok(found),
            Err(object_store::Error::NotFound { .. }) => Err(gone()),
            Err(e) => Err(internal(&e)),
        }
    }

    /// The whole object at `key` in memory (small files only, e.g. an import
    /// of at most 10 MB); 4004 when there is none.
    pub async fn get_bytes(&self, key: &str) -> Result<Bytes, ServiceError> {
        self.get(key).await?.bytes().await.map_err(|e| internal(&e))
    }

    /// Removes the object at `key`; a missing one is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), ServiceError> {
        let Some(path) = path(key) else {
            return Ok(());
        };
        match self.store.delete(&path).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(internal(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitised_names_are_one_safe_segment() {
        assert_eq!(sanitise("../../etc/passwd"), "passwd");
        assert_eq!(sanitise("C:\\x\\车辆 列表(1).xlsx"), "车辆_列表(1).xlsx");
        assert_eq!(sanitise(".hidden"), "_.hidden");
        assert_eq!(sanitise("a%2F?#.png"), "a_2F__.png");
        let long = sanitise(&format!("{}.xlsx", "长".repeat(200)));
        assert_eq!(long.chars().count(), 80);
        assert!(long.ends_with(".xlsx"));
        let enterprise = Uuid::new_v4();
        let key = key(enterprise, "export", "j1", "车辆/档案.xlsx");
        assert!(path(&key).is_some(), "{key}");
        assert_eq!(key_name(&key), "档案.xlsx");
        assert!(owned_by(&key, enterprise));
        assert!(!owned_by(&key, Uuid::new_v4()));
    }

    #[tokio::test]
    async fn files_round_trip_in_parts_and_delete() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::local(&dir.path().join("objects")).unwrap();
        let source = dir.path().join("big.bin");
        let body: Vec<u8> = (0..(PART_BYTES * 2 + 12345))
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&source, &body).unwrap();
        let key = "e1/export/j1/big.bin";
        assert_eq!(
            store.put_file(key, &source).await.unwrap(),
            body.len() as u64
        );
        assert!(store.exists(key).await.unwrap());
        assert_eq!(store.get_bytes(key).await.unwrap().as_ref(), &body[..]);
        store.delete(key).await.unwrap();
        assert!(!store.exists(key).await.unwrap());
        store.delete(key).await.unwrap();
        assert_eq!(store.get(key).await.unwrap_err().message, GONE);
    }
}
