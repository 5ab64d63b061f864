//! Risk alarms and operation logs over the real vehicle service: rules set
//! through RiskService, fixes through ingest's pipeline (the transaction the
//! rules and the logs' rollups run in), alarms read and worked through
//! RiskService, logs read through TelemetryService.

use crate::support;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use support::{Stack, Tenant, fix_row, shuffled};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:alarm", "as:alarm:rule"];

fn client(s: &Stack) -> RiskServiceClient<Channel> {
    RiskServiceClient::new(s.channel.clone())
}

fn base() -> DateTime<Utc> {
    // Whole minutes, a few hours ago: inside retention and the list's range.
    let now = Utc::now() - Duration::hours(8);
    DateTime::from_timestamp(now.timestamp() / 60 * 60, 0).unwrap()
}

async fn create_rule(
    s: &Stack,
    t: &Tenant,
    rule: pb::AlarmRule,
) -> Result<pb::AlarmRule, ServiceError> {
    client(s)
        .create_alarm_rule(s.req_as(
            t,
            t.user,
            PERMS,
            pb::CreateAlarmRuleRequest { rule: Some(rule) },
        ))
        .await
        .map(|r| r.into_inner().rule.unwrap())
        .map_err(|e| ServiceError::from_status(&e))
}

fn overspeed_rule(limit_kmh: i32, min_s: i32) -> pb::AlarmRule {
    pb::AlarmRule {
        name: format!("限速 {limit_kmh}"),
        kind: pb::AlarmRuleKind::Overspeed.into(),
        level: pb::RiskLevel::High.into(),
        limit_kmh,
        min_duration_seconds: min_s,
        enabled: true,
        ..Default::default()
    }
}

fn fatigue_rule() -> pb::AlarmRule {
    pb::AlarmRule {
        name: "疲劳驾驶".into(),
        kind: pb::AlarmRuleKind::Fatigue.into(),
        level: pb::RiskLevel::Medium.into(),
        max_drive_minutes: 240,
        rest_minutes: 20,
        enabled: true,
        ..Default::default()
    }
}

async fn alarms(
    s: &Stack,
    t: &Tenant,
    plate: Option<&str>,
) -> Result<Vec<pb::RiskAlarm>, ServiceError> {
    let now = Utc::now();
    let req = pb::ListRiskAlarmsRequest {
        page: Some(common::PageRequest { page: 1, size: 100 }),
        plate_numbers: plate.map(|p| vec![p.to_owned()]).unwrap_or_default(),
        alarm_time: Some(common::TimeRange {
            start: Some(fleetdesk_kit::convert::timestamp(now - Duration::days(30))),
            end: Some(fleetdesk_kit::convert::timestamp(now + Duration::hours(1))),
        }),
        ..Default::default()
    };
    client(s)
        .list_risk_alarms(s.req_as(t, t.user, PERMS, req))
        .await
        .map(|r| r.into_inner().alarms)
        .map_err(|e| ServiceError::from_status(&e))
}

/// (type, start, end) of each alarm, oldest first.
fn spans(list: &[pb::RiskAlarm]) -> Vec<(i32, i64, Option<i64>)> {
    let mut out: Vec<_> = list
        .iter()
        .map(|a| {
            (
                a.alarm_type,
                a.alarm_time.as_ref().unwrap().seconds,
                a.end_time.as_ref().map(|e| e.seconds),
            )
        })
        .collect();
    out.sort();
    out
}

async fn two_minutes_at_90_under_a_60_rule_is_one_overspeed_with_its_start_and_end(s: &Stack) {
    let t = s.tenant(1).await;
    create_rule(s, &t, overspeed_rule(60, 30)).await.unwrap();
    let v = t.vehicles[0];
    let t0 = base();
    // Every 10 s for 5 minutes; 90 km/h from 60 s to 170 s, 50 km/h otherwise.
    let fixes: Vec<_> = (0..30)
        .map(|i| {
            fix_row(
                &t,
                v,
                t0 + Duration::seconds(i * 10),
                if (6..18).contains(&i) { 90 } else { 50 },
            )
        })
        .collect();
    let mut pipeline = s.pipeline();
    // As a live terminal sends them: a few per batch.
    for batch in fixes.chunks(4) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    let list = alarms(s, &t, None).await.unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    let a = &list[0];
    assert_eq!(a.alarm_type, pb::AlarmType::Overspeed as i32);
    assert_eq!(
        a.alarm_time.as_ref().unwrap().seconds,
        (t0 + Duration::seconds(60)).timestamp()
    );
    assert_eq!(
        a.end_time.as_ref().unwrap().seconds,
        (t0 + Duration::seconds(180)).timestamp()
    );
    assert_eq!(
        (a.duration_seconds, a.speed_kmh, a.ongoing),
        (120, 90.0, false)
    );
    assert_eq!(
        (a.level, a.status),
        (
            pb::RiskLevel::High as i32,
            pb::AlarmStatus::Unhandled as i32
        )
    );
    assert_eq!(a.plate_number, "粤B00000");
}

