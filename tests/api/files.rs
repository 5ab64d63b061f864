//! Uploads, signed download links, feedback attachments and export files.

use fleetdesk_gateway::files::FileStore;
use serde_json::{Value, json};

use crate::helpers::{TestApp, envelope, spawn_app};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n fleetdesk test image";
const JPEG: &[u8] = b"\xff\xd8\xff\xe0 fleetdesk test photo";

async fn upload(
    app: &TestApp,
    token: &str,
    purpose: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (u16, Value) {
    let part = reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned());
    let form = reqwest::multipart::Form::new()
        .text("purpose", purpose.to_owned())
        .part("file", part);
    let response = app
        .http
        .post(format!("{}/api/v1/files", app.base))
        .header("token", token)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    envelope(response).await
}

/// (status, content type, content disposition, bytes) of a download.
async fn download(app: &TestApp, url: &str) -> (u16, String, String, Vec<u8>) {
    let response = app
        .http
        .get(format!("{}{url}", app.base))
        .send()
        .await
        .expect("download");
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let (kind, disposition) = (header("content-type"), header("content-disposition"));
    let status = response.status().as_u16();
    (
        status,
        kind,
        disposition,
        response.bytes().await.unwrap().to_vec(),
    )
}

fn query_param(url: &str, name: &str) -> String {
    let query = url.split_once('?').unwrap().1;
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap();
    pairs.into_iter().find(|(k, _)| k == name).unwrap().1
}

fn link(key: &str, expires: &str, sig: &str) -> String {
    let query =
        serde_urlencoded::to_string([("key", key), ("expires", expires), ("sig", sig)]).unwrap();
    format!("/api/v1/files/download?{query}")
}

#[tokio::test]
async fn an_upload_downloads_through_its_signed_link_only() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, body) = upload(&app, &token, "feedback", "截图 1.PNG", PNG.to_vec()).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    let key = data["key"].as_str().unwrap();
    assert_eq!(data["name"], "截图_1.PNG");
    assert_eq!(data["size"], PNG.len());
    assert_eq!(data["contentType"], "image/png");
    assert!(key.ends_with("/截图_1.PNG"), "{key}");
    assert_eq!(key.split('/').nth(1), Some("feedback"));

    let url = data["url"].as_str().unwrap();
    let (status, kind, disposition, bytes) = download(&app, url).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, PNG);
    assert_eq!(kind, "image/png");
    assert!(
        disposition.contains("filename*=UTF-8''%E6%88%AA%E5%9B%BE_1.PNG"),
        "{disposition}"
    );

    // Tampered key, signature or expiry, an expired link, a missing part: 4004.
    let expires = query_param(url, "expires");
    let sig = query_param(url, "sig");
    let other_key = key.replace("截图", "other");
    let later = (expires.parse::<i64>().unwrap() + 60).to_string();
    let mut flipped = sig.clone();
    flipped.replace_range(0..1, if sig.starts_with('0') { "1" } else { "0" });
    for bad in [
        link(&other_key, &expires, &sig),
        link(key, &later, &sig),
        link(key, &expires, &flipped),
        link(key, &expires, "not-hex"),
        link(key, "1000", &sig),
        format!("/api/v1/files/download?key={}", query_param(url, "key")),
    ] {
        let response = app
            .http
            .get(format!("{}{bad}", app.base))
            .send()
            .await
            .unwrap();
        let (status, body) = envelope(response).await;
        assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{bad}");
        assert_eq!(body["msg"], "文件不存在或已过期");
    }

    // Uploading needs a session.
    let form = reqwest::multipart::Form::new().text("purpose", "feedback");
    let response = app
        .http
        .post(format!("{}/api/v1/files", app.base))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(envelope(response).await.1["code"], 1001);
}

