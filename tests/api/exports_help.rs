//! Export records and the help centre.

use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn export_records_show_status_and_a_link_only_when_the_file_is_ready() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    // The seed has only the failed export; a finished and a running one are added.
    app.export_record("demo", "车辆档案导出", 3, "exports/a/car-files.xlsx")
        .await;
    app.export_record("demo", "账单明细导出", 2, "").await;
    let (status, list) = app.get("/api/v1/export-records", Some(&token)).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        list["data"]["total"], 3,
        "an enterprise-wide data scope sees every record"
    );
    let records = list["data"]["list"].as_array().unwrap();
    let done = records.iter().find(|r| r["status"] == 3).unwrap();
    assert_eq!(done["downloadable"], true);
    assert_eq!(done["rowCount"], 128);
    assert_eq!(done["requestedByName"], "演示管理员");
    let failed = records.iter().find(|r| r["status"] == 4).unwrap();
    assert!(
        failed["failureReason"]
            .as_str()
            .unwrap()
            .contains("10 万行")
    );
    assert_eq!(failed["downloadable"], false);

    let id = done["id"].as_str().unwrap();
    let (status, detail) = app
        .get(&format!("/api/v1/export-records/{id}"), Some(&token))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        detail["data"]["downloadUrl"],
        format!("/api/v1/export-records/{id}/file")
    );
    let running = records.iter().find(|r| r["status"] == 2).unwrap();
    let (_, detail) = app
        .get(
            &format!("/api/v1/export-records/{}", running["id"].as_str().unwrap()),
            Some(&token),
        )
        .await;
    assert_eq!(detail["data"]["downloadUrl"], "");

    let (_, filtered) = app
        .get("/api/v1/export-records?status=4", Some(&token))
        .await;
    assert_eq!(filtered["data"]["total"], 1);
    // An expired file is reported as expired, not downloadable.
    app.sql(&format!(
        "update org.export_record set expires_at = now() - interval '1 minute' where id = '{id}'"
    ))
    .await;
    let (_, detail) = app
        .get(&format!("/api/v1/export-records/{id}"), Some(&token))
        .await;
    assert_eq!(detail["data"]["status"], 5);
    assert_eq!(detail["data"]["downloadUrl"], "");
}

#[tokio::test]
async fn the_demo_seed_has_no_export_the_system_does_not_back() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, list) = app.get("/api/v1/export-records", Some(&token)).await;
    let records = list["data"]["list"].as_array().unwrap();
    assert!(!records.is_empty(), "{list}");
    for r in records {
        // Nothing finished without its file, nothing running that will never finish.
        assert_eq!(r["status"], 4, "{r}");
    }
}

#[tokio::test]
async fn the_operation_manual_lists_pages_and_shows_one() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, list) = app.get("/api/v1/help/articles", Some(&token)).await;
    assert_eq!(status, 200, "{list}");
    let pages = list["data"].as_array().unwrap();
    assert_eq!(pages.len(), 4);
    assert!(pages.iter().all(|p| p["content"] == ""));
    let id = pages[0]["id"].as_str().unwrap();
    let (_, page) = app
        .get(&format!("/api/v1/help/articles/{id}"), Some(&token))
        .await;
    assert!(!page["data"]["content"].as_str().unwrap().is_empty());
    let (_, faq) = app
        .get("/api/v1/help/articles?category=常见问题", Some(&token))
        .await;
    assert_eq!(faq["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn feedback_keeps_attachments_and_masks_the_contact() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, sent) = app
        .post(
            "/api/v1/help/feedback",
            Some(&token),
            json!({
                "content": " 希望导出支持 CSV ",
                "contact": "13912345678"
            }),
        )
        .await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["data"]["content"], "希望导出支持 CSV");
    assert_eq!(sent["data"]["contact"], "139****5678");
    assert_eq!(sent["data"]["userName"], "运营专员");
    // Attachments (uploaded files) are covered in files.rs.
    assert_eq!(sent["data"]["attachmentKeys"], json!([]));

    let (_, mine) = app.get("/api/v1/help/feedback", Some(&token)).await;
    assert_eq!(mine["data"]["total"], 1);
    assert!(!mine.to_string().contains("13912345678"));
    // Feedback is the author's own: the administrator sees none of it here.
    let admin = app.token("demo").await;
    let (_, theirs) = app.get("/api/v1/help/feedback", Some(&admin)).await;
    assert_eq!(theirs["data"]["total"], 0);

    for bad in [
        json!({ "content": "  " }),
        json!({ "content": "x".repeat(501) }),
        json!({ "content": "ok", "attachmentKeys": ["a,b.png"] }),
        json!({ "content": "ok", "attachmentKeys": vec!["a.png"; 11] }),
        // The contact is a phone or an e-mail (the hint says 手机号或邮箱).
        json!({ "content": "ok", "contact": "abc" }),
    ] {
        let (status, body) = app
            .post("/api/v1/help/feedback", Some(&token), bad.clone())
            .await;
        assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{bad}");
    }
}

#[tokio::test]
async fn the_customer_service_page_gives_the_configured_line_hours_and_next_opening() {
    let app = spawn_app().await;
    // demo_ops holds no system-settings permission: customer service is for everyone.
    let token = app.token("demo_ops").await;
    let (status, body) = app.get("/api/v1/help/customer-service", Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["phone"], "400-820-8820", "the org service's settings");
    assert_eq!(data["hours"], "08:00-22:00");
    assert_eq!(data["email"], "kefu@fleetdesk.cn");
    let open = data["chatAvailable"].as_bool().unwrap();
    let next = data["nextOpenTime"].as_str().unwrap();
    // Open: no next opening; closed: the next 08:00 China time.
    assert_eq!(open, next.is_empty(), "{data}");
    if !open {
        assert!(next.contains("T08:00:00+08:00"), "{next}");
    }
}