/// 4 h 10 min of driving at 60 km/h, a fix every 30 s, then 25 minutes standing.
fn long_drive(
    t: &Tenant,
    v: Uuid,
    t0: DateTime<Utc>,
) -> Vec<fleetdesk_telemetry::ingest::domain::FixRow> {
    let drive = 4 * 3600 + 600;
    (0..=(drive + 1500) / 30)
        .map(|i| {
            fix_row(
                t,
                v,
                t0 + Duration::seconds(i * 30),
                if i * 30 < drive { 60 } else { 0 },
            )
        })
        .collect()
}

async fn four_hours_ten_without_a_rest_is_one_fatigue_alarm(s: &Stack) {
    let t = s.tenant(1).await;
    create_rule(s, &t, fatigue_rule()).await.unwrap();
    let v = t.vehicles[0];
    let t0 = base() - Duration::hours(6);
    let mut pipeline = s.pipeline();
    for batch in long_drive(&t, v, t0).chunks(50) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    let found = spans(&alarms(s, &t, None).await.unwrap());
    assert_eq!(
        found,
        vec![(
            pb::AlarmType::FatigueDriving as i32,
            (t0 + Duration::hours(4)).timestamp(),
            Some((t0 + Duration::seconds(4 * 3600 + 600)).timestamp())
        )]
    );
}

async fn shuffled_and_backfilled_fixes_give_the_alarms_of_in_order_ones(s: &Stack) {
    let t = s.tenant(5).await;
    create_rule(s, &t, overspeed_rule(60, 30)).await.unwrap();
    create_rule(s, &t, fatigue_rule()).await.unwrap();
    let t0 = base() - Duration::hours(6);
    // A long drive with bursts over the limit.
    let drive = |v: Uuid| -> Vec<_> {
        long_drive(&t, v, t0)
            .into_iter()
            .enumerate()
            .map(|(i, mut f)| {
                if f.speed_dkmh > 0 && i % 53 < 4 {
                    f.speed_dkmh = 950;
                }
                f
            })
            .collect()
    };
    let mut pipeline = s.pipeline();
    let reference = t.vehicles[0];
    pipeline.apply(drive(reference)).await.unwrap();
    let plate = |i: usize| format!("粤B{i:05}");
    let expected = spans(&alarms(s, &t, Some(&plate(0))).await.unwrap());
    assert!(expected.len() > 5, "{expected:?}");
    // Random orders in growing batches.
    for (n, seed) in [(1usize, 21u64), (2, 22)] {
        let mixed = shuffled(&drive(t.vehicles[n]), seed);
        let mut rest = &mixed[..];
        let mut size = 1;
        while !rest.is_empty() {
            let (batch, tail) = rest.split_at(size.min(rest.len()));
            pipeline.apply(batch.to_vec()).await.unwrap();
            rest = tail;
            size = size * 3 % 97 + 1;
        }
        assert_eq!(
            spans(&alarms(s, &t, Some(&plate(n))).await.unwrap()),
            expected,
            "seed {seed}"
        );
    }
    // Live fixes of the last hour first, then the blind-area upload of the rest.
    let v = t.vehicles[3];
    let all = drive(v);
    let (older, newer) = all.split_at(all.len() - 120);
    for batch in newer.chunks(10) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    let backfill: Vec<_> = older
        .iter()
        .cloned()
        .map(|mut f| {
            f.backfill = true;
            f
        })
        .collect();
    for batch in backfill.chunks(100) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
    assert_eq!(
        spans(&alarms(s, &t, Some(&plate(3))).await.unwrap()),
        expected,
        "backfilled"
    );
    // Resent: nothing changes.
    pipeline.apply(drive(v)).await.unwrap();
    assert_eq!(
        spans(&alarms(s, &t, Some(&plate(3))).await.unwrap()),
        expected,
        "resent"
    );
}

