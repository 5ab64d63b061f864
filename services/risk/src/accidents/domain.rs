//! Accident stored codes, the checks of an input, the status's moves and
//! the operation log's remark. Pure: no database, no proto messages.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_assets::oplog::Changes;
use fleetdesk_assets::vehicles::domain::Problems;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// How bad it was (codes as AccidentSeverity).
    Severity => pb::AccidentSeverity {
        PropertyOnly = 1, MinorInjury = 2, SeriousInjury = 3, Fatal = 4,
    }
);

stored_code!(
    /// The enterprise driver's share of liability (codes as AccidentLiability).
    Liability => pb::AccidentLiability {
        Undetermined = 1, Full = 2, Main = 3, Equal = 4, Secondary = 5, None = 6,
    }
);

stored_code!(
    /// Where the case is (codes as AccidentStatus, in their order).
    Status => pb::AccidentStatus {
        Reported = 1, LossAssessment = 2, Repairing = 3, Claiming = 4, Closed = 5,
    }
);

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::PropertyOnly => "仅财产损失",
            Severity::MinorInjury => "轻伤",
            Severity::SeriousInjury => "重伤",
            Severity::Fatal => "死亡",
        }
    }
}

impl Liability {
    pub fn label(self) -> &'static str {
        match self {
            Liability::Undetermined => "待认定",
            Liability::Full => "全责",
            Liability::Main => "主责",
            Liability::Equal => "同责",
            Liability::Secondary => "次责",
            Liability::None => "无责",
        }
    }
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Reported => "已报案",
            Status::LossAssessment => "定损中",
            Status::Repairing => "维修中",
            Status::Claiming => "理赔中",
            Status::Closed => "已结案",
        }
    }
}

/// Most images or documents one accident keeps.
pub const MAX_FILES: usize = 20;
/// How far past the server's clock an accident time may be (clock skew).
const FUTURE_SLACK_MINUTES: i64 = 5;

/// An input as it arrives, unchecked (proto-free).
#[derive(Debug, Clone, Default)]
pub struct AccidentFields {
    pub vehicle_id: String,
    pub driver_id: String,
    pub accident_time: Option<DateTime<Utc>>,
    pub address: String,
    pub area: serde_json::Value,
    /// (longitude, latitude).
    pub point: Option<(f64, f64)>,
    pub description: String,
    pub severity: i32,
    pub liability: i32,
    pub injured_count: i32,
    pub fatality_count: i32,
    pub estimated_loss_fen: i64,
    pub assessed_loss_fen: i64,
    pub fixed_loss_code: String,
    pub insurance_policy_id: String,
    pub claim_no: String,
    pub claim_paid_fen: i64,
    pub repair_order_id: String,
    pub images: serde_json::Value,
    pub documents: serde_json::Value,
    pub remark: String,
}

/// A checked input: what an accident stores (its driver still to be found
/// when `driver_id` is `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct AccidentDraft {
    pub vehicle_id: Uuid,
    pub driver_id: Option<Uuid>,
    pub accident_time: DateTime<Utc>,
    pub address: String,
    pub area: serde_json::Value,
    pub point: Option<(f64, f64)>,
    pub description: String,
    pub severity: Severity,
    pub liability: Liability,
    pub injured_count: i32,
    pub fatality_count: i32,
    pub estimated_loss_fen: i64,
    pub assessed_loss_fen: i64,
    pub fixed_loss_code: Option<String>,
    pub insurance_policy_id: String,
    pub claim_no: String,
    pub claim_paid_fen: i64,
    pub repair_order_id: String,
    pub images: serde_json::Value,
    pub documents: serde_json::Value,
    pub remark: String,
}

fn money(p: &mut Problems, field: &str, label: &str, fen: i64) -> i64 {
    if fen < 0 {
        p.add(field, format!("{label}不能为负数"));
    }
    fen
}

fn count(p: &mut Problems, field: &str, label: &str, n: i32) -> i32 {
    if n < 0 {
        p.add(field, format!("{label}不能为负数"));
    }
    n
}

fn files(
    p: &mut Problems,
    field: &str,
    label: &str,
    value: serde_json::Value,
) -> serde_json::Value {
    if value.as_array().is_some_and(|a| a.len() > MAX_FILES) {
        p.add(field, format!("{label}最多 {MAX_FILES} 个"));
    }
    value
}

