//! Files (uploads, exports, statements) in the object store (ARCHITECTURE §5):
//! a local directory for now (`FLEETDESK_OBJECT_STORE_DIR`); an
//! S3-compatible store later through object_store's
//! `["aws-base", "reqwest", "ring"]` features (not `aws`, which pulls aws-lc).
//!
//! Keys are namespaced by enterprise: `<enterprise_id>/<purpose>/<uuid>/<name>`.
//! Downloads are short-lived links signed with HMAC-SHA256 over the key and
//! the expiry; a link is only ever issued after the caller's enterprise was
//! checked against the key (or the record that names it).

use std::sync::Arc;

use bytes::Bytes;
use fleetdesk_kit::{ErrorCode, ServiceError};
use hmac::{Hmac, Mac};
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{GetResult, ObjectStore, ObjectStoreExt, PutPayload};
use sha2::Sha256;

/// How long a download link stays valid.
pub const LINK_TTL_SECS: i64 = 10 * 60;

/// The answer to a missing object, a bad or an expired link.
pub const GONE: &str = "文件不存在或已过期";

/// Image types the upload control accepts (spec §9).
const IMAGES: &[&str] = &["png", "jpeg", "jpg", "webp", "gif"];

/// What an upload is for: allowed extensions and the size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Purpose {
    pub name: &'static str,
    pub types: &'static [&'static str],
    pub max_mb: u64,
}

/// Every purpose an upload may name.
pub const PURPOSES: [Purpose; 3] = [
    Purpose {
        name: "feedback",
        types: IMAGES,
        max_mb: 5,
    },
    // Bulk import: xls and xlsx, at most 10 MB (spec §9).
    Purpose {
        name: "import",
        types: &["xls", "xlsx"],
        max_mb: 10,
    },
    Purpose {
        name: "avatar",
        types: IMAGES,
        max_mb: 2,
    },
];

/// The largest upload of any purpose, in bytes.
pub fn max_upload_bytes() -> u64 {
    PURPOSES.iter().map(|p| p.max_mb).max().unwrap_or(0) * 1024 * 1024
}

pub fn purpose(name: &str) -> Option<Purpose> {
    PURPOSES.iter().copied().find(|p| p.name == name)
}

impl Purpose {
    pub fn max_bytes(&self) -> u64 {
        self.max_mb * 1024 * 1024
    }

    /// 上传文件必须小于{size}M!
    pub fn too_large(&self) -> ServiceError {
        ServiceError::invalid("file", format!("上传文件必须小于{}M!", self.max_mb))
    }

    /// The upload control's checks on a file name: present, no `,` or `+`,
    /// an extension of the purpose.
    pub fn check_name(&self, name: &str) -> Result<(), ServiceError> {
        if name.trim().is_empty() {
            return Err(ServiceError::invalid("file", "请先选择上传文件"));
        }
        if name.contains([',', '+']) {
            return Err(ServiceError::invalid(
                "file",
                "文件名不能包含以下特殊符号：[,+].",
            ));
        }
        if !self.types.contains(&extension(name).as_str()) {
            return Err(ServiceError::invalid(
                "file",
                format!("上传文件只能是 {} 格式!", self.types.join("/")),
            ));
        }
        Ok(())
    }
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

/// A fresh key for an upload of `enterprise_id`.
pub fn new_key(enterprise_id: &str, purpose: &Purpose, name: &str) -> String {
    format!(
        "{enterprise_id}/{}/{}/{}",
        purpose.name,
        uuid::Uuid::new_v4(),
        sanitise(name)
    )
}

/// The name part of a key (its last segment).
pub fn key_name(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// The object store.
#[derive(Clone, Debug)]
pub struct FileStore {
    store: Arc<dyn ObjectStore>,
}

fn internal(err: &object_store::Error) -> ServiceError {
    ServiceError::internal(err)
}

/// A key as a store path; `None` for keys that are not well-formed.
fn path(key: &str) -> Option<Path> {
    if key.is_empty() || key.starts_with('/') || key.ends_with('/') {
        return None;
    }
    Path::parse(key).ok()
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
}

pub fn gone() -> ServiceError {
    ServiceError::new(ErrorCode::NotFound, GONE)
}

/// Signs and checks download links.
#[derive(Clone)]
pub struct LinkSigner {
    secret: [u8; 32],
}

impl std::fmt::Debug for LinkSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LinkSigner(..)")
    }
}

type HmacSha256 = Hmac<Sha256>;