#[tokio::test]
async fn uploads_follow_the_upload_controls_rules() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let cases: [(&str, &str, Vec<u8>, &str, &str); 11] = [
        (
            "feedback",
            "a,b.png",
            PNG.to_vec(),
            "file",
            "文件名不能包含以下特殊符号：[,+].",
        ),
        (
            "feedback",
            "a+b.png",
            PNG.to_vec(),
            "file",
            "文件名不能包含以下特殊符号：[,+].",
        ),
        (
            "feedback",
            "a.exe",
            PNG.to_vec(),
            "file",
            "上传文件只能是 png/jpeg/jpg/webp/gif 格式!",
        ),
        (
            "import",
            "车辆.png",
            PNG.to_vec(),
            "file",
            "上传文件只能是 xls/xlsx 格式!",
        ),
        (
            "feedback",
            "big.png",
            vec![0; 5 * 1024 * 1024 + 1],
            "file",
            "上传文件必须小于5M!",
        ),
        (
            "avatar",
            "me.png",
            vec![0; 2 * 1024 * 1024],
            "file",
            "上传文件必须小于2M!",
        ),
        (
            "other",
            "a.png",
            PNG.to_vec(),
            "purpose",
            "用途只能是 feedback、import、avatar、driver、evidence、document",
        ),
        // The content decides, not the name: a program renamed .png, a JPEG named .png.
        (
            "feedback",
            "截图.png",
            b"MZ\x90\0 not a picture".to_vec(),
            "file",
            "文件内容不是图片，请上传 png/jpeg/jpg/webp/gif 格式的图片",
        ),
        (
            "avatar",
            "me.png",
            JPEG.to_vec(),
            "file",
            "文件内容与扩展名不符，请上传真实格式的图片",
        ),
        // Each kind of file its own purpose: a driver's images are images,
        // a document may be a PDF but must be one.
        (
            "driver",
            "驾驶证.pdf",
            b"%PDF-1.7 ...".to_vec(),
            "file",
            "上传文件只能是 png/jpeg/jpg/webp/gif 格式!",
        ),
        (
            "document",
            "事故认定书.pdf",
            b"MZ\x90\0 not a pdf".to_vec(),
            "file",
            "文件内容不是 PDF，请上传真实的 PDF 文件",
        ),
    ];
    for (purpose, name, bytes, field, message) in cases {
        let (status, body) = upload(&app, &token, purpose, name, bytes).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (400, Some(4000)),
            "{name}: {body}"
        );
        assert_eq!(body["data"]["fields"][0]["field"], field, "{name}");
        assert_eq!(body["data"]["fields"][0]["message"], message, "{name}");
    }
    // Past the largest limit the body itself is cut off: still the size message.
    let (status, body) = upload(
        &app,
        &token,
        "import",
        "huge.xlsx",
        vec![0; 11 * 1024 * 1024],
    )
    .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["message"], "上传文件必须小于10M!");
    // Without a file.
    let form = reqwest::multipart::Form::new().text("purpose", "feedback");
    let response = app
        .http
        .post(format!("{}/api/v1/files", app.base))
        .header("token", &token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (status, body) = envelope(response).await;
    assert_eq!(status, 400);
    assert_eq!(body["data"]["fields"][0]["message"], "请先选择上传文件");
    // A real PDF is a document, and evidence takes images.
    let (status, body) = upload(
        &app,
        &token,
        "document",
        "事故认定书.pdf",
        b"%PDF-1.7\n...".to_vec(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["data"]["key"].as_str().unwrap().contains("/document/"),
        "{body}"
    );
    let (status, body) = upload(&app, &token, "evidence", "现场.png", PNG.to_vec()).await;
    assert_eq!(status, 200, "{body}");
    // An import file up to 10 MB is fine.
    let (status, body) = upload(&app, &token, "import", "车辆.xlsx", vec![7; 1024 * 1024]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["name"], "车辆.xlsx");
}

#[tokio::test]
async fn feedback_takes_only_the_enterprises_own_feedback_uploads() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (_, first) = upload(&app, &token, "feedback", "截图1.png", PNG.to_vec()).await;
    let (_, second) = upload(&app, &token, "feedback", "截图2.jpg", JPEG.to_vec()).await;
    let keys = [&first, &second].map(|b| b["data"]["key"].as_str().unwrap().to_owned());
    let (status, sent) = app
        .post(
            "/api/v1/help/feedback",
            Some(&token),
            json!({ "content": "导出太慢", "attachmentKeys": keys }),
        )
        .await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["data"]["attachmentKeys"], json!(keys));

    let (_, mine) = app.get("/api/v1/help/feedback", Some(&token)).await;
    let attachments = mine["data"]["list"][0]["attachments"].as_array().unwrap();
    assert_eq!(attachments.len(), 2);
    assert_eq!(attachments[0]["name"], "截图1.png");
    let (status, _, _, bytes) = download(&app, attachments[0]["url"].as_str().unwrap()).await;
    assert_eq!((status, bytes.as_slice()), (200, PNG));
    let (_, kind, _, bytes) = download(&app, attachments[1]["url"].as_str().unwrap()).await;
    assert_eq!((kind.as_str(), bytes.as_slice()), ("image/jpeg", JPEG));

    // Keys not uploaded, of another purpose, or of another enterprise: 4000.
    let (_, import) = upload(&app, &token, "import", "a.xlsx", b"xlsx".to_vec()).await;
    let enterprise_a = keys[0].split('/').next().unwrap().to_owned();
    let token_b = app.token("demo2").await;
    for (who, key) in [
        (
            &token,
            format!("{enterprise_a}/feedback/00000000-0000-0000-0000-000000000000/x.png"),
        ),
        (&token, import["data"]["key"].as_str().unwrap().to_owned()),
        (&token, "feedback/截图1.png".to_owned()),
        (&token, format!("{enterprise_a}/feedback/../feedback/x.png")),
        (&token_b, keys[0].clone()),
    ] {
        let (status, body) = app
            .post(
                "/api/v1/help/feedback",
                Some(who),
                json!({ "content": "ok", "attachmentKeys": [key] }),
            )
            .await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (400, Some(4000)),
            "{key}: {body}"
        );
        assert_eq!(body["data"]["fields"][0]["field"], "attachmentKeys");
    }
    // B's own uploads land under B's enterprise, never A's.
    let (_, theirs) = upload(&app, &token_b, "feedback", "b.png", PNG.to_vec()).await;
    assert!(
        !theirs["data"]["key"]
            .as_str()
            .unwrap()
            .starts_with(&enterprise_a)
    );
}