/// A drive with bursts over the limit, for the overspeed and fatigue rules.
fn bursty_drive(
    t: &Tenant,
    v: Uuid,
    t0: DateTime<Utc>,
) -> Vec<fleetdesk_telemetry::ingest::domain::FixRow> {
    long_drive(t, v, t0)
        .into_iter()
        .enumerate()
        .map(|(i, mut f)| {
            if f.speed_dkmh > 0 && i % 41 < 5 {
                f.speed_dkmh = 950;
            }
            f
        })
        .collect()
}

async fn tracks_kept_in_memory_give_the_alarms_of_stored_ones_across_processes(s: &Stack) {
    let t = s.tenant(4).await;
    create_rule(s, &t, overspeed_rule(60, 30)).await.unwrap();
    create_rule(s, &t, fatigue_rule()).await.unwrap();
    let t0 = base() - Duration::hours(6);
    let plate = |i: usize| format!("粤B{i:05}");

    // One process, a minute of fixes per batch: the track is written back
    // about every five minutes of fix time, not on every batch.
    let mut one = s.pipeline();
    let (mut batches, mut stored) = (0, 0);
    for batch in bursty_drive(&t, t.vehicles[0], t0).chunks(2) {
        let applied = one.apply(batch.to_vec()).await.unwrap();
        batches += 1;
        stored += applied.alarms.stored_tracks;
        assert_eq!(applied.alarms.caught_up, 0, "one process is always current");
    }
    let expected = spans(&alarms(s, &t, Some(&plate(0))).await.unwrap());
    assert!(expected.len() > 5, "{expected:?}");
    assert!(
        stored * 4 <= batches,
        "{stored} tracks written in {batches} batches"
    );
    let behind: i64 = sqlx::query_scalar(
        "select extract(epoch from (l.fix_time - (t.state->>'last')::timestamptz))::int8 \
         from alarm_track t join latest_position l using (vehicle_id) where vehicle_id = $1",
    )
    .bind(t.vehicles[0])
    .fetch_one(&s.owner)
    .await
    .unwrap();
    assert!((0..300).contains(&behind), "stored track {behind} s behind");

    // Two processes taking turns: each catches up from what the other stored.
    let mut other = s.pipeline();
    let mut caught_up = 0;
    for (i, batch) in bursty_drive(&t, t.vehicles[1], t0).chunks(2).enumerate() {
        let pipeline = if i % 2 == 0 { &mut one } else { &mut other };
        caught_up += pipeline
            .apply(batch.to_vec())
            .await
            .unwrap()
            .alarms
            .caught_up;
    }
    assert!(caught_up > 0);
    assert_eq!(
        spans(&alarms(s, &t, Some(&plate(1))).await.unwrap()),
        expected,
        "two processes"
    );

    // A restart halfway: the new process catches up from the stored track once.
    let drive = bursty_drive(&t, t.vehicles[2], t0);
    let (before, after) = drive.split_at(drive.len() / 2 + 1);
    let mut first = s.pipeline();
    for batch in before.chunks(2) {
        first.apply(batch.to_vec()).await.unwrap();
    }
    drop(first);
    let stored_last: DateTime<Utc> = sqlx::query_scalar(
        "select (state->>'last')::timestamptz from alarm_track where vehicle_id = $1",
    )
    .bind(t.vehicles[2])
    .fetch_one(&s.owner)
    .await
    .unwrap();
    let lost = usize::from(stored_last < before.last().unwrap().fix_time);
    let mut restarted = s.pipeline();
    let mut caught_up = 0;
    for batch in after.chunks(2) {
        caught_up += restarted
            .apply(batch.to_vec())
            .await
            .unwrap()
            .alarms
            .caught_up;
    }
    assert_eq!(caught_up, lost, "one catch-up when the memory held more");

    // Rules off a while: the kept track follows the fixes, so the rules
    // enabled again apply from the next fix without reading back.
    let drive = bursty_drive(&t, t.vehicles[3], t0);
    let set_rules = |enabled: bool| {
        sqlx::query("update alarm_rule set enabled = $2 where enterprise_id = $1")
            .bind(t.enterprise)
            .bind(enabled)
            .execute(&s.owner)
    };
    let mut caught_up = 0;
    for (i, batch) in drive.chunks(2).enumerate() {
        match i {
            20 => set_rules(false).await.map(drop).unwrap(),
            40 => set_rules(true).await.map(drop).unwrap(),
            _ => {}
        }
        caught_up += one.apply(batch.to_vec()).await.unwrap().alarms.caught_up;
    }
    assert_eq!(caught_up, 0, "re-enabled rules start from the kept track");
    assert_eq!(
        spans(&alarms(s, &t, Some(&plate(2))).await.unwrap()),
        expected,
        "restarted"
    );
}

