//! Enterprise B's token on every enterprise-A id of the notice, approval,
//! export, help and sensitive-data routes: 4004, and nothing changes.

use serde_json::json;

use crate::helpers::{TestApp, spawn_app};
use crate::org_fixtures::{ids_of_a, member_a};

fn not_found(path: &str, (status, body): (u16, serde_json::Value)) {
    assert_eq!(
        (status, body["code"].as_u64()),
        (404, Some(4004)),
        "{path}: {body}"
    );
}

/// Everything B could have changed in A.
async fn a_state(app: &TestApp) -> Vec<i64> {
    let mut counts = Vec::new();
    for query in [
        "select count(*) from org.notice_read",
        "select count(*) from org.approval where status = 1",
        "select count(*) from org.approval_step",
        "select count(*) from org.sensitive_view_log",
        "select count(*) from org.outbox",
    ] {
        counts.push(app.count(query).await);
    }
    counts
}

#[tokio::test]
async fn enterprise_b_gets_4004_for_every_enterprise_a_id_and_changes_nothing() {
    let app = spawn_app().await;
    let a = app.token("demo").await;
    let b = app.token("demo2").await;
    // A has a feedback too.
    let (_, sent) = app
        .post(
            "/api/v1/help/feedback",
            Some(&a),
            json!({ "content": "A 的反馈", "contact": "13700001111" }),
        )
        .await;
    let a_feedback = sent["data"]["id"].as_str().unwrap().to_owned();
    let before = a_state(&app).await;

    let notices = ids_of_a(&app, "notice").await;
    let approvals = ids_of_a(&app, "approval").await;
    let exports = ids_of_a(&app, "export_record").await;
    assert!(notices.len() >= 3 && approvals.len() >= 4 && !exports.is_empty());

    for id in &notices {
        let path = format!("/api/v1/notices/{id}");
        not_found(&path, app.get(&path, Some(&b)).await);
        not_found(
            "/api/v1/notices/read",
            app.post("/api/v1/notices/read", Some(&b), json!({ "ids": [id] }))
                .await,
        );
    }
    for id in &approvals {
        let path = format!("/api/v1/approvals/{id}");
        not_found(&path, app.get(&path, Some(&b)).await);
        let path = format!("/api/v1/approvals/{id}/decision");
        not_found(
            &path,
            app.post(&path, Some(&b), json!({ "approve": true })).await,
        );
        not_found(
            "/api/v1/sensitive/reveal",
            app.post(
                "/api/v1/sensitive/reveal",
                Some(&b),
                json!({ "sensitiveType": 1, "subjectKind": 2, "subjectId": id }),
            )
            .await,
        );
    }
    for id in &exports {
        let path = format!("/api/v1/export-records/{id}");
        not_found(&path, app.get(&path, Some(&b)).await);
    }
    for user in ["demo", "demo_ops"] {
        let member = member_a(&app, user).await;
        for t in 1..=10 {
            not_found(
                "/api/v1/sensitive/reveal",
                app.post(
                    "/api/v1/sensitive/reveal",
                    Some(&b),
                    json!({ "sensitiveType": t, "subjectId": member }),
                )
                .await,
            );
        }
    }
    not_found(
        "/api/v1/sensitive/reveal",
        app.post(
            "/api/v1/sensitive/reveal",
            Some(&b),
            json!({ "sensitiveType": 1, "subjectKind": 3, "subjectId": a_feedback }),
        )
        .await,
    );
    // "Mark all read" touches only B's own notices.
    app.post("/api/v1/notices/read", Some(&b), json!({ "all": true }))
        .await;
    let mut after = a_state(&app).await;
    let b_reads = app
        .count("select count(*) from org.notice_read r join org.notice n on n.id = r.notice_id where n.title in ('冷链温控升级', '欢迎使用')")
        .await;
    after[0] -= b_reads;
    assert_eq!(before, after, "B changed nothing of A");

    // B's lists hold none of A's rows.
    for path in [
        "/api/v1/notices?size=100",
        "/api/v1/approvals?size=100",
        "/api/v1/approvals/vehicle-allotments?size=100",
        "/api/v1/export-records?size=100",
        "/api/v1/help/feedback?size=100",
        "/api/v1/sensitive/view-logs?size=100",
    ] {
        let (status, body) = app.get(path, Some(&b)).await;
        assert_eq!(status, 200, "{path}: {body}");
        let text = body.to_string();
        for id in notices.iter().chain(&approvals).chain(&exports) {
            assert!(!text.contains(id.as_str()), "{path} leaks {id}");
        }
        assert!(!text.contains(&a_feedback), "{path} leaks A's feedback");
    }
    let (_, count) = app.get("/api/v1/approvals/count", Some(&b)).await;
    assert_eq!(count["data"], 1);
}
