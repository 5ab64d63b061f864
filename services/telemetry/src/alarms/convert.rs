//! Risk alarms and rules: stored rows → proto.

use fleetdesk_assets::vehicles::convert::files_from_json;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{Activity, AlarmKind, AlarmState, HandleMethod, NO_RULE, RuleKind};
use super::store::{ActivityRow, AlarmRow, RuleRow, TrackRow};
use crate::codes::optional;

fn level(code: i16) -> i32 {
    match code {
        1 => pb::RiskLevel::Low,
        2 => pb::RiskLevel::Medium,
        3 => pb::RiskLevel::High,
        _ => pb::RiskLevel::Unspecified,
    }
    .into()
}

fn kmh(dkmh: i32) -> f64 {
    f64::from(dkmh) / 10.0
}

pub fn alarm(r: AlarmRow) -> pb::RiskAlarm {
    let status = optional::<AlarmState>(Some(r.status))
        .map(AlarmState::pb)
        .unwrap_or_default();
    let closed = matches!(
        AlarmState::try_from(r.status),
        Ok(AlarmState::Handled | AlarmState::FalseAlarm)
    );
    let end = r.ended_at.unwrap_or(r.last_seen_at);
    pb::RiskAlarm {
        id: r.id.to_string(),
        org_id: r.org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name: r.org_name.unwrap_or_default(),
        vehicle_id: r.vehicle_id.to_string(),
        plate_number: r.plate_number,
        vin: r.vin,
        alarm_type: optional::<AlarmKind>(Some(r.kind))
            .map(AlarmKind::pb)
            .unwrap_or_default(),
        level: level(r.level),
        alarm_time: Some(timestamp(r.started_at)),
        point: Some(common::GeoPoint {
            longitude: r.lng,
            latitude: r.lat,
        }),
        speed_kmh: kmh(r.peak_speed_dkmh),
        duration_seconds: i32::try_from((end - r.started_at).num_seconds()).unwrap_or(i32::MAX),
        status,
        handle_method: optional::<HandleMethod>(r.handle_method)
            .map(HandleMethod::pb)
            .unwrap_or_default(),
        handle_remark: r.handle_remark,
        handler_name: r.handler_name,
        handle_time: r.handled_at.map(timestamp),
        end_time: r.ended_at.map(timestamp),
        // Active-safety alarms have no rule.
        rule_id: if r.rule_id == NO_RULE {
            String::new()
        } else {
            r.rule_id.to_string()
        },
        rule_name: r.rule_name.unwrap_or_default(),
        assignee_id: r.assignee_id.map(|a| a.to_string()).unwrap_or_default(),
        assignee_name: r.assignee_name,
        handle_seconds: match (closed, r.handled_at) {
            (true, Some(at)) => (at - r.started_at).num_seconds().max(0),
            _ => 0,
        },
        // Platform conditions are negative (see the module doc): -1.
        terminal_bit: i32::from(r.condition.max(-1)),
        ongoing: r.ended_at.is_none(),
        alarm_key: r.alarm_key.unwrap_or_default(),
        ..Default::default()
    }
}

pub fn activity(r: ActivityRow) -> pb::AlarmActivity {
    pb::AlarmActivity {
        action: optional::<Activity>(Some(r.action))
            .map(Activity::pb)
            .unwrap_or_default(),
        from_status: optional::<AlarmState>(r.from_status)
            .map(AlarmState::pb)
            .unwrap_or_default(),
        to_status: optional::<AlarmState>(r.to_status)
            .map(AlarmState::pb)
            .unwrap_or_default(),
        remark: r.remark,
        attachments: files_from_json(&r.attachments),
        actor_name: r.actor_name,
        time: Some(timestamp(r.at)),
    }
}

pub fn track_point(r: &TrackRow) -> pb::AlarmTrackPoint {
    pb::AlarmTrackPoint {
        time: Some(timestamp(r.fix_time)),
        point: Some(common::GeoPoint {
            longitude: r.lng,
            latitude: r.lat,
        }),
        speed_kmh: kmh(r.speed_dkmh),
    }
}

pub fn rule(r: RuleRow) -> pb::AlarmRule {
    let mut out = pb::AlarmRule {
        id: r.id.to_string(),
        name: r.name,
        kind: pb::AlarmRuleKind::from(r.params.0.code()).into(),
        level: level(r.level),
        org_id: r.org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name: r.org_name.unwrap_or_default(),
        enabled: r.enabled,
        quiet_minutes: r.quiet_minutes,
        audit: Some(common::Audit {
            created_by: r.created_by,
            create_time: Some(timestamp(r.created_at)),
            updated_by: r.updated_by,
            update_time: Some(timestamp(r.updated_at)),
        }),
        ..Default::default()
    };
    match r.params.0 {
        RuleKind::Overspeed { limit_dkmh, min_s } => {
            out.limit_kmh = limit_dkmh / 10;
            out.min_duration_seconds = min_s;
        }
        RuleKind::Fatigue {
            max_drive_s,
            rest_s,
            daily_s,
        } => {
            out.max_drive_minutes = max_drive_s / 60;
            out.rest_minutes = rest_s / 60;
            out.daily_drive_minutes = daily_s.unwrap_or_default() / 60;
        }
        RuleKind::NightDriving {
            from_minute,
            to_minute,
            min_s,
        } => {
            out.window_start_minute = from_minute;
            out.window_end_minute = to_minute;
            out.min_duration_seconds = min_s;
        }
        RuleKind::LowSoc { below, min_s } => {
            out.soc_below_percent = i32::from(below);
            out.min_duration_seconds = min_s;
        }
        RuleKind::Terminal { bits } => {
            out.terminal_bits = (0..32).filter(|b| bits >> b & 1 == 1).collect();
        }
        RuleKind::FenceWindow {
            fences,
            on_enter,
            on_exit,
            from_minute,
            to_minute,
        } => {
            out.fence_ids = fences.iter().map(Uuid::to_string).collect();
            out.fence_on_enter = on_enter;
            out.fence_on_exit = on_exit;
            out.window_start_minute = from_minute;
            out.window_end_minute = to_minute;
        }
        RuleKind::Temperature { min_s } => out.min_duration_seconds = min_s,
        RuleKind::Offline { hours } => out.offline_hours = hours,
    }
    out
}