async fn terminal_alarm_bits_raise_their_own_alarms(s: &Stack) {
    let t = s.tenant(1).await;
    let rule = pb::AlarmRule {
        name: "终端报警".into(),
        kind: pb::AlarmRuleKind::Terminal.into(),
        level: pb::RiskLevel::High.into(),
        terminal_bits: vec![0, 29],
        enabled: true,
        ..Default::default()
    };
    create_rule(s, &t, rule).await.unwrap();
    let v = t.vehicles[0];
    let t0 = base();
    let mut fixes: Vec<_> = (0..6)
        .map(|i| fix_row(&t, v, t0 + Duration::seconds(i * 15), 40))
        .collect();
    fixes[1].alarm_bits = 1;
    fixes[2].alarm_bits = 1 | (1 << 29) | (1 << 5);
    s.pipeline().apply(fixes).await.unwrap();
    let found = spans(&alarms(s, &t, None).await.unwrap());
    let at = |secs: i64| (t0 + Duration::seconds(secs)).timestamp();
    assert_eq!(
        found,
        vec![
            (pb::AlarmType::Emergency as i32, at(15), Some(at(45))),
            (pb::AlarmType::Collision as i32, at(30), Some(at(45))),
        ]
    );
}

async fn handling_an_emergency_confirms_it_to_the_terminal_once_with_0x8203(s: &Stack) {
    use fleetdesk_proto::telematics::v1 as tpb;
    use futures::StreamExt as _;
    use prost::Message as _;
    let t = s.tenant(1).await;
    let rule = pb::AlarmRule {
        name: "终端报警".into(),
        kind: pb::AlarmRuleKind::Terminal.into(),
        level: pb::RiskLevel::High.into(),
        terminal_bits: vec![0, 29],
        enabled: true,
        ..Default::default()
    };
    create_rule(s, &t, rule).await.unwrap();
    let v = t.vehicles[0];
    let phone = "14400000000009";
    let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update vehicle set terminal_sim = $2 where id = $1")
        .bind(v)
        .bind(format!("0{phone}"))
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    // The edge holding the terminal: takes each command and says it was written.
    let nats = async_nats::connect(s.nats.url()).await.unwrap();
    let mut commands = nats
        .subscribe(fleetdesk_kit::subjects::telematics_command(phone))
        .await
        .unwrap();
    let edge = nats.clone();
    let received = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Ok(Some(m)) =
            tokio::time::timeout(std::time::Duration::from_secs(3), commands.next()).await
        {
            let command = tpb::VehicleCommand::decode(m.payload.clone()).unwrap();
            let delivery = tpb::CommandDelivery {
                command_id: command.command_id.clone(),
                sent: true,
                serial: 1,
                ..Default::default()
            };
            edge.publish(m.reply.unwrap(), delivery.encode_to_vec().into())
                .await
                .unwrap();
            seen.push(command);
        }
        seen
    });
    // The emergency held over three reports, a collision warning on one.
    let t0 = base();
    let mut fixes: Vec<_> = (0..6)
        .map(|i| fix_row(&t, v, t0 + Duration::seconds(i * 15), 30))
        .collect();
    for f in &mut fixes[1..4] {
        f.alarm_bits = 1;
    }
    fixes[2].alarm_bits |= 1 << 29;
    s.pipeline().apply(fixes).await.unwrap();
    let list = alarms(s, &t, None).await.unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    let emergency = list
        .iter()
        .find(|a| a.alarm_type == pb::AlarmType::Emergency as i32)
        .unwrap();
    let handle = |status: pb::AlarmStatus, ids: Vec<String>| {
        let req = pb::HandleRiskAlarmsRequest {
            alarm_ids: ids,
            status: status.into(),
            handle_method: pb::AlarmHandleMethod::PhoneCall.into(),
            remark: "已联系司机，误触".into(),
            attachments: vec![],
        };
        let req = s.req_as(&t, t.user, PERMS, req);
        async move { client(s).handle_risk_alarms(req).await }
    };
    handle(
        pb::AlarmStatus::Handled,
        list.iter().map(|a| a.id.clone()).collect(),
    )
    .await
    .unwrap();
    // Closed again (a correction): nothing more goes to the terminal.
    handle(pb::AlarmStatus::FalseAlarm, vec![emergency.id.clone()])
        .await
        .unwrap();
    let seen = received.await.unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].command_id, emergency.id);
    assert_eq!(
        seen[0].action,
        Some(tpb::vehicle_command::Action::ConfirmAlarm(
            tpb::AlarmConfirmation {
                alarm_serial: 0,
                alarm_types: 1,
            }
        ))
    );
}