impl AccidentDraft {
    /// Checks every field at `now` and reports all refusals at once.
    pub fn parse(input: AccidentFields, now: DateTime<Utc>) -> Result<AccidentDraft, ServiceError> {
        let mut p = Problems::default();
        let vehicle_id = Uuid::parse_str(input.vehicle_id.trim()).ok();
        if vehicle_id.is_none() {
            p.add("vehicleId", "请选择车辆");
        }
        let driver_id = match input.driver_id.trim() {
            "" => None,
            d => {
                let id = Uuid::parse_str(d).ok();
                if id.is_none() {
                    p.add("driverId", "司机不存在");
                }
                id
            }
        };
        match input.accident_time {
            None => p.add("accidentTime", "请选择事故时间"),
            Some(t) if t > now + Duration::minutes(FUTURE_SLACK_MINUTES) => {
                p.add("accidentTime", "事故时间不能晚于当前时间");
            }
            Some(_) => {}
        }
        let address = p.optional_text("address", "事故地点", &input.address, 200);
        if let Some((lng, lat)) = input.point
            && !((-180.0..=180.0).contains(&lng) && (-90.0..=90.0).contains(&lat))
        {
            p.add("point", "经纬度超出范围");
        }
        let description = p.optional_text("description", "事故经过", &input.description, 1000);
        let severity = p.choice("severity", "事故等级", Severity::from_pb(input.severity));
        // Liability is decided later by the police: unset is "undetermined".
        let liability = if input.liability == 0 {
            Some(Liability::Undetermined)
        } else {
            p.choice("liability", "责任认定", Liability::from_pb(input.liability))
        };
        let injured_count = count(&mut p, "injuredCount", "受伤人数", input.injured_count);
        let fatality_count = count(&mut p, "fatalityCount", "死亡人数", input.fatality_count);
        let estimated_loss_fen = money(
            &mut p,
            "estimatedLossFen",
            "预估损失金额",
            input.estimated_loss_fen,
        );
        let assessed_loss_fen = money(
            &mut p,
            "assessedLossFen",
            "定损金额",
            input.assessed_loss_fen,
        );
        let claim_paid_fen = money(&mut p, "claimPaidFen", "理赔到账金额", input.claim_paid_fen);
        let fixed_loss_code =
            p.optional_text("fixedLossCode", "定损编号", &input.fixed_loss_code, 64);
        let insurance_policy_id = p.optional_text(
            "insurancePolicyId",
            "保单号",
            &input.insurance_policy_id,
            64,
        );
        let claim_no = p.optional_text("claimNo", "理赔编号", &input.claim_no, 64);
        let repair_order_id =
            p.optional_text("repairOrderId", "维修单号", &input.repair_order_id, 64);
        let images = files(&mut p, "images", "事故照片", input.images);
        let documents = files(&mut p, "documents", "事故材料", input.documents);
        let remark = p.optional_text("remark", "备注", &input.remark, 500);
        p.finish()?;
        let (Some(vehicle_id), Some(accident_time), Some(severity), Some(liability)) =
            (vehicle_id, input.accident_time, severity, liability)
        else {
            unreachable!("refused above");
        };
        Ok(AccidentDraft {
            vehicle_id,
            driver_id,
            accident_time,
            address,
            area: input.area,
            point: input.point,
            description,
            severity,
            liability,
            injured_count,
            fatality_count,
            estimated_loss_fen,
            assessed_loss_fen,
            fixed_loss_code: Some(fixed_loss_code).filter(|c| !c.is_empty()),
            insurance_policy_id,
            claim_no,
            claim_paid_fen,
            repair_order_id,
            images,
            documents,
            remark,
        })
    }
}

/// The status after an update asking for `requested` (`None` keeps it):
/// forward only, and nothing changes a closed case.
pub fn next_status(current: Status, requested: Option<Status>) -> Result<Status, ServiceError> {
    if current == Status::Closed {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "事故已结案，不能再修改",
        ));
    }
    let to = requested.unwrap_or(current);
    if i16::from(to) < i16::from(current) {
        return Err(ServiceError::invalid(
            "status",
            format!(
                "事故状态不能从「{}」退回「{}」",
                current.label(),
                to.label()
            ),
        ));
    }
    Ok(to)
}

/// What an accident looked like, for the log's remark.
#[derive(Debug, Clone)]
pub struct Shown<'a> {
    pub draft: &'a AccidentDraft,
    pub plate_number: &'a str,
    pub driver_name: &'a str,
    pub status: Status,
}

