//! Vehicle video at the edge, over the whole stack: the video routes need
//! `as:risk:video` (9999 without it), answer another tenant's vehicle with
//! 4004 and a vehicle without camera with 4009 before the device edge is
//! asked, and only the caller's own camera vehicle reaches MediaService —
//! whose "terminal not connected" reads as 5003 车辆不在线或未响应视频请求.

use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::monitoring::{Car, car};

/// What the edge's camera report leaves for `car`: two video channels.
async fn with_camera(app: &TestApp, car: &Car) {
    app.sql(&format!(
        "insert into vehicle.vehicle_camera (vehicle_id, enterprise_id, org_id, phone, \
         video_channels, audio_channels, video_encoding, reported_at) \
         select id, enterprise_id, org_id, '{}', 2, 1, 98, now() from vehicle.vehicle \
         where id = '{}'",
        car.phone, car.id
    ))
    .await;
}

/// A user of enterprise A whose only role grants the users list.
async fn without_video(app: &TestApp, admin: &str) -> String {
    let (status, role) = app
        .post(
            "/api/v1/system/roles",
            Some(admin),
            json!({ "name": "无视频", "permissionValues": ["as:sys:user:getList"], "dataScope": 1 }),
        )
        .await;
    assert_eq!(status, 200, "{role}");
    let (_, orgs) = app.get("/api/v1/system/orgs", Some(admin)).await;
    let (status, user) = app
        .post(
            "/api/v1/system/users",
            Some(admin),
            json!({ "name": "无视频用户", "userName": "novideo", "phone": "13900008888",
                    "orgId": orgs["data"][0]["id"], "roleIds": [role["data"]["id"]], "password": "Secret@123" }),
        )
        .await;
    assert_eq!(status, 200, "{user}");
    let (_, login) = app.login("novideo", "Secret@123").await;
    login["data"]["token"].as_str().unwrap().to_owned()
}

/// The video routes of one vehicle, as (method, path, body).
fn routes_of(vehicle: &str) -> Vec<(&'static str, String, Value)> {
    let base = format!("/api/v1/video/vehicles/{vehicle}");
    vec![
        ("GET", format!("{base}/live?channel=1"), Value::Null),
        (
            "GET",
            format!("{base}/resources?channel=1&day=2026-11-29"),
            Value::Null,
        ),
        (
            "GET",
            format!("{base}/playback?channel=1&start=2026-11-29%2008:00:00"),
            Value::Null,
        ),
        (
            "POST",
            format!("{base}/playback/control"),
            json!({ "channel": 1, "action": "pause" }),
        ),
    ]
}

async fn call(
    app: &TestApp,
    token: &str,
    (method, path, body): &(&str, String, Value),
) -> (u16, Value) {
    if *method == "GET" {
        app.get(path, Some(token)).await
    } else {
        app.post(path, Some(token), body.clone()).await
    }
}

#[tokio::test]
async fn video_needs_its_permission_and_the_callers_own_camera_before_the_edge_is_asked() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.token("demo").await;
    let other_tenant = app.token("demo2").await;
    let camera_car = car(&app, &admin, "粤BV0001").await;
    let plain_car = car(&app, &admin, "粤BV0002").await;
    with_camera(&app, &camera_car).await;

    // The tree lists the camera vehicle with its channels, not the other.
    let (status, tree) = app
        .get("/api/v1/video/vehicles?plateSearch=BV000", Some(&admin))
        .await;
    assert_eq!(status, 200, "{tree}");
    let listed: Vec<(&str, &Value)> = tree["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["plateNumber"].as_str().unwrap(), &v["channels"]))
        .collect();
    assert_eq!(listed, vec![("粤BV0001", &json!([1, 2]))]);

    // Without as:risk:video: refused, whatever the vehicle.
    let refused = without_video(&app, &admin).await;
    let (status, body) = app.get("/api/v1/video/vehicles", Some(&refused)).await;
    assert_eq!((status, &body["code"]), (403, &json!(9999)), "{body}");
    for route in routes_of(&camera_car.id) {
        let (status, body) = call(&app, &refused, &route).await;
        assert_eq!(
            (status, &body["code"]),
            (403, &json!(9999)),
            "{}: {body}",
            route.1
        );
    }

    // Another tenant: not found, before the edge (which would say offline).
    for route in routes_of(&camera_car.id) {
        let (status, body) = call(&app, &other_tenant, &route).await;
        assert_eq!(
            (status, &body["code"]),
            (404, &json!(4004)),
            "{}: {body}",
            route.1
        );
    }
    let (_, theirs) = app.get("/api/v1/video/vehicles", Some(&other_tenant)).await;
    assert!(
        theirs["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["vehicleId"] != camera_car.id.as_str()),
        "{theirs}"
    );

    // The caller's vehicle without camera, or a channel it lacks.
    for route in routes_of(&plain_car.id) {
        let (status, body) = call(&app, &admin, &route).await;
        assert_eq!(
            (status, &body["code"], body["msg"].as_str()),
            (409, &json!(4009), Some("该车辆未配置摄像头")),
            "{}: {body}",
            route.1
        );
    }
    let (status, body) = app
        .get(
            &format!("/api/v1/video/vehicles/{}/live?channel=3", camera_car.id),
            Some(&admin),
        )
        .await;
    assert_eq!(
        (status, &body["data"]["fields"][0]["field"]),
        (400, &json!("channel")),
        "{body}"
    );

    // The caller's own camera reaches the edge, whose terminal is not connected.
    for route in routes_of(&camera_car.id) {
        let (status, body) = call(&app, &admin, &route).await;
        assert_eq!(
            (status, &body["code"], body["msg"].as_str()),
            (503, &json!(5003), Some("车辆不在线或未响应视频请求")),
            "{}: {body}",
            route.1
        );
    }

    // Nothing was watched: the audit stays empty.
    let (status, views) = app.get("/api/v1/video/views", Some(&admin)).await;
    assert_eq!(
        (status, &views["data"]["total"]),
        (200, &json!(0)),
        "{views}"
    );
}
