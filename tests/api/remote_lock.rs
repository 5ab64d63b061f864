//! Remote lock over the whole stack with a hand-written stand-in for the
//! device edge (it answers `telematics.command.<phone>` and publishes the
//! terminal's results): interlocks, the command's way to succeeded, the
//! Idempotency-Key, the lock vehicle list and another tenant.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use fleetdesk_proto::telematics::v1 as tpb;
use futures::StreamExt as _;
use prost::Message as _;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::monitoring::{Car, car, first_fix, fix, publish, wait_for_row};

/// A stand-in edge's connection and the command requests for `car`'s terminal.
async fn command_requests(
    app: &TestApp,
    car: &Car,
    name: &str,
) -> (async_nats::Client, async_nats::Subscriber) {
    let nats = fleetdesk_kit::events::connect_nats(&app.common.nats_url, name)
        .await
        .unwrap();
    let requests = nats
        .subscribe(format!("telematics.command.{}", car.phone))
        .await
        .unwrap();
    nats.flush().await.unwrap();
    (nats, requests)
}

/// The edge for one terminal: counts requests, answers "sent", then
/// publishes the terminal's general response and its 0x0500 success.
async fn edge(app: &TestApp, car: &Car) -> Arc<AtomicUsize> {
    let (nats, mut requests) = command_requests(app, car, "edge-standin").await;
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let (enterprise, vehicle) = (car.enterprise.clone(), car.id.clone());
    tokio::spawn(async move {
        let js = fleetdesk_kit::events::jetstream(nats.clone());
        while let Some(request) = requests.next().await {
            let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
            let command = tpb::VehicleCommand::decode(request.payload.as_ref()).unwrap();
            assert_eq!(
                command.action,
                Some(tpb::vehicle_command::Action::LockDoors(true))
            );
            let delivery = tpb::CommandDelivery {
                command_id: command.command_id.clone(),
                sent: true,
                serial: n as u32,
                ..Default::default()
            };
            nats.publish(request.reply.unwrap(), delivery.encode_to_vec().into())
                .await
                .unwrap();
            for outcome in [
                tpb::CommandOutcome::Acknowledged,
                tpb::CommandOutcome::Succeeded,
            ] {
                let result = tpb::CommandResult {
                    command_id: command.command_id.clone(),
                    enterprise_id: enterprise.clone(),
                    vehicle_id: vehicle.clone(),
                    outcome: outcome as i32,
                    detail: String::new(),
                    receive_time: Some(fleetdesk_kit::convert::timestamp(Utc::now())),
                    position: None,
                };
                js.publish(
                    format!("telemetry.{enterprise}.{vehicle}.command"),
                    result.encode_to_vec().into(),
                )
                .await
                .unwrap()
                .await
                .unwrap();
            }
        }
    });
    count
}

async fn command(
    app: &TestApp,
    token: &str,
    vehicle: &str,
    action: &str,
    key: Option<&str>,
    reason: &str,
) -> (u16, Value) {
    let mut request = app
        .http
        .post(format!(
            "{}/api/v1/lock/vehicles/{vehicle}/{action}",
            app.base
        ))
        .header("token", token)
        .json(&json!({ "reason": reason }));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    crate::helpers::envelope(request.send().await.unwrap()).await
}