impl LinkSigner {
    /// A signer whose secret is derived from `root` (the internal signing
    /// key), so every gateway sharing that key honours the same links.
    pub fn derive(root: &[u8]) -> LinkSigner {
        let mut mac = HmacSha256::new_from_slice(root).expect("HMAC takes any key length");
        mac.update(b"fleetdesk file download links v1");
        LinkSigner {
            secret: mac.finalize().into_bytes().into(),
        }
    }

    fn mac(&self, key: &str, expires: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(key.as_bytes());
        mac.update(b"\n");
        mac.update(expires.to_string().as_bytes());
        mac
    }

    pub fn sign(&self, key: &str, expires: i64) -> String {
        hex::encode(self.mac(key, expires).finalize().into_bytes())
    }

    /// Whether `sig` signs (key, expires) and `expires` is not past `now`.
    pub fn verify(&self, key: &str, expires: i64, sig: &str, now: i64) -> bool {
        if expires < now {
            return false;
        }
        let Ok(sig) = hex::decode(sig) else {
            return false;
        };
        self.mac(key, expires).verify_slice(&sig).is_ok()
    }

    /// A download link for `key` valid for [`LINK_TTL_SECS`] from `now`.
    pub fn link(&self, key: &str, now: i64) -> String {
        let expires = now + LINK_TTL_SECS;
        let query = serde_urlencoded::to_string([
            ("key", key),
            ("expires", &expires.to_string()),
            ("sig", &self.sign(key, expires)),
        ])
        .expect("plain strings encode");
        format!("/api/v1/files/download?{query}")
    }
}

/// `Content-Disposition` for downloading `name`: an ASCII fallback plus the
/// UTF-8 name (RFC 6266 / RFC 5987).
pub fn content_disposition(name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut encoded = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_upload_control() {
        let feedback = purpose("feedback").unwrap();
        assert!(feedback.check_name("截图.PNG").is_ok());
        for (name, message) in [
            ("", "请先选择上传文件"),
            ("a,b.png", "文件名不能包含以下特殊符号：[,+]."),
            ("a+b.png", "文件名不能包含以下特殊符号：[,+]."),
            ("a.exe", "上传文件只能是 png/jpeg/jpg/webp/gif 格式!"),
            ("png", "上传文件只能是 png/jpeg/jpg/webp/gif 格式!"),
        ] {
            let err = feedback.check_name(name).unwrap_err();
            assert_eq!(err.fields[0].message, message, "{name}");
        }
        assert_eq!(
            purpose("import").unwrap().too_large().fields[0].message,
            "上传文件必须小于10M!"
        );
        assert!(purpose("other").is_none());
    }

    #[test]
    fn sanitised_names_are_one_safe_segment() {
        assert_eq!(sanitise("../../etc/passwd"), "passwd");
        assert_eq!(sanitise("C:\\x\\车辆 列表(1).xlsx"), "车辆_列表(1).xlsx");
        assert_eq!(sanitise(".hidden"), "_.hidden");
        assert_eq!(sanitise("a%2F?#.png"), "a_2F__.png");
        let long = sanitise(&format!("{}.xlsx", "长".repeat(200)));
        assert_eq!(long.chars().count(), 80);
        assert!(long.ends_with(".xlsx"));
        let key = new_key("e1", &purpose("avatar").unwrap(), "我.png");
        assert!(path(&key).is_some(), "{key}");
        assert_eq!(key_name(&key), "我.png");
    }

    #[test]
    fn links_verify_only_untampered_and_unexpired() {
        let signer = LinkSigner::derive(b"root");
        let sig = signer.sign("e1/feedback/u/a.png", 1000);
        assert!(signer.verify("e1/feedback/u/a.png", 1000, &sig, 999));
        assert!(signer.verify("e1/feedback/u/a.png", 1000, &sig, 1000));
        assert!(!signer.verify("e1/feedback/u/a.png", 1000, &sig, 1001));
        assert!(!signer.verify("e2/feedback/u/a.png", 1000, &sig, 999));
        assert!(!signer.verify("e1/feedback/u/a.png", 1001, &sig, 999));
        assert!(!signer.verify("e1/feedback/u/a.png", 1000, "zz", 999));
        assert!(!LinkSigner::derive(b"other").verify("e1/feedback/u/a.png", 1000, &sig, 999));
        let link = signer.link("e1/x/u/车.png", 0);
        assert!(link.starts_with("/api/v1/files/download?key=e1%2Fx%2Fu%2F"));
    }

    #[test]
    fn content_disposition_carries_the_utf8_name() {
        assert_eq!(
            content_disposition("车辆 a.xlsx"),
            "attachment; filename=\"___a.xlsx\"; filename*=UTF-8''%E8%BD%A6%E8%BE%86%20a.xlsx"
        );
    }
}