/// A time as the console shows it (yyyy-MM-dd HH:mm, Asia/Shanghai).
pub fn minute(at: DateTime<Utc>) -> String {
    let shanghai = chrono::FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    at.with_timezone(&shanghai)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

/// The remark of a change: each changed field, in the form's order.
pub fn changes(before: &Shown<'_>, after: &Shown<'_>) -> String {
    let (a, b) = (before.draft, after.draft);
    let area = |d: &AccidentDraft| d.area.to_string();
    let point = |d: &AccidentDraft| {
        d.point
            .map(|(lng, lat)| format!("{lng:.6},{lat:.6}"))
            .unwrap_or_default()
    };
    Changes::new()
        .text("车牌号", before.plate_number, after.plate_number)
        .text("司机", before.driver_name, after.driver_name)
        .text(
            "事故时间",
            &minute(a.accident_time),
            &minute(b.accident_time),
        )
        .text("事故地点", &a.address, &b.address)
        .text("所在地区", &area(a), &area(b))
        .text("经纬度", &point(a), &point(b))
        .text("事故经过", &a.description, &b.description)
        .text("事故等级", a.severity.label(), b.severity.label())
        .text("责任认定", a.liability.label(), b.liability.label())
        .number(
            "受伤人数",
            Some(a.injured_count.into()),
            Some(b.injured_count.into()),
        )
        .number(
            "死亡人数",
            Some(a.fatality_count.into()),
            Some(b.fatality_count.into()),
        )
        .money(
            "预估损失金额",
            Some(a.estimated_loss_fen),
            Some(b.estimated_loss_fen),
        )
        .money(
            "定损金额",
            Some(a.assessed_loss_fen),
            Some(b.assessed_loss_fen),
        )
        .text(
            "定损编号",
            a.fixed_loss_code.as_deref().unwrap_or_default(),
            b.fixed_loss_code.as_deref().unwrap_or_default(),
        )
        .text("保单号", &a.insurance_policy_id, &b.insurance_policy_id)
        .text("理赔编号", &a.claim_no, &b.claim_no)
        .money(
            "理赔到账金额",
            Some(a.claim_paid_fen),
            Some(b.claim_paid_fen),
        )
        .text("维修单号", &a.repair_order_id, &b.repair_order_id)
        .secret("事故照片", &a.images.to_string(), &b.images.to_string())
        .secret(
            "事故材料",
            &a.documents.to_string(),
            &b.documents.to_string(),
        )
        .text("备注", &a.remark, &b.remark)
        .text("状态", before.status.label(), after.status.label())
        .finish()
}

/// The remark of a creation.
pub fn created(case_no: &str, plate_number: &str) -> String {
    Changes::new()
        .note(format!("新增事故：{case_no}（{plate_number}）"))
        .finish()
}

/// Unique violations as the user's field errors.
pub fn fixed_loss_code_taken() -> ServiceError {
    ServiceError::taken("fixedLossCode", "定损编号已被其他事故使用")
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 8, 0, 0).unwrap()
    }

    fn fields() -> AccidentFields {
        AccidentFields {
            vehicle_id: Uuid::from_u128(1).to_string(),
            accident_time: Some(now() - Duration::hours(2)),
            severity: pb::AccidentSeverity::MinorInjury as i32,
            images: serde_json::json!([]),
            documents: serde_json::json!([]),
            area: serde_json::json!({}),
            ..AccidentFields::default()
        }
    }

    #[test]
    fn a_good_input_is_kept_and_liability_defaults_to_undetermined() {
        let d = AccidentDraft::parse(fields(), now()).unwrap();
        assert_eq!(d.liability, Liability::Undetermined);
        assert_eq!(d.severity, Severity::MinorInjury);
        assert_eq!((d.driver_id, d.fixed_loss_code), (None, None));
    }

    #[test]
    fn negative_money_a_future_time_and_no_severity_are_each_named() {
        let mut f = fields();
        f.estimated_loss_fen = -1;
        f.injured_count = -2;
        f.accident_time = Some(now() + Duration::hours(1));
        f.severity = 0;
        let err = AccidentDraft::parse(f, now()).unwrap_err();
        let named: Vec<_> = err.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            named,
            [
                "accidentTime",
                "severity",
                "injuredCount",
                "estimatedLossFen"
            ]
        );
        assert_eq!(err.fields[3].message, "预估损失金额不能为负数");
    }

    #[test]
    fn the_status_moves_forward_only_and_closed_is_final() {
        assert_eq!(
            next_status(Status::Reported, None).unwrap(),
            Status::Reported
        );
        assert_eq!(
            next_status(Status::Reported, Some(Status::Claiming)).unwrap(),
            Status::Claiming
        );
        let back = next_status(Status::Repairing, Some(Status::Reported)).unwrap_err();
        assert_eq!(back.fields[0].field, "status");
        let closed = next_status(Status::Closed, Some(Status::Closed)).unwrap_err();
        assert_eq!(closed.code, ErrorCode::Conflict);
    }
}
