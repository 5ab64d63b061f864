//! Service-record stored codes, the checks of an input and the status's
//! rules. Pure: no database, no proto messages.

use chrono::{DateTime, Utc};
use fleetdesk_assets::vehicles::domain::Problems;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// How the caller reached customer service (codes as ServiceChannel).
    Channel => pb::ServiceChannel { Phone = 1, OnlineChat = 2, DriverApp = 3, Wecom = 4 }
);

stored_code!(
    /// What the contact was about (codes as ServiceCategory).
    Category => pb::ServiceCategory {
        RoadsideAssistance = 1, FaultReport = 2, AccidentReport = 3, Consultation = 4,
        Complaint = 5, Other = 6,
    }
);

stored_code!(
    /// Where the record is (codes as ServiceRecordStatus).
    RecordStatus => pb::ServiceRecordStatus { Open = 1, InProgress = 2, Resolved = 3, Closed = 4 }
);

impl RecordStatus {
    /// Whether the record counts as done (it has a close time).
    pub fn is_done(self) -> bool {
        matches!(self, RecordStatus::Resolved | RecordStatus::Closed)
    }
}

/// Longest contact a record takes, in seconds (a day).
const MAX_DURATION_SECONDS: i32 = 86_400;

/// An input as it arrives, unchecked (proto-free).
#[derive(Debug, Clone, Default)]
pub struct RecordFields {
    pub vehicle_id: String,
    pub driver_id: String,
    pub alarm_id: String,
    pub caller_name: String,
    pub caller_phone: String,
    pub channel: i32,
    pub category: i32,
    pub summary: String,
    pub resolution: String,
    pub start_time: Option<DateTime<Utc>>,
    pub duration_seconds: i32,
    pub follow_up_time: Option<DateTime<Utc>>,
    pub satisfaction: i32,
    pub status: i32,
}

/// A checked input.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordDraft {
    /// `None` when the alarm names the vehicle.
    pub vehicle_id: Option<Uuid>,
    pub driver_id: Option<Uuid>,
    pub alarm_id: Option<Uuid>,
    pub caller_name: String,
    pub caller_phone: String,
    pub channel: Channel,
    pub category: Category,
    pub summary: String,
    pub resolution: String,
    pub start_time: DateTime<Utc>,
    pub duration_seconds: i32,
    pub follow_up_time: Option<DateTime<Utc>>,
    pub satisfaction: i16,
    /// `None`: OPEN on create.
    pub status: Option<RecordStatus>,
}

fn optional_uuid(p: &mut Problems, field: &str, message: &str, value: &str) -> Option<Uuid> {
    match value.trim() {
        "" => None,
        v => {
            let id = Uuid::parse_str(v).ok();
            if id.is_none() {
                p.add(field, message);
            }
            id
        }
    }
}

/// A phone as callers give it: 5 to 20 digits, with `+`, `-` or spaces.
fn phone_ok(phone: &str) -> bool {
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    (5..=20).contains(&digits)
        && phone
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | ' '))
}

impl RecordDraft {
    /// Checks every field (an unset start is `now`) and reports all
    /// refusals at once.
    pub fn parse(input: &RecordFields, now: DateTime<Utc>) -> Result<RecordDraft, ServiceError> {
        let mut p = Problems::default();
        let vehicle_id = optional_uuid(&mut p, "vehicleId", "车辆不存在", &input.vehicle_id);
        let alarm_id = optional_uuid(&mut p, "alarmId", "报警记录不存在", &input.alarm_id);
        if input.vehicle_id.trim().is_empty() && input.alarm_id.trim().is_empty() {
            p.add("vehicleId", "请选择车辆");
        }
        let driver_id = optional_uuid(&mut p, "driverId", "司机不存在", &input.driver_id);
        let caller_name = p.optional_text("callerName", "来电人", &input.caller_name, 50);
        let caller_phone = input.caller_phone.trim().to_owned();
        if !caller_phone.is_empty() && !phone_ok(&caller_phone) {
            p.add("callerPhone", "联系电话格式不正确");
        }
        let channel = p.choice("channel", "服务渠道", Channel::from_pb(input.channel));
        let category = p.choice("category", "服务类型", Category::from_pb(input.category));
        let summary = p.text("summary", "问题描述", &input.summary, 500);
        let resolution = p.optional_text("resolution", "处理结果", &input.resolution, 1000);
        let start_time = input.start_time.unwrap_or(now);
        if start_time > now + chrono::Duration::minutes(5) {
            p.add("startTime", "来电时间不能晚于当前时间");
        }
        let duration_seconds = p.within(
            "durationSeconds",
            "通话时长(秒)",
            input.duration_seconds,
            0,
            MAX_DURATION_SECONDS,
        );
        if let Some(f) = input.follow_up_time
            && f < start_time
        {
            p.add("followUpTime", "回访日期不能早于来电时间");
        }
        let satisfaction = p.within("satisfaction", "满意度", input.satisfaction, 0, 5);
        let status = match input.status {
            0 => None,
            s => {
                let status = RecordStatus::from_pb(s);
                if status.is_none() {
                    p.add("status", "请选择处理状态");
                }
                status
            }
        };
        p.finish()?;
        let (Some(channel), Some(category)) = (channel, category) else {
            unreachable!("refused above");
        };
        Ok(RecordDraft {
            vehicle_id,
            driver_id,
            alarm_id,
            caller_name,
            caller_phone,
            channel,
            category,
            summary,
            resolution,
            start_time,
            duration_seconds,
            follow_up_time: input.follow_up_time,
            satisfaction: i16::try_from(satisfaction).unwrap_or_default(),
            status,
        })
    }
}

/// The status after an update asking for `requested` (`None` keeps it);
/// nothing changes a closed record.
pub fn next_status(
    current: RecordStatus,
    requested: Option<RecordStatus>,
) -> Result<RecordStatus, ServiceError> {
    if current == RecordStatus::Closed {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "服务记录已关闭，不能再修改",
        ));
    }
    Ok(requested.unwrap_or(current))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 8, 0, 0).unwrap()
    }

    fn fields() -> RecordFields {
        RecordFields {
            alarm_id: Uuid::from_u128(9).to_string(),
            channel: pb::ServiceChannel::Phone as i32,
            category: pb::ServiceCategory::FaultReport as i32,
            summary: "车辆无法启动".into(),
            ..RecordFields::default()
        }
    }

    #[test]
    fn a_record_from_an_alarm_needs_no_vehicle_and_starts_now() {
        let d = RecordDraft::parse(&fields(), now()).unwrap();
        assert_eq!((d.vehicle_id, d.alarm_id), (None, Some(Uuid::from_u128(9))));
        assert_eq!((d.start_time, d.status), (now(), None));
    }

    #[test]
    fn a_record_by_hand_names_its_vehicle_and_every_bad_field_is_named() {
        let mut f = fields();
        f.alarm_id.clear();
        f.summary = " ".into();
        f.caller_phone = "call me".into();
        f.satisfaction = 6;
        let err = RecordDraft::parse(&f, now()).unwrap_err();
        let named: Vec<_> = err.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            named,
            ["vehicleId", "callerPhone", "summary", "satisfaction"]
        );
        assert_eq!(err.fields[2].message, "请输入问题描述");
    }

    #[test]
    fn a_closed_record_is_final() {
        assert_eq!(
            next_status(RecordStatus::Resolved, Some(RecordStatus::InProgress)).unwrap(),
            RecordStatus::InProgress
        );
        let err = next_status(RecordStatus::Closed, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
    }
}