#[tokio::test]
async fn a_finished_export_downloads_for_its_enterprise_only() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    app.export_record("demo", "车辆档案导出", 3, "exports/a/car-files.xlsx")
        .await;
    app.export_record("demo", "账单明细导出", 2, "").await;
    let (_, list) = app.get("/api/v1/export-records", Some(&token)).await;
    let records = list["data"]["list"].as_array().unwrap();
    let id_of = |status: i64| {
        records.iter().find(|r| r["status"] == status).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (done, running, failed) = (id_of(3), id_of(2), id_of(4));
    let path = |id: &str| format!("/api/v1/export-records/{id}/file");

    // The record names a file that is not in the store (yet): 4004.
    let (status, body) = app.get(&path(&done), Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
    assert_eq!(body["msg"], "文件不存在或已过期");

    // Written through the same store, it downloads.
    let file_key = "exports/a/car-files.xlsx";
    let xlsx = b"PK\x03\x04 a small workbook".to_vec();
    FileStore::local(&app.objects)
        .unwrap()
        .put(file_key, xlsx.clone().into())
        .await
        .unwrap();
    let (status, body) = app.get(&path(&done), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let url = body["data"]["url"].as_str().unwrap();
    assert_eq!(query_param(url, "key"), file_key);
    let (status, kind, disposition, bytes) = download(&app, url).await;
    assert_eq!((status, bytes), (200, xlsx));
    assert_eq!(
        kind,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert!(disposition.contains("car-files.xlsx"), "{disposition}");

    // Not finished, failed: 4009.
    let (status, body) = app.get(&path(&running), Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");
    assert_eq!(body["msg"], "导出尚未完成");
    let (status, body) = app.get(&path(&failed), Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (409, Some(4009)), "{body}");

    // Another enterprise: 4004, as if it did not exist.
    let token_b = app.token("demo2").await;
    let (status, body) = app.get(&path(&done), Some(&token_b)).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");

    // Expired: the file is gone.
    app.sql(&format!(
        "update org.export_record set expires_at = now() - interval '1 minute' where id = '{done}'"
    ))
    .await;
    let (status, body) = app.get(&path(&done), Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)), "{body}");
}