async fn raise_one(s: &Stack, t: &Tenant) -> pb::RiskAlarm {
    create_rule(s, t, overspeed_rule(60, 0)).await.unwrap();
    let v = t.vehicles[0];
    let t0 = base();
    let fixes = vec![
        fix_row(t, v, t0, 50),
        fix_row(t, v, t0 + Duration::seconds(30), 80),
        fix_row(t, v, t0 + Duration::seconds(60), 50),
    ];
    s.pipeline().apply(fixes).await.unwrap();
    alarms(s, t, None).await.unwrap().pop().unwrap()
}

async fn two_operators_handling_one_alarm_leave_one_state_and_one_entry_each(s: &Stack) {
    let t = s.tenant(1).await;
    let alarm = raise_one(s, &t).await;
    let (one, two) = (Uuid::new_v4(), Uuid::new_v4());
    let handle = |user: Uuid, status: pb::AlarmStatus, remark: &str| {
        let req = pb::HandleRiskAlarmsRequest {
            alarm_ids: vec![alarm.id.clone()],
            status: status.into(),
            handle_method: pb::AlarmHandleMethod::PhoneCall.into(),
            remark: remark.into(),
            attachments: vec![],
        };
        let mut req = s.req_as(&t, user, PERMS, req);
        let name = if user == one { "甲" } else { "乙" };
        req.metadata_mut().insert_bin(
            fleetdesk_kit::actor::OPERATOR_NAME_KEY,
            tonic::metadata::MetadataValue::from_bytes(name.as_bytes()),
        );
        async move { client(s).handle_risk_alarms(req).await }
    };
    let (a, b) = tokio::join!(
        handle(one, pb::AlarmStatus::Handled, "已电话提醒"),
        handle(two, pb::AlarmStatus::FalseAlarm, "信号漂移")
    );
    a.unwrap();
    b.unwrap();
    let detail = client(s)
        .get_risk_alarm(s.req_as(
            &t,
            t.user,
            PERMS,
            pb::GetRiskAlarmRequest {
                alarm_id: alarm.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let now = detail.alarm.unwrap();
    let moves: Vec<_> = detail
        .activities
        .iter()
        .filter(|x| x.action != pb::AlarmActivityAction::Viewed as i32)
        .collect();
    assert_eq!(moves.len(), 2, "{:?}", detail.activities);
    // The state is the last move's, whole.
    let last = moves[1];
    assert_eq!(now.status, last.to_status);
    assert_eq!(now.handler_name, last.actor_name);
    assert_eq!(now.handle_remark, last.remark);
    assert_eq!(moves[1].from_status, moves[0].to_status);
    // A dismissal needs its reason; a closed alarm is not assigned again.
    let err = handle(one, pb::AlarmStatus::FalseAlarm, " ")
        .await
        .unwrap_err();
    assert_eq!(
        ServiceError::from_status(&err).fields[0].message,
        "请填写误报原因"
    );
    let assign = pb::AssignRiskAlarmsRequest {
        alarm_ids: vec![alarm.id.clone()],
        assignee_id: one.to_string(),
        assignee_name: "甲".into(),
        remark: String::new(),
    };
    let err = client(s)
        .assign_risk_alarms(s.req_as(&t, t.user, PERMS, assign))
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from_status(&err).code, ErrorCode::Conflict);
}

async fn an_assigned_alarm_is_processing_and_leaves_the_untreated_filter(s: &Stack) {
    let t = s.tenant(1).await;
    let alarm = raise_one(s, &t).await;
    let member = Uuid::new_v4();
    let assign = pb::AssignRiskAlarmsRequest {
        alarm_ids: vec![alarm.id.clone()],
        assignee_id: member.to_string(),
        assignee_name: "值班员".into(),
        remark: "请跟进".into(),
    };
    let moved = client(s)
        .assign_risk_alarms(s.req_as(&t, t.user, PERMS, assign))
        .await
        .unwrap()
        .into_inner()
        .alarms;
    assert_eq!(moved[0].status, pb::AlarmStatus::Processing as i32);
    assert_eq!(
        (
            moved[0].assignee_name.as_str(),
            moved[0].assignee_id.clone()
        ),
        ("值班员", member.to_string())
    );
    let now = Utc::now();
    let untreated = pb::ListRiskAlarmsRequest {
        statuses: vec![pb::AlarmStatus::Unhandled.into()],
        alarm_time: Some(common::TimeRange {
            start: Some(fleetdesk_kit::convert::timestamp(now - Duration::days(1))),
            end: Some(fleetdesk_kit::convert::timestamp(now)),
        }),
        ..Default::default()
    };
    let list = client(s)
        .list_risk_alarms(s.req_as(&t, t.user, PERMS, untreated.clone()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.page.unwrap().total, 0);
    let mine = pb::ListRiskAlarmsRequest {
        statuses: vec![],
        assignee_id: member.to_string(),
        ..untreated
    };
    let list = client(s)
        .list_risk_alarms(s.req_as(&t, t.user, PERMS, mine))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.alarms.len(), 1);
    // A comment joins the log; the detail shows the track around the alarm.
    let comment = pb::CommentRiskAlarmRequest {
        alarm_id: alarm.id.clone(),
        remark: "司机已回电".into(),
        attachments: vec![],
    };
    let log = client(s)
        .comment_risk_alarm(s.req_as(&t, t.user, PERMS, comment))
        .await
        .unwrap()
        .into_inner()
        .activities;
    let actions: Vec<i32> = log.iter().map(|a| a.action).collect();
    assert_eq!(
        actions,
        vec![
            pb::AlarmActivityAction::Assigned as i32,
            pb::AlarmActivityAction::Commented as i32
        ]
    );
    let detail = client(s)
        .get_risk_alarm(s.req_as(
            &t,
            t.user,
            PERMS,
            pb::GetRiskAlarmRequest { alarm_id: alarm.id },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.track.len(), 3);
    assert_eq!(
        detail.activities.last().unwrap().action,
        pb::AlarmActivityAction::Viewed as i32
    );
}

async fn rules_are_checked_audited_and_apply_to_later_fixes(s: &Stack) {
    let t = s.tenant(1).await;
    let err = create_rule(s, &t, overspeed_rule(5, 30)).await.unwrap_err();
    assert_eq!(
        (err.code, err.fields[0].field.as_str()),
        (ErrorCode::BadRequest, "limitKmh")
    );
    assert_eq!(err.message, "限速应在 10 到 200 之间");
    let rule = create_rule(s, &t, overspeed_rule(100, 0)).await.unwrap();
    let v = t.vehicles[0];
    let t0 = base();
    let mut pipeline = s.pipeline();
    let at = |secs: i64| t0 + Duration::seconds(secs);
    pipeline
        .apply(vec![fix_row(&t, v, at(0), 80), fix_row(&t, v, at(30), 50)])
        .await
        .unwrap();
    assert!(alarms(s, &t, None).await.unwrap().is_empty());
    let changed = pb::AlarmRule {
        id: rule.id.clone(),
        ..overspeed_rule(70, 0)
    };
    client(s)
        .update_alarm_rule(s.req_as(
            &t,
            t.user,
            PERMS,
            pb::UpdateAlarmRuleRequest {
                rule: Some(changed),
            },
        ))
        .await
        .unwrap();
    pipeline
        .apply(vec![fix_row(&t, v, at(60), 80), fix_row(&t, v, at(90), 50)])
        .await
        .unwrap();
    let found = spans(&alarms(s, &t, None).await.unwrap());
    assert_eq!(
        found,
        vec![(
            pb::AlarmType::Overspeed as i32,
            at(60).timestamp(),
            Some(at(90).timestamp())
        )]
    );
    let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
    let changes: Vec<(Option<serde_json::Value>, Option<serde_json::Value>)> = sqlx::query_as(
        "select before, after from alarm_rule_change where rule_id = $1 order by id",
    )
    .bind(Uuid::parse_str(&rule.id).unwrap())
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[1].0.as_ref().unwrap()["params"]["limit_dkmh"], 1000);
    assert_eq!(changes[1].1.as_ref().unwrap()["params"]["limit_dkmh"], 700);
    // Without the rule permission, no change.
    let err = client(s)
        .delete_alarm_rule(s.req_as(
            &t,
            t.user,
            &["as:alarm"],
            pb::DeleteAlarmRuleRequest { rule_id: rule.id },
        ))
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from_status(&err).code, ErrorCode::Forbidden);
}

async fn another_tenant_sees_none_of_the_alarms_or_rules_and_cannot_work_them(s: &Stack) {
    let a = s.tenant(1).await;
    let b = s.tenant(1).await;
    let alarm = raise_one(s, &a).await;
    assert!(alarms(s, &b, None).await.unwrap().is_empty());
    let rules = client(s)
        .list_alarm_rules(s.req_as(&b, b.user, PERMS, pb::ListAlarmRulesRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .rules;
    assert!(rules.is_empty());
    let err = client(s)
        .get_risk_alarm(s.req_as(
            &b,
            b.user,
            PERMS,
            pb::GetRiskAlarmRequest {
                alarm_id: alarm.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from_status(&err).code, ErrorCode::NotFound);
    let handle = pb::HandleRiskAlarmsRequest {
        alarm_ids: vec![alarm.id.clone()],
        status: pb::AlarmStatus::Handled.into(),
        handle_method: pb::AlarmHandleMethod::NoAction.into(),
        ..Default::default()
    };
    let err = client(s)
        .handle_risk_alarms(s.req_as(&b, b.user, PERMS, handle))
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from_status(&err).code, ErrorCode::NotFound);
    let still = alarms(s, &a, None).await.unwrap();
    assert_eq!(still[0].status, pb::AlarmStatus::Unhandled as i32);
}

/// Three days of a delivery van: a fix every 30 s while out, odometer
/// rising, a stop at lunch; some days' fixes arrive late (a blind-area upload).
fn van_days(
    t: &Tenant,
    v: Uuid,
    first_day: DateTime<Utc>,
    seed: u64,
) -> Vec<fleetdesk_telemetry::ingest::domain::FixRow> {
    let mut out = Vec::new();
    let mut odometer = 1_000_000 + seed as i64 * 1_000;
    for d in 0..3 {
        let start = first_day + Duration::days(d) + Duration::hours(1 + (seed as i64 % 3));
        for i in 0..(6 * 120) {
            let at = start + Duration::seconds(i * 30);
            let lunch = (240..300).contains(&i);
            let kmh = if lunch {
                0
            } else {
                30 + ((i as u64 * 7 + seed) % 50) as i32
            };
            odometer += i64::from(kmh) * 30 / 36 * 10;
            let mut f = fix_row(t, v, at, kmh);
            f.mileage_m = Some(odometer);
            out.push(f);
        }
    }
    out
}

async fn daily_logs_equal_a_recomputation_from_history_and_months_their_sum(s: &Stack) {
    use fleetdesk_telemetry::operation::rollup::{Day, DayFix, slot_of};
    let t = s.tenant(4).await;
    let first_day = {
        let d = Utc::now() - Duration::days(10);
        DateTime::from_timestamp(d.timestamp() / 86_400 * 86_400, 0).unwrap()
    };
    let mut pipeline = s.pipeline();
    for (n, v) in t.vehicles.iter().enumerate() {
        let fixes = van_days(&t, *v, first_day, n as u64);
        if n % 2 == 0 {
            for batch in fixes.chunks(200) {
                pipeline.apply(batch.to_vec()).await.unwrap();
            }
        } else {
            // Late and shuffled: the newest half first, the rest in random batches.
            let mixed = shuffled(&fixes, n as u64);
            for batch in mixed.chunks(77) {
                pipeline.apply(batch.to_vec()).await.unwrap();
            }
        }
    }
    let now = Utc::now();
    let req = pb::ListDailyOperationReportsRequest {
        page: Some(common::PageRequest { page: 1, size: 50 }),
        report_date: Some(common::TimeRange {
            start: Some(fleetdesk_kit::convert::timestamp(now - Duration::days(20))),
            end: Some(fleetdesk_kit::convert::timestamp(now)),
        }),
        ..Default::default()
    };
    let mut telemetry =
        fleetdesk_proto::vehicle::v1::telemetry_service_client::TelemetryServiceClient::new(
            s.channel.clone(),
        );
    let daily = telemetry
        .list_daily_operation_reports(s.req_as(&t, t.user, &["oss:asset:report"], req.clone()))
        .await
        .unwrap()
        .into_inner();
    assert!(daily.reports.len() >= 12, "{}", daily.reports.len());
    assert_eq!(
        daily.page.as_ref().unwrap().total,
        daily.reports.len() as i64
    );
    // Every row equals its day recomputed from the stored history.
    let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
    for r in &daily.reports {
        let vehicle = Uuid::parse_str(&r.vehicle_id).unwrap();
        let day_start = r.report_date.as_ref().unwrap().seconds;
        let history: Vec<(DateTime<Utc>, i32, Option<i64>)> = sqlx::query_as(
            "select fix_time, speed_dkmh, mileage_m from position where vehicle_id = $1              and fix_time >= to_timestamp($2) and fix_time < to_timestamp($2) + interval '1 day'",
        )
        .bind(vehicle)
        .bind(day_start as f64)
        .fetch_all(&mut *tx)
        .await
        .unwrap();
        let mut day = Day::default();
        for (time, speed_dkmh, odometer_m) in history {
            assert_eq!(
                slot_of(time).0,
                slot_of(DateTime::from_timestamp(day_start, 0).unwrap()).0
            );
            day.add(&DayFix {
                time,
                speed_dkmh,
                odometer_m,
                soc: None,
            });
        }
        let want = day.totals();
        assert_eq!(
            (
                r.mileage_m,
                r.driving_seconds,
                r.idle_seconds,
                r.online_seconds,
                r.trip_count
            ),
            (
                want.mileage_m,
                want.driving_s,
                want.idle_s,
                want.online_s,
                want.trip_count
            ),
            "{} {}",
            r.plate_number,
            day_start
        );
        // Out, lunch (30 minutes standing), out again: two trips.
        assert!(
            r.mileage_m > 50_000 && r.trip_count == 2 && r.max_speed_kmh > 70.0,
            "{r:?}"
        );
    }
    drop(tx);
    // The month is the sum of its days.
    let month_of = |r: &pb::DailyOperationReport| {
        let at = DateTime::from_timestamp(r.report_date.as_ref().unwrap().seconds, 0).unwrap()
            + Duration::hours(8);
        (
            r.vehicle_id.clone(),
            chrono::Datelike::year(&at),
            chrono::Datelike::month(&at) as i32,
        )
    };
    let start = now - Duration::days(20);
    let monthly = telemetry
        .list_monthly_operation_reports(s.req_as(
            &t,
            t.user,
            &["oss:asset:report"],
            pb::ListMonthlyOperationReportsRequest {
                page: Some(common::PageRequest { page: 1, size: 50 }),
                start_month: Some(common::YearMonth {
                    year: chrono::Datelike::year(&start),
                    month: chrono::Datelike::month(&start) as i32,
                }),
                end_month: Some(common::YearMonth {
                    year: chrono::Datelike::year(&now),
                    month: chrono::Datelike::month(&now) as i32,
                }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(!monthly.reports.is_empty());
    for m in &monthly.reports {
        let month = m.month.as_ref().unwrap();
        let days: Vec<_> = daily
            .reports
            .iter()
            .filter(|d| month_of(d) == (m.vehicle_id.clone(), month.year, month.month))
            .collect();
        assert_eq!(m.mileage_m, days.iter().map(|d| d.mileage_m).sum::<i64>());
        assert_eq!(
            m.driving_seconds,
            days.iter().map(|d| d.driving_seconds).sum::<i64>()
        );
        assert_eq!(m.operating_days, days.len() as i32);
    }
    assert_eq!(
        monthly.totals.unwrap().mileage_m,
        daily.totals.unwrap().mileage_m
    );
    // Another tenant sees none of it.
    let b = s.tenant(1).await;
    let other = telemetry
        .list_daily_operation_reports(s.req_as(&b, b.user, &["oss:asset:report"], req))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(other.page.unwrap().total, 0);
}

#[tokio::test]
async fn risk_alarms_and_operation_logs_on_one_stack() {
    let s = support::stack().await;
    fleetdesk_testkit::scenarios!(&s;
        two_minutes_at_90_under_a_60_rule_is_one_overspeed_with_its_start_and_end,
        four_hours_ten_without_a_rest_is_one_fatigue_alarm,
        shuffled_and_backfilled_fixes_give_the_alarms_of_in_order_ones,
        tracks_kept_in_memory_give_the_alarms_of_stored_ones_across_processes,
        terminal_alarm_bits_raise_their_own_alarms,
        handling_an_emergency_confirms_it_to_the_terminal_once_with_0x8203,
        two_operators_handling_one_alarm_leave_one_state_and_one_entry_each,
        an_assigned_alarm_is_processing_and_leaves_the_untreated_filter,
        rules_are_checked_audited_and_apply_to_later_fixes,
        another_tenant_sees_none_of_the_alarms_or_rules_and_cannot_work_them,
        daily_logs_equal_a_recomputation_from_history_and_months_their_sum,
    );
}