async fn command_state(app: &TestApp, token: &str, vehicle: &str, id: &str) -> Option<String> {
    let (status, list) = app
        .get(
            &format!("/api/v1/lock/commands?vehicleId={vehicle}"),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{list}");
    list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .map(|c| c["state"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_lock_is_refused_while_moving_and_a_parked_vehicle_locks_end_to_end_once_per_key() {
    let app = spawn_app().await;
    let a_token = app.token("demo").await;
    let b_token = app.token("demo2").await;
    let a = car(&app, &a_token, "粤BL0001").await;
    let sent = edge(&app, &a).await;
    first_fix(&app, &a_token, &a, 300).await;

    // Moving: refused with the contract's text, nothing sent.
    let (status, refused) = command(
        &app,
        &a_token,
        &a.id,
        "lock",
        Some("k-moving"),
        "逾期未还款",
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["data"]["fields"][0]["message"],
        "车辆行驶中，不能锁车"
    );
    assert_eq!(sent.load(Ordering::SeqCst), 0);

    publish(&app, &[fix(&a, Utc::now(), 0)]).await;
    wait_for_row(&app, &a_token, &a.id, Duration::from_secs(5), |r| {
        r["speedKmh"] == 0.0
    })
    .await;

    // A reason and a key are required.
    let (status, body) = command(&app, &a_token, &a.id, "lock", Some("k-short"), "欠").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = command(&app, &a_token, &a.id, "lock", None, "逾期未还款").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["data"]["fields"][0]["field"], "Idempotency-Key");

    let (status, locked) =
        command(&app, &a_token, &a.id, "lock", Some("k-lock"), "逾期未还款").await;
    assert_eq!(status, 200, "{locked}");
    let id = locked["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(locked["data"]["action"], "lock");
    assert_eq!(locked["data"]["reason"], "逾期未还款");
    assert_eq!(locked["data"]["operatorName"], "演示管理员");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let state = command_state(&app, &a_token, &a.id, &id).await;
        if state.as_deref() == Some("succeeded") {
            break;
        }
        assert!(Instant::now() < deadline, "still {state:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(sent.load(Ordering::SeqCst), 1);

    // The same key again: the first command, nothing sent again.
    let (status, replay) =
        command(&app, &a_token, &a.id, "lock", Some("k-lock"), "逾期未还款").await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!(replay["data"]["id"], id.as_str());
    assert_eq!(sent.load(Ordering::SeqCst), 1);

    // Who and why are in the vehicle's operation log.
    let (_, logs) = app
        .get(
            &format!(
                "/api/v1/operation-logs?businessType=VEHICLE&businessId={}",
                a.id
            ),
            Some(&a_token),
        )
        .await;
    assert!(
        logs["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["remark"] == "远程锁车（原因：逾期未还款）" && l["operName"] == "演示管理员"),
        "{logs}"
    );

    // Tenant B can neither lock A's vehicle nor see its commands.
    let (status, body) = command(&app, &b_token, &a.id, "lock", Some("k-b"), "逾期未还款").await;
    assert_eq!(status, 404, "{body}");
    let (_, b_commands) = app.get("/api/v1/lock/commands", Some(&b_token)).await;
    assert!(
        !b_commands["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["vehicleId"] == a.id.as_str())
    );
    assert_eq!(sent.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_lock_list_shows_rent_to_own_vehicles_with_overdue_instalments_and_their_last_command()
{
    let app = spawn_app().await;
    let a_token = app.token("demo").await;
    let b_token = app.token("demo2").await;
    let a = car(&app, &a_token, "粤BL0002").await;
    let (status, record) = app
        .post(
            "/api/v1/usage-records",
            Some(&a_token),
            json!({
                "vehicleId": a.id, "contractNo": "RTO-LOCK-1", "counterparty": "深圳某物流有限公司",
                "startTime": "2026-01-01", "endTime": "2028-01-01",
                "rentToOwn": { "termMonths": 24, "downPaymentFen": 2000000, "monthlyPaymentFen": 300000,
                               "totalPriceFen": 0, "finalPaymentFen": 0, "paidPeriods": 3,
                               "overduePeriods": 2 }
            }),
        )
        .await;
    assert_eq!(status, 200, "{record}");
    // A queued unlock (the terminal is offline: nobody answers).
    let (status, unlock) = command(
        &app,
        &a_token,
        &a.id,
        "unlock",
        Some("k-unlock"),
        "已还清欠款",
    )
    .await;
    assert_eq!(status, 200, "{unlock}");
    assert_eq!(unlock["data"]["state"], "queued");

    let (status, list) = app
        .get(
            "/api/v1/lock/vehicles?overdueOnly=true&usageTypes=RENT_TO_OWN",
            Some(&a_token),
        )
        .await;
    assert_eq!(status, 200, "{list}");
    let row = list["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["vehicleId"] == a.id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(row["overdueInstalments"], 2);
    assert_eq!(row["overdueAmountFen"], 600000);
    assert_eq!(row["usageType"], "RENT_TO_OWN");
    assert_eq!(row["lockState"], "unknown");
    assert_eq!(row["online"], false);
    assert_eq!(row["lastCommand"]["action"], "unlock");

    let (_, b_list) = app.get("/api/v1/lock/vehicles", Some(&b_token)).await;
    assert!(
        !b_list["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["vehicleId"] == a.id.as_str())
    );
}

/// An edge that takes `delay` to say the command went out (a loaded
/// replica, a slow link), and never reports a result.
async fn slow_edge(app: &TestApp, car: &Car, delay: Duration) {
    let (nats, mut requests) = command_requests(app, car, "slow-edge-standin").await;
    tokio::spawn(async move {
        while let Some(request) = requests.next().await {
            tokio::time::sleep(delay).await;
            let command = tpb::VehicleCommand::decode(request.payload.as_ref()).unwrap();
            let delivery = tpb::CommandDelivery {
                command_id: command.command_id,
                sent: true,
                serial: 7,
                ..Default::default()
            };
            nats.publish(request.reply.unwrap(), delivery.encode_to_vec().into())
                .await
                .unwrap();
        }
    });
}

#[tokio::test]
async fn a_slow_edge_does_not_hold_the_answer_and_the_command_goes_out_after_it() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let a = car(&app, &token, "粤BL0002").await;
    slow_edge(&app, &a, Duration::from_millis(4_500)).await;
    first_fix(&app, &token, &a, 0).await;

    let started = Instant::now();
    let (status, queued) = command(&app, &token, &a.id, "lock", Some("k-slow"), "逾期未还款").await;
    let answered_in = started.elapsed();
    assert_eq!(status, 200, "{queued}");
    // The answer waits 3 s for the first attempt, not the edge's 4.5 s.
    assert!(
        answered_in < Duration::from_millis(4_200),
        "answered in {answered_in:?}"
    );
    assert_eq!(queued["data"]["state"], "queued", "{queued}");

    // The attempt carries on: the command is marked sent once the edge answers.
    let id = queued["data"]["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = command_state(&app, &token, &a.id, &id).await;
        if state.as_deref() == Some("sent") {
            break;
        }
        assert!(Instant::now() < deadline, "still {state:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
