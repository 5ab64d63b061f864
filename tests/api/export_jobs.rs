//! Export jobs end to end on the users list: the export answers the record
//! at once, the job runs in org's worker, the record follows its events
//! (progress, done, failed, cancelled) and the requester gets a notice;
//! cancel and retry through the record's routes.

use std::time::Duration;

use fleetdesk_proto::common::v1 as common;
use prost::Message as _;
use serde_json::{Value, json};

use crate::helpers::{TestApp, eventually, spawn_app};

async fn record(app: &TestApp, token: &str, id: &str) -> Value {
    let (status, body) = app
        .get(&format!("/api/v1/export-records/{id}"), Some(token))
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// Waits until the record shows `status`; answers it.
async fn record_with_status(app: &TestApp, token: &str, id: &str, status: i64) -> Value {
    let mut last = Value::Null;
    let reached = eventually(Duration::from_secs(20), async || {
        let (code, body) = app
            .get(&format!("/api/v1/export-records/{id}"), Some(token))
            .await;
        last = body["data"].clone();
        code == 200 && last["status"] == status
    })
    .await;
    assert!(reached, "record {id} never reached status {status}: {last}");
    last
}

async fn notices(app: &TestApp, token: &str) -> Vec<Value> {
    let (status, body) = app.get("/api/v1/notices?size=100", Some(token)).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["list"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_users_export_runs_to_a_file_with_a_notice_and_can_be_retried() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let members = app
        .sql_text(
            "select count(*)::text from org.member m join org.enterprise e on e.id = m.enterprise_id \
             where e.code = 'DEMO-LOGISTICS'",
        )
        .await;

    let (status, body) = app
        .post("/api/v1/system/users/export", Some(&token), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["msg"],
        "导出结果请到右上方个人信息下【导出记录】中查看下载结果"
    );
    let id = body["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(body["data"]["status"], 1, "queued at once");
    assert_eq!(body["data"]["name"], "用户列表");

    let done = record_with_status(&app, &token, &id, 3).await;
    assert_eq!(done["rowCount"].to_string(), members);
    assert_eq!(done["rowsDone"], done["rowsTotal"]);
    assert_eq!(done["requestedByName"], "演示管理员");
    assert_eq!(done["downloadable"], true);

    // The link downloads an xlsx with the header and one row per member.
    let (status, link) = app
        .get(&format!("/api/v1/export-records/{id}/file"), Some(&token))
        .await;
    assert_eq!(status, 200, "{link}");
    let bytes = app
        .http
        .get(format!(
            "{}{}",
            app.base,
            link["data"]["url"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let mut book = calamine_book(&bytes);
    let range = book_range(&mut book);
    assert_eq!(range.0, members.parse::<usize>().unwrap() + 1);
    assert_eq!(range.1[0], "用户名");

    let mine = notices(&app, &token).await;
    assert!(
        mine.iter().any(
            |n| n["title"] == "导出完成" && n["content"].as_str().unwrap().contains("用户列表")
        ),
        "{mine:?}"
    );

    // Retry: a new run of the same filter, to a new file.
    let (status, retried) = app
        .post(
            &format!("/api/v1/export-records/{id}/retry"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{retried}");
    assert_eq!(retried["data"]["status"], 1);
    // The record still shows the first run until the retry's events arrive:
    // wait for the second run's notice, then for the record.
    let finished_twice = eventually(Duration::from_secs(20), async || {
        notices(&app, &token)
            .await
            .iter()
            .filter(|n| {
                n["title"] == "导出完成" && n["content"].as_str().unwrap().contains("【用户列表】")
            })
            .count()
            == 2
    })
    .await;
    assert!(finished_twice, "the retry finishes with its own notice");
    let again = record_with_status(&app, &token, &id, 3).await;
    assert_eq!(again["rowCount"].to_string(), members);

    // A finished export cannot be cancelled; another tenant cannot touch it.
    let (status, body) = app
        .post(
            &format!("/api/v1/export-records/{id}/cancel"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    let other = app.token("demo2").await;
    for action in ["cancel", "retry"] {
        let (status, body) = app
            .post(
                &format!("/api/v1/export-records/{id}/{action}"),
                Some(&other),
                json!({}),
            )
            .await;
        assert_eq!(status, 404, "{action}: {body}");
    }
    assert_eq!(record(&app, &token, &id).await["status"], 3);
}

/// The demo enterprise and its admin member.
async fn demo_admin(app: &TestApp) -> (String, String) {
    let row = app
        .sql_text(
            "select e.id::text || ',' || m.id::text from org.member m \
             join org.enterprise e on e.id = m.enterprise_id \
             where e.code = 'DEMO-LOGISTICS' and m.user_name = 'demo'",
        )
        .await;
    let (e, m) = row.split_once(',').unwrap();
    (e.to_owned(), m.to_owned())
}

/// Puts a users-export job straight into org's queue (`columns` and
/// `values` set what differs from a fresh job) and announces it the way
/// kit::export does.
async fn insert_job(app: &TestApp, name: &str, columns: &str, values: &str) -> String {
    let (enterprise, member) = demo_admin(app).await;
    let id = uuid::Uuid::new_v4();
    let event = common::ExportJobEvent {
        job_id: id.to_string(),
        enterprise_id: enterprise.clone(),
        domain: "org".into(),
        run: 1,
        at: None,
        change: Some(common::export_job_event::Change::Requested(
            common::ExportRequested {
                name: name.into(),
                module: "userManagement".into(),
                requested_by: member.clone(),
                filters_json: "{}".into(),
            },
        )),
    };
    let payload: String = event
        .encode_to_vec()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    app.sql(&format!(
        "with job as (insert into org.export_job (id, enterprise_id, kind, name, module, requested_by{columns}) \
         values ('{id}', '{enterprise}', 'users', '{name}', 'userManagement', '{member}'{values}) returning id) \
         insert into org.outbox (id, subject, payload) \
         select gen_random_uuid(), 'fleetdesk.org.export.requested', '\\x{payload}'::bytea from job"
    ))
    .await;
    app.sql("select pg_notify('fleetdesk_outbox', ''), pg_notify('fleetdesk_export_job', '')")
        .await;
    id.to_string()
}

#[tokio::test]
async fn a_failed_export_marks_its_record_failed_and_tells_the_requester() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    // A job whose stored filter the users export cannot read: it fails.
    let id = insert_job(&app, "坏的导出", ", filter", ", 'not json'::bytea").await;
    let failed = record_with_status(&app, &token, &id, 4).await;
    assert_eq!(failed["failureReason"], "导出失败");
    assert_eq!(failed["downloadable"], false);
    let mine = notices(&app, &token).await;
    assert!(
        mine.iter().any(
            |n| n["title"] == "导出失败" && n["content"].as_str().unwrap().contains("坏的导出")
        ),
        "{mine:?}"
    );
}

#[tokio::test]
async fn cancel_stops_a_running_export_and_the_record_shows_it() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    // A job some worker is running (its lease is held).
    let id = insert_job(
        &app,
        "进行中的导出",
        ", status, attempts, lease_until",
        ", 2, 1, now() + interval '10 minutes'",
    )
    .await;
    record_with_status(&app, &token, &id, 1).await;
    let (status, body) = app
        .post(
            &format!("/api/v1/export-records/{id}/cancel"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], 2, "stops after the page it is on");
    // Its worker is gone: once the lease runs out the next claim sees the
    // cancel and ends the job, and the record follows.
    app.sql(&format!(
        "update org.export_job set lease_until = now() - interval '1 second' where id = '{id}'"
    ))
    .await;
    app.sql("select pg_notify('fleetdesk_export_job', '')")
        .await;
    let cancelled = record_with_status(&app, &token, &id, 6).await;
    assert_eq!(cancelled["downloadable"], false);
    let (status, body) = app
        .post(
            &format!("/api/v1/export-records/{id}/cancel"),
            Some(&token),
            json!({}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["msg"], "导出已结束，无法取消");
}

fn calamine_book(bytes: &[u8]) -> calamine::Sheets<std::io::Cursor<Vec<u8>>> {
    calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap()
}

/// (rows, first row's texts) of the first sheet.
fn book_range(book: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>) -> (usize, Vec<String>) {
    use calamine::Reader as _;
    let range = book.worksheet_range_at(0).unwrap().unwrap();
    let header = range
        .rows()
        .next()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    (range.height(), header)
}

#[tokio::test]
async fn the_approvals_list_exports_with_its_filter() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    // The list's pending approvals, as the export must count them.
    let (status, list) = app
        .get("/api/v1/approvals?status=1&size=100", Some(&token))
        .await;
    assert_eq!(status, 200, "{list}");
    let pending = list["data"]["total"].as_u64().unwrap() as usize;
    assert!(pending > 0, "the demo has pending approvals: {list}");

    let (status, body) = app
        .post("/api/v1/approvals/export?status=1", Some(&token), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["name"], "审批列表");
    let id = body["data"]["id"].as_str().unwrap().to_owned();
    let done = record_with_status(&app, &token, &id, 3).await;
    assert_eq!(done["rowCount"], pending, "{done}");

    let (status, link) = app
        .get(&format!("/api/v1/export-records/{id}/file"), Some(&token))
        .await;
    assert_eq!(status, 200, "{link}");
    let bytes = app
        .http
        .get(format!(
            "{}{}",
            app.base,
            link["data"]["url"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let mut book = calamine_book(&bytes);
    let (rows, header) = book_range(&mut book);
    assert_eq!(rows, pending + 1);
    assert_eq!(header[0], "审批事项");
}
