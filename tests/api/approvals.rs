//! Approvals: badge count, list, detail with history, decisions and the
//! vehicle allotment list.

use serde_json::json;

use crate::helpers::spawn_app;
use crate::org_fixtures::text;

#[tokio::test]
async fn approving_lowers_the_count_and_a_second_decision_is_a_conflict() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (status, count) = app.get("/api/v1/approvals/count", Some(&token)).await;
    assert_eq!(status, 200, "{count}");
    assert_eq!(count["data"], 3);

    let (_, pending) = app.get("/api/v1/approvals?status=1", Some(&token)).await;
    assert_eq!(pending["data"]["total"], 3);
    let id = pending["data"]["list"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let (status, decided) = app
        .post(
            &format!("/api/v1/approvals/{id}/decision"),
            Some(&token),
            json!({ "approve": true, "comment": " 同意调拨 " }),
        )
        .await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["msg"], "审批已通过");
    let approval = &decided["data"];
    assert_eq!(approval["status"], 2);
    assert!(!approval["decideTime"].as_str().unwrap().is_empty());
    let history = approval["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0]["status"], 1);
    assert_eq!(history[1]["status"], 2);
    assert_eq!(history[1]["operatorName"], "演示管理员");
    assert_eq!(history[1]["comment"], "同意调拨");
    assert!(!history[1]["operateTime"].as_str().unwrap().is_empty());

    let (_, count) = app.get("/api/v1/approvals/count", Some(&token)).await;
    assert_eq!(count["data"], 2);

    let (status, again) = app
        .post(
            &format!("/api/v1/approvals/{id}/decision"),
            Some(&token),
            json!({ "approve": false, "comment": "改主意了" }),
        )
        .await;
    assert_eq!(
        (status, again["code"].as_u64()),
        (409, Some(4009)),
        "{again}"
    );
    let stored = text(
        &app,
        &format!("select status::text from org.approval where id = '{id}'"),
    )
    .await;
    assert_eq!(stored, "2");
    let steps = app
        .count(&format!(
            "select count(*) from org.approval_step where approval_id = '{id}'"
        ))
        .await;
    assert_eq!(steps, 2, "the refused decision left no step");
    let events = app
        .count("select count(*) from org.outbox where subject = 'fleetdesk.org.approval.decided'")
        .await;
    assert_eq!(events, 1);
}

#[tokio::test]
async fn a_rejection_needs_a_reason_and_is_kept_in_the_history() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, pending) = app.get("/api/v1/approvals?status=1", Some(&token)).await;
    let id = pending["data"]["list"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v1/approvals/{id}/decision");

    let (status, body) = app
        .post(&path, Some(&token), json!({ "approve": false }))
        .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "comment");

    let (status, body) = app
        .post(
            &path,
            Some(&token),
            json!({ "approve": false, "comment": "车辆在修" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], 3);
    let (_, detail) = app
        .get(&format!("/api/v1/approvals/{id}"), Some(&token))
        .await;
    assert_eq!(detail["data"]["history"][1]["comment"], "车辆在修");
}

#[tokio::test]
async fn deciding_needs_the_approval_permission() {
    let app = spawn_app().await;
    let ops = app.token("demo_ops").await;
    let (status, list) = app.get("/api/v1/approvals", Some(&ops)).await;
    assert_eq!(status, 200, "the list is open to as:approval:pageInfo");
    let id = list["data"]["list"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = app
        .post(
            &format!("/api/v1/approvals/{id}/decision"),
            Some(&ops),
            json!({ "approve": true }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (403, Some(9999)));
    let (_, count) = app.get("/api/v1/approvals/count", Some(&ops)).await;
    assert_eq!(count["data"], 3);
}

#[tokio::test]
async fn approval_lists_mask_applicant_phones() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, list) = app.get("/api/v1/approvals?size=50", Some(&token)).await;
    assert_eq!(list["data"]["total"], 4);
    let text = list.to_string();
    for phone in ["13800000002", "13800000004"] {
        assert!(!text.contains(phone), "{phone} unmasked in {text}");
    }
    let phones: Vec<&str> = list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["applicantPhone"].as_str().unwrap())
        .collect();
    assert!(phones.contains(&"138****0002"), "{phones:?}");
    assert!(phones.contains(&"138****0004"), "{phones:?}");
    assert_eq!(list["data"]["list"][0]["detail"]["fromOrg"], "上海运营中心");
}

#[tokio::test]
async fn vehicle_allotments_filter_by_status_and_plates() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (status, all) = app
        .get("/api/v1/approvals/vehicle-allotments", Some(&token))
        .await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["data"]["total"], 3);
    assert!(
        all["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["kind"] == 1)
    );
    let (_, pending) = app
        .get(
            "/api/v1/approvals/vehicle-allotments?status=1",
            Some(&token),
        )
        .await;
    assert_eq!(pending["data"]["total"], 2);
    let (_, one) = app
        .get(
            "/api/v1/approvals/vehicle-allotments?plateNumbers=%E6%B2%AAA12345,%20%E7%B2%A4B54321",
            Some(&token),
        )
        .await;
    assert_eq!(one["data"]["total"], 2, "{one}");
    let many: Vec<String> = (0..251).map(|i| format!("P{i}")).collect();
    let (status, body) = app
        .get(
            &format!(
                "/api/v1/approvals/vehicle-allotments?plateNumbers={}",
                many.join(",")
            ),
            Some(&token),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)));
}
