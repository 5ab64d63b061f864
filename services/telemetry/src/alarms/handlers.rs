//! Risk alarm and alarm rule RPCs: validate → domain → store → response,
//! each in one tenant transaction under the caller's reach.

use chrono::Duration;
use fleetdesk_assets::vehicles::convert::files_to_json;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Activity, AlarmKind, AlarmState, HandleMethod, RuleDraft};
use super::store::{self, AlarmQuery, Move};
use super::{PERMISSION, RULE_PERMISSION, confirm, convert, evidence};
use crate::context::{Actor, Context};
use crate::exports;
use fleetdesk_assets::vehicles;

/// The list's time range: required, at most this long.
pub const MAX_LIST_DAYS: i64 = 92;
/// Alarms one batch action takes at most.
const MAX_BATCH: usize = 250;
/// The evidence track: this long around the alarm.
const TRACK_MARGIN_MINUTES: i64 = 5;

fn ids(field: &str, values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    let ids: Vec<Uuid> = values
        .iter()
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid(field, "编号无效")))
        .collect::<Result<_, _>>()?;
    if ids.is_empty() {
        return Err(ServiceError::invalid(field, "请选择报警记录"));
    }
    if ids.len() > MAX_BATCH {
        return Err(ServiceError::invalid(
            field,
            fleetdesk_kit::list::batch_limit_message(),
        ));
    }
    Ok(ids)
}

fn codes<T: Copy + Into<i16>>(values: &[i32], from_pb: impl Fn(i32) -> Option<T>) -> Vec<i16> {
    values
        .iter()
        .filter_map(|v| from_pb(*v))
        .map(Into::into)
        .collect()
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListRiskAlarmsRequest>,
) -> Result<pb::ListRiskAlarmsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let paging = Paging::parse(r.page.as_ref())?;
    let query = query(&mut tx, &r).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    let alarms = evidence::alarms_with_evidence(&mut tx, rows).await?;
    db::end_read(tx);
    Ok(pb::ListRiskAlarmsResponse {
        alarms,
        page: Some(paging.info(total)),
    })
}

/// The list's filter, checked, with its organisations' subtrees (the list
/// and its export read it the same way).
pub async fn query(
    conn: &mut sqlx_postgres::PgConnection,
    r: &pb::ListRiskAlarmsRequest,
) -> Result<AlarmQuery, ServiceError> {
    let started = TimeRange::parse("alarmTime", r.alarm_time.as_ref())?;
    let (Some(start), Some(end)) = (started.start, started.end) else {
        return Err(ServiceError::invalid("alarmTime", "请选择报警时间范围"));
    };
    if end - start > Duration::days(MAX_LIST_DAYS) {
        return Err(ServiceError::invalid(
            "alarmTime",
            format!("时间范围最长 {MAX_LIST_DAYS} 天"),
        ));
    }
    let org_ids: Vec<Uuid> = r
        .org_ids
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid("orgIds", "编号无效")))
        .collect::<Result<_, _>>()?;
    Ok(AlarmQuery {
        plates: batch("plateNumbers", &r.plate_numbers)?,
        vins: batch("vins", &r.vins)?,
        org_ids: vehicles::store::org_subtrees(conn, org_ids).await?,
        kinds: codes(&r.alarm_types, AlarmKind::from_pb),
        levels: r
            .levels
            .iter()
            .filter(|l| (1..=3).contains(*l))
            .map(|l| *l as i16)
            .collect(),
        statuses: codes(&r.statuses, AlarmState::from_pb),
        assignee: match r.assignee_id.trim() {
            "" => None,
            a => Some(id(a)?),
        },
        started,
    })
}

/// `ExportRiskAlarms`: checks the list's filter and queues it under the
/// caller's reach; answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportRiskAlarmsRequest>,
) -> Result<pb::ExportRiskAlarmsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    query(&mut tx, &filter).await?;
    let job = exports::start(&mut tx, &actor, super::export::job(&filter)).await?;
    tx.commit().await?;
    Ok(pb::ExportRiskAlarmsResponse { job: Some(job) })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetRiskAlarmRequest>,
) -> Result<pb::GetRiskAlarmResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let alarm = id(&req.get_ref().alarm_id)?;
    let row = store::get_many(&mut tx, &actor, &[alarm], false)
        .await?
        .pop()
        .ok_or_else(ServiceError::not_found)?;
    store::log(
        &mut tx,
        &actor,
        alarm,
        Activity::Viewed,
        "",
        &serde_json::json!([]),
    )
    .await?;
    let margin = Duration::minutes(TRACK_MARGIN_MINUTES);
    let until = row.ended_at.unwrap_or(row.last_seen_at) + margin;
    let track = store::track(&mut tx, row.vehicle_id, row.started_at - margin, until).await?;
    let activities = store::activities(&mut tx, alarm).await?;
    let alarm = evidence::alarms_with_evidence(&mut tx, vec![row])
        .await?
        .pop();
    tx.commit().await?;
    Ok(pb::GetRiskAlarmResponse {
        alarm,
        activities: activities.into_iter().map(convert::activity).collect(),
        track: track.iter().map(convert::track_point).collect(),
    })
}

