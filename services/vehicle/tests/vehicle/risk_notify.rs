//! Level-3 alarm notices over the real vehicle service: rules set through
//! RiskService, fixes through ingest's pipeline, and the notice requests
//! for org read back from the outbox the ingest transaction wrote them to
//! (org's side: services/org/tests/org/workflow_events.rs).

use crate::support;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::subjects;
use fleetdesk_proto::org::v1::NoticeRequested;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::risk_service_client::RiskServiceClient;
use fleetdesk_telemetry::alarms;
use fleetdesk_telemetry::ingest::domain::FixRow;
use prost::Message as _;
use support::{Stack, Tenant, fix_row};
use uuid::Uuid;

/// Whole minutes, some hours ago: inside retention and the notice window.
fn base() -> DateTime<Utc> {
    let now = Utc::now() - Duration::hours(6);
    DateTime::from_timestamp(now.timestamp() / 60 * 60, 0).unwrap()
}

/// An overspeed rule over 60 km/h for 30 s at `level`, quiet for `quiet` minutes.
async fn rule(s: &Stack, t: &Tenant, level: pb::RiskLevel, quiet: i32) {
    let rule = pb::AlarmRule {
        name: "城区超速".into(),
        kind: pb::AlarmRuleKind::Overspeed.into(),
        level: level.into(),
        limit_kmh: 60,
        min_duration_seconds: 30,
        quiet_minutes: quiet,
        enabled: true,
        ..Default::default()
    };
    RiskServiceClient::new(s.channel.clone())
        .create_alarm_rule(s.req_as(
            t,
            t.user,
            &["as:alarm", "as:alarm:rule"],
            pb::CreateAlarmRuleRequest { rule: Some(rule) },
        ))
        .await
        .unwrap();
}

/// Fixes every 10 s over `minutes` from `from`, at 90 km/h from the second
/// to the second-last minute, 50 km/h otherwise.
fn drive(t: &Tenant, from: DateTime<Utc>, minutes: i64) -> Vec<FixRow> {
    (0..minutes * 6)
        .map(|i| {
            let fast = (6..(minutes - 1) * 6).contains(&i);
            fix_row(
                t,
                t.vehicles[0],
                from + Duration::seconds(i * 10),
                if fast { 90 } else { 50 },
            )
        })
        .collect()
}

/// Hands fixes to ingest a few at a time, as a live terminal sends them.
async fn ingest(s: &Stack, fixes: &[FixRow]) {
    let mut pipeline = s.pipeline();
    for batch in fixes.chunks(3) {
        pipeline.apply(batch.to_vec()).await.unwrap();
    }
}

/// The notice requests the tenant's ingest wrote to the outbox, oldest first.
async fn notices(s: &Stack, t: &Tenant) -> Vec<NoticeRequested> {
    let payloads: Vec<Vec<u8>> =
        sqlx::query_scalar("select payload from outbox where subject = $1 order by created_at, id")
            .bind(subjects::notice_requested("vehicle"))
            .fetch_all(&s.owner)
            .await
            .unwrap();
    payloads
        .iter()
        .map(|p| NoticeRequested::decode(p.as_slice()).unwrap())
        .filter(|n| n.enterprise_id == t.enterprise.to_string())
        .collect()
}

