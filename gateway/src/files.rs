//! Uploads and downloads on top of the object store (`kit::files`, shared
//! with the services that write files such as exports): what each upload
//! purpose accepts, and short-lived download links signed with HMAC-SHA256
//! over the key and the expiry. A link is only ever issued after the
//! caller's enterprise was checked against the key (or the record that
//! names it).

use fleetdesk_kit::ServiceError;
pub use fleetdesk_kit::files::{
    FileStore, GONE, content_type, extension, gone, key_name, sanitise,
};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How long a download link stays valid.
pub const LINK_TTL_SECS: i64 = 10 * 60;

/// Image types the upload control accepts (console spec §9).
const IMAGES: &[&str] = &["png", "jpeg", "jpg", "webp", "gif"];
/// Documents: the images and PDF.
const DOCUMENTS: &[&str] = &["png", "jpeg", "jpg", "webp", "gif", "pdf"];

/// What an upload is for: allowed extensions and the size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Purpose {
    pub name: &'static str,
    pub types: &'static [&'static str],
    pub max_mb: u64,
}

/// Every purpose an upload may name: each kind of file its own, so a key
/// says what it holds (`<enterprise>/<purpose>/...`).
pub const PURPOSES: [Purpose; 6] = [
    Purpose {
        name: "feedback",
        types: IMAGES,
        max_mb: 5,
    },
    // Bulk import: xls and xlsx, at most 10 MB (console spec §9).
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
    // A driver's ID card and licence images (sensitive: revealed with the audit).
    Purpose {
        name: "driver",
        types: IMAGES,
        max_mb: 5,
    },
    // Evidence of risk work: alarm handling and remark attachments, accident photos.
    Purpose {
        name: "evidence",
        types: IMAGES,
        max_mb: 5,
    },
    // Documents of a record (accident reports, later policies, repair orders, invoices).
    Purpose {
        name: "document",
        types: DOCUMENTS,
        max_mb: 10,
    },
];

/// The names of every purpose, for the error that names them.
pub fn purpose_names() -> String {
    PURPOSES.map(|p| p.name).join("、")
}

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

/// The image type the first bytes of `bytes` say it is (magic numbers), if any.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

impl Purpose {
    /// An image must be an image of the type its name says (jpg and jpeg
    /// are one) and a PDF a PDF, whatever the name claims; workbooks are not
    /// sniffed.
    pub fn check_content(&self, name: &str, bytes: &[u8]) -> Result<(), ServiceError> {
        let claimed = match extension(name).as_str() {
            "jpg" => "jpeg".to_owned(),
            other => other.to_owned(),
        };
        if claimed == "pdf" {
            return if bytes.starts_with(b"%PDF-") {
                Ok(())
            } else {
                Err(ServiceError::invalid(
                    "file",
                    "文件内容不是 PDF，请上传真实的 PDF 文件",
                ))
            };
        }
        if !self.types.iter().any(|t| IMAGES.contains(t)) {
            return Ok(());
        }
        match sniff_image(bytes) {
            Some(found) if found == claimed => Ok(()),
            Some(_) => Err(ServiceError::invalid(
                "file",
                "文件内容与扩展名不符，请上传真实格式的图片",
            )),
            None => Err(ServiceError::invalid(
                "file",
                format!("文件内容不是图片，请上传 {} 格式的图片", IMAGES.join("/")),
            )),
        }
    }
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
    fn images_are_checked_by_their_content_not_their_name() {
        let feedback = purpose("feedback").unwrap();
        let png = b"\x89PNG\r\n\x1a\n....";
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0];
        assert!(feedback.check_content("a.png", png).is_ok());
        assert!(feedback.check_content("a.JPG", &jpeg).is_ok());
        assert!(feedback.check_content("a.jpeg", &jpeg).is_ok());
        assert!(feedback.check_content("a.gif", b"GIF89a..").is_ok());
        assert!(
            feedback
                .check_content("a.webp", b"RIFF\0\0\0\0WEBPVP8 ")
                .is_ok()
        );
        let not_image = feedback
            .check_content("a.png", b"MZ\x90\0 an exe")
            .unwrap_err();
        assert_eq!(not_image.fields[0].field, "file");
        assert!(
            not_image.message.contains("不是图片"),
            "{}",
            not_image.message
        );
        assert!(feedback.check_content("a.png", &jpeg).is_err());
        assert!(feedback.check_content("a.png", b"").is_err());
        // Workbooks are not images: the import purpose does not sniff.
        assert!(
            purpose("import")
                .unwrap()
                .check_content("a.xlsx", b"xlsx")
                .is_ok()
        );
    }

    #[test]
    fn upload_keys_are_namespaced_and_keep_the_name() {
        let key = new_key("e1", &purpose("avatar").unwrap(), "../我.png");
        assert!(fleetdesk_kit::files::path(&key).is_some(), "{key}");
        assert!(key.starts_with("e1/avatar/"));
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