/// Locks the alarms, checks each may make the move, applies it and answers
/// them as they are now. Concurrent moves of one alarm take turns on its
/// row: each is logged, the state is the last one's. The terminal alarms
/// this move closes first that the terminal holds until confirmed are
/// confirmed to it (0x8203), once, after the commit.
async fn move_alarms(
    ctx: &Context,
    actor: &Actor,
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    alarm_ids: &[Uuid],
    m: Move,
) -> Result<Vec<pb::RiskAlarm>, ServiceError> {
    let alarms = store::get_many(&mut tx, actor, alarm_ids, true).await?;
    if alarms.len() != alarm_ids.len() {
        return Err(ServiceError::not_found());
    }
    for a in &alarms {
        let from = fleetdesk_kit::codes::known::<AlarmState>(a.status)?;
        if !domain::can_move(from, m.to) {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                format!("{} 的报警已处理完毕，不能再指派", a.plate_number),
            ));
        }
    }
    store::apply_move(&mut tx, actor, &alarms, &m).await?;
    let rows = store::get_many(&mut tx, actor, alarm_ids, false).await?;
    let rows = evidence::alarms_with_evidence(&mut tx, rows).await?;
    let closing = matches!(m.to, AlarmState::Handled | AlarmState::FalseAlarm);
    let to_confirm: Vec<(Uuid, Uuid, u32)> = alarms
        .iter()
        .filter(|a| {
            closing
                && matches!(
                    AlarmState::try_from(a.status),
                    Ok(AlarmState::Unhandled | AlarmState::Processing)
                )
        })
        .filter_map(|a| Some((a.id, a.vehicle_id, domain::confirmation_bits(a.condition)?)))
        .collect();
    let phones =
        store::terminal_phones(&mut tx, &to_confirm.iter().map(|c| c.1).collect::<Vec<_>>())
            .await?;
    tx.commit().await?;
    for (alarm, vehicle, bits) in to_confirm {
        match phones.get(&vehicle) {
            Some(phone) => confirm::send(&ctx.nats, alarm, phone, bits).await,
            None => tracing::warn!(%alarm, %vehicle, "No terminal to confirm the alarm to."),
        }
    }
    tracing::info!(
        alarms = alarm_ids.len(),
        to = ?m.to,
        enterprise = %actor.enterprise_id,
        "Risk alarms moved."
    );
    Ok(rows)
}

pub async fn handle(
    ctx: &Context,
    req: Request<pb::HandleRiskAlarmsRequest>,
) -> Result<pb::HandleRiskAlarmsResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let alarm_ids = ids("alarmIds", &r.alarm_ids)?;
    let (to, action) = match AlarmState::from_pb(r.status) {
        Some(AlarmState::Handled) => (AlarmState::Handled, Activity::Handled),
        Some(AlarmState::FalseAlarm) => (AlarmState::FalseAlarm, Activity::Dismissed),
        _ => return Err(ServiceError::invalid("status", "请选择处理结果")),
    };
    let remark = domain::remark(&r.remark, to == AlarmState::FalseAlarm)?;
    let handle_method = HandleMethod::from_pb(r.handle_method).map(i16::from);
    if to == AlarmState::Handled && handle_method.is_none() {
        return Err(ServiceError::invalid("handleMethod", "请选择处理方式"));
    }
    let m = Move {
        to,
        action,
        assignee: None,
        handle_method,
        remark,
        attachments: files_to_json(&r.attachments),
    };
    Ok(pb::HandleRiskAlarmsResponse {
        alarms: move_alarms(ctx, &actor, tx, &alarm_ids, m).await?,
    })
}

pub async fn assign(
    ctx: &Context,
    req: Request<pb::AssignRiskAlarmsRequest>,
) -> Result<pb::AssignRiskAlarmsResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let alarm_ids = ids("alarmIds", &r.alarm_ids)?;
    let assignee =
        id(&r.assignee_id).map_err(|_| ServiceError::invalid("assigneeId", "请选择处理人"))?;
    let name = r.assignee_name.trim();
    if name.is_empty() {
        return Err(ServiceError::invalid("assigneeId", "请选择处理人"));
    }
    let m = Move {
        to: AlarmState::Processing,
        action: Activity::Assigned,
        assignee: Some((assignee, name.to_owned())),
        handle_method: None,
        remark: domain::remark(&r.remark, false)?,
        attachments: serde_json::json!([]),
    };
    Ok(pb::AssignRiskAlarmsResponse {
        alarms: move_alarms(ctx, &actor, tx, &alarm_ids, m).await?,
    })
}