/// (id, start) of the tenant's alarms, oldest first.
async fn alarms(s: &Stack, t: &Tenant) -> Vec<(Uuid, DateTime<Utc>)> {
    let mut tx = fleetdesk_kit::db::begin_service(&s.owner).await.unwrap();
    sqlx::query_as(
        "select id, started_at from risk_alarm where enterprise_id = $1 order by started_at",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap()
}

#[tokio::test]
async fn level_three_alarms_notify_once_and_respect_the_quiet_period() {
    let s = support::stack().await;
    one_long_overspeed_is_one_notice_and_a_replay_adds_none(&s).await;
    a_level_two_alarm_notifies_nobody(&s).await;
    the_quiet_period_holds_back_the_rules_next_alarm(&s).await;
    an_offline_alarm_the_job_opens_notifies_once(&s).await;
}

async fn one_long_overspeed_is_one_notice_and_a_replay_adds_none(s: &Stack) {
    let t = s.tenant(1).await;
    rule(s, &t, pb::RiskLevel::High, 0).await;
    let t0 = base();
    // Six minutes, 90 km/h for four of them: 24 fixes over the limit.
    let fixes = drive(&t, t0, 6);
    ingest(s, &fixes).await;
    let found = alarms(s, &t).await;
    assert_eq!(found.len(), 1, "{found:?}");
    let sent = notices(s, &t).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    let n = &sent[0];
    let (alarm, _) = found[0];
    assert_eq!(n.title, "三级告警：超速 · 粤B00000");
    assert_eq!(n.source_key, format!("risk-alarm:{alarm}"));
    assert_eq!(
        n.link,
        format!("/carManagement/riskControll/riskAlarmRecord?alarmId={alarm}")
    );
    assert!(n.content.contains("22.540000, 114.050000"), "{}", n.content);
    assert!(n.content.contains(&n.link), "{}", n.content);
    assert_eq!(
        (n.permission.as_str(), n.category.as_str()),
        ("as:alarm", "alarm")
    );
    assert_eq!(n.org_id, t.org.to_string());

    // Late fixes inside the alarm, and one before it that moves its start
    // earlier (the replay replaces the alarm row): no second notice.
    let late: Vec<_> = [55, 65, 125, 185]
        .iter()
        .map(|s| fix_row(&t, t.vehicles[0], t0 + Duration::seconds(*s), 90))
        .collect();
    ingest(s, &late).await;
    let after = alarms(s, &t).await;
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(
        after[0].1,
        t0 + Duration::seconds(55),
        "the replay moved the start"
    );
    assert_eq!(notices(s, &t).await.len(), 1);
    // The same fixes again change nothing either.
    ingest(s, &fixes).await;
    assert_eq!(notices(s, &t).await.len(), 1);
}

async fn a_level_two_alarm_notifies_nobody(s: &Stack) {
    let t = s.tenant(1).await;
    rule(s, &t, pb::RiskLevel::Medium, 0).await;
    ingest(s, &drive(&t, base(), 6)).await;
    assert_eq!(alarms(s, &t).await.len(), 1);
    assert!(notices(s, &t).await.is_empty());
}

async fn the_quiet_period_holds_back_the_rules_next_alarm(s: &Stack) {
    let t = s.tenant(1).await;
    rule(s, &t, pb::RiskLevel::High, 30).await;
    let t0 = base() - Duration::hours(2);
    // Overspeeds starting at 0, 15 and 45 minutes: the second is inside the
    // 30 minutes after the first's notice, the third is not.
    for start in [0, 15, 45] {
        ingest(s, &drive(&t, t0 + Duration::minutes(start), 6)).await;
    }
    assert_eq!(alarms(s, &t).await.len(), 3, "every alarm is recorded");
    let sent = notices(s, &t).await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    let found = alarms(s, &t).await;
    assert_eq!(sent[0].source_key, format!("risk-alarm:{}", found[0].0));
    assert_eq!(sent[1].source_key, format!("risk-alarm:{}", found[2].0));
}

async fn an_offline_alarm_the_job_opens_notifies_once(s: &Stack) {
    let t = s.tenant(1).await;
    let rule = pb::AlarmRule {
        name: "终端离线".into(),
        kind: pb::AlarmRuleKind::Offline.into(),
        level: pb::RiskLevel::High.into(),
        offline_hours: 1,
        enabled: true,
        ..Default::default()
    };
    RiskServiceClient::new(s.channel.clone())
        .create_alarm_rule(s.req_as(
            &t,
            t.user,
            &["as:alarm", "as:alarm:rule"],
            pb::CreateAlarmRuleRequest { rule: Some(rule) },
        ))
        .await
        .unwrap();
    // Silent for three hours: offline since two hours ago.
    let last = base() + Duration::hours(3);
    ingest(s, &[fix_row(&t, t.vehicles[0], last, 0)]).await;
    let mut seeded = alarms::offline::Seeded::default();
    for _ in 0..2 {
        alarms::offline::run_once(&s.app, Utc::now(), &mut seeded)
            .await
            .unwrap();
    }
    let found = alarms(s, &t).await;
    assert_eq!(found.len(), 1, "{found:?}");
    let sent = notices(s, &t).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].title, "三级告警：终端离线 · 粤B00000");
    assert_eq!(sent[0].source_key, format!("risk-alarm:{}", found[0].0));
}
