//! Usage records announce each change (`UsageRecordChanged`) through the
//! outbox in the change's own transaction: a committed create, edit or end
//! writes exactly one event with the record's new state, later changes
//! carry later change times, and a refused change writes none.

use crate::support;

use chrono::{Duration, Utc};
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::{ErrorCode, ServiceError, db, subjects};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_client::AssetServiceClient;
use prost::Message;
use support::{Stack, Tenant, stack};
use uuid::Uuid;

const PERMISSION: &str = "as:sys:car:used";

fn rent_input(vehicle: Uuid, rent_fen: i64) -> pb::UsageRecordInput {
    let start = Utc::now() - Duration::days(40);
    pb::UsageRecordInput {
        vehicle_id: vehicle.to_string(),
        contract_no: "ZL-2026-00042".into(),
        counterparty: "深圳市鹏程新能源汽车租赁有限公司".into(),
        start_time: Some(timestamp(start)),
        end_time: Some(timestamp(start + Duration::days(365))),
        details: Some(pb::usage_record_input::Details::Rent(pb::RentDetails {
            monthly_rent_fen: rent_fen,
            deposit_fen: 2 * rent_fen,
            term_months: 12,
            payment_day: 10,
            return_time: None,
        })),
        attachments: Vec::new(),
        remark: String::new(),
    }
}

/// The usage-record events in the outbox, oldest first.
async fn announced(s: &Stack) -> Vec<pb::UsageRecordChanged> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let payloads: Vec<Vec<u8>> =
        sqlx::query_scalar("select payload from outbox where subject = $1 order by created_at, id")
            .bind(subjects::VEHICLE_USAGE_RECORD_CHANGED)
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    payloads
        .iter()
        .map(|p| pb::UsageRecordChanged::decode(p.as_slice()).unwrap())
        .collect()
}

fn rent_of(event: &pb::UsageRecordChanged) -> i64 {
    match event.record.as_ref().and_then(|r| r.details.as_ref()) {
        Some(pb::usage_record::Details::Rent(r)) => r.monthly_rent_fen,
        _ => panic!("not a rental: {event:?}"),
    }
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, &[PERMISSION], message)
}

#[tokio::test]
async fn each_committed_change_is_announced_once_and_a_refused_one_never() {
    let s = stack().await;
    let t: Tenant = s.tenant(1).await;
    let mut client = AssetServiceClient::new(s.channel.clone());

    let created = client
        .create_usage_record(req(
            &s,
            &t,
            pb::CreateUsageRecordRequest {
                record: Some(rent_input(t.vehicles[0], 350_000)),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    let events = announced(&s).await;
    assert_eq!(events.len(), 1);
    let record = events[0].record.as_ref().unwrap();
    assert_eq!(record.id, created.id);
    assert_eq!(record.enterprise_id, t.enterprise.to_string());
    assert_eq!(record.org_id, t.org.to_string());
    assert_eq!(record.plate_number, "粤B00000");
    assert_eq!(record.kind, pb::UsageKind::Rent as i32);
    assert_eq!(rent_of(&events[0]), 350_000);
    assert_eq!(events[0].ended_time, None);

    // A second open record for the vehicle is refused: its event goes with it.
    let refused = client
        .create_usage_record(req(
            &s,
            &t,
            pb::CreateUsageRecordRequest {
                record: Some(rent_input(t.vehicles[0], 1)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(
        ServiceError::from_status(&refused).code,
        ErrorCode::Conflict
    );
    assert_eq!(announced(&s).await.len(), 1);

    client
        .update_usage_record(req(
            &s,
            &t,
            pb::UpdateUsageRecordRequest {
                usage_record_id: created.id.clone(),
                record: Some(rent_input(t.vehicles[0], 380_000)),
            },
        ))
        .await
        .unwrap();
    client
        .end_usage_record(req(
            &s,
            &t,
            pb::EndUsageRecordRequest {
                usage_record_id: created.id.clone(),
                end_time: None,
                remark: "提前还车".into(),
            },
        ))
        .await
        .unwrap();
    // Ending twice is refused and announces nothing.
    assert!(
        client
            .end_usage_record(req(
                &s,
                &t,
                pb::EndUsageRecordRequest {
                    usage_record_id: created.id.clone(),
                    end_time: None,
                    remark: String::new(),
                }
            ))
            .await
            .is_err()
    );
    let events = announced(&s).await;
    assert_eq!(events.len(), 3);
    assert_eq!(rent_of(&events[1]), 380_000);
    assert_eq!(events[1].ended_time, None);
    assert!(events[2].ended_time.is_some());
    assert_eq!(
        events[2].record.as_ref().unwrap().status,
        pb::UsageRecordStatus::Ended as i32
    );
    let times: Vec<_> = events
        .iter()
        .map(|e| datetime(e.changed_time.as_ref().unwrap()).unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
}