pub async fn comment(
    ctx: &Context,
    req: Request<pb::CommentRiskAlarmRequest>,
) -> Result<pb::CommentRiskAlarmResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let alarm = id(&r.alarm_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    store::get_many(&mut tx, &actor, &[alarm], false)
        .await?
        .pop()
        .ok_or_else(ServiceError::not_found)?;
    let remark = domain::remark(&r.remark, false)?;
    if remark.is_empty() {
        return Err(ServiceError::invalid("remark", "请填写备注"));
    }
    store::log(
        &mut tx,
        &actor,
        alarm,
        Activity::Commented,
        &remark,
        &files_to_json(&r.attachments),
    )
    .await?;
    let activities = store::activities(&mut tx, alarm).await?;
    tx.commit().await?;
    Ok(pb::CommentRiskAlarmResponse {
        activities: activities.into_iter().map(convert::activity).collect(),
    })
}

// --- Rules ---

pub async fn rules(
    ctx: &Context,
    req: Request<pb::ListAlarmRulesRequest>,
) -> Result<pb::ListAlarmRulesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let kinds: Vec<i32> = req.get_ref().kinds.clone();
    let rows = store::rules(&mut tx, actor.enterprise_id).await?;
    db::end_read(tx);
    Ok(pb::ListAlarmRulesResponse {
        rules: rows
            .into_iter()
            .map(convert::rule)
            .filter(|r| kinds.is_empty() || kinds.contains(&r.kind))
            .collect(),
    })
}

async fn checked_draft(
    tx: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    rule: Option<&pb::AlarmRule>,
) -> Result<RuleDraft, ServiceError> {
    let draft = RuleDraft::parse(rule.ok_or_else(|| ServiceError::invalid("rule", "请填写规则"))?)?;
    if let Some(org) = draft.org_id
        && !store::org_exists(tx, actor.enterprise_id, org).await?
    {
        return Err(ServiceError::invalid("orgId", "组织不存在"));
    }
    Ok(draft)
}

pub async fn create_rule(
    ctx: &Context,
    req: Request<pb::CreateAlarmRuleRequest>,
) -> Result<pb::CreateAlarmRuleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RULE_PERMISSION).await?;
    let draft = checked_draft(&mut tx, &actor, req.get_ref().rule.as_ref()).await?;
    let rule = Uuid::new_v4();
    store::save_rule(&mut tx, &actor, rule, None, &draft).await?;
    let row = store::rule(&mut tx, actor.enterprise_id, rule, false).await?;
    tx.commit().await?;
    tracing::info!(%rule, enterprise = %actor.enterprise_id, "Alarm rule created.");
    Ok(pb::CreateAlarmRuleResponse {
        rule: Some(convert::rule(row)),
    })
}

pub async fn update_rule(
    ctx: &Context,
    req: Request<pb::UpdateAlarmRuleRequest>,
) -> Result<pb::UpdateAlarmRuleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RULE_PERMISSION).await?;
    let input = req.get_ref().rule.as_ref();
    let rule = id(input.map(|r| r.id.as_str()).unwrap_or_default())?;
    let before = store::rule(&mut tx, actor.enterprise_id, rule, true).await?;
    let draft = checked_draft(&mut tx, &actor, input).await?;
    if draft.kind.code() != before.params.0.code() {
        return Err(ServiceError::invalid("kind", "规则类型不能修改"));
    }
    store::save_rule(&mut tx, &actor, rule, Some(&before), &draft).await?;
    let row = store::rule(&mut tx, actor.enterprise_id, rule, false).await?;
    tx.commit().await?;
    tracing::info!(%rule, enterprise = %actor.enterprise_id, "Alarm rule changed.");
    Ok(pb::UpdateAlarmRuleResponse {
        rule: Some(convert::rule(row)),
    })
}

pub async fn delete_rule(
    ctx: &Context,
    req: Request<pb::DeleteAlarmRuleRequest>,
) -> Result<pb::DeleteAlarmRuleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RULE_PERMISSION).await?;
    let rule = id(&req.get_ref().rule_id)?;
    let before = store::rule(&mut tx, actor.enterprise_id, rule, true).await?;
    store::delete_rule(&mut tx, &actor, &before).await?;
    tx.commit().await?;
    tracing::info!(%rule, enterprise = %actor.enterprise_id, "Alarm rule deleted.");
    Ok(pb::DeleteAlarmRuleResponse {})
}
