//! Alarm rules, alarm kinds and the workflow's states and moves, with the
//! checks of what an operator sends. Pure.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// What raised an alarm (codes as AlarmType).
    AlarmKind => pb::AlarmType {
        Overspeed = 1, FatigueDriving = 2, PhoneUse = 3, Smoking = 4, Distraction = 5,
        ForwardCollision = 6, LaneDeparture = 7, HarshBraking = 8, HarshAcceleration = 9,
        Geofence = 10, LowBattery = 11, BatteryFault = 12, Temperature = 13, CameraBlocked = 14,
        NightDriving = 15, Emergency = 16, DangerWarning = 17, TerminalFault = 18,
        PowerCut = 19, Collision = 20, Rollover = 21, IllegalDoorOpening = 22, Theft = 23,
        Offline = 24, TerminalOther = 25, HeadwayTooShort = 26, PedestrianCollision = 27,
        FrequentLaneChange = 28, RoadSignOverLimit = 29, Obstacle = 30, DriverAbsent = 31,
        BlindSpot = 32, TyrePressure = 33, ActiveSafetyOther = 34,
    }
);

stored_code!(
    /// Where an alarm is in its workflow (codes as AlarmStatus).
    AlarmState => pb::AlarmStatus { Unhandled = 1, Handled = 2, FalseAlarm = 3, Processing = 4 }
);

stored_code!(
    /// How the handler dealt with it (codes as AlarmHandleMethod).
    HandleMethod => pb::AlarmHandleMethod {
        VoicePrompt = 1, PhoneCall = 2, TextMessage = 3, NoAction = 4,
    }
);

stored_code!(
    /// An entry of the activity log (codes as AlarmActivityAction).
    Activity => pb::AlarmActivityAction {
        Assigned = 1, Handled = 2, Dismissed = 3, Commented = 4, Viewed = 5,
    }
);

stored_code!(
    /// What a rule watches (codes as AlarmRuleKind).
    RuleKindCode => pb::AlarmRuleKind {
        Overspeed = 1, Fatigue = 2, NightDriving = 3, LowSoc = 4, Terminal = 5,
        FenceWindow = 6, Temperature = 7, Offline = 8,
    }
);

/// The alarm kind of each 0x0200 alarm bit (JT/T 808-2019 table 24). The
/// bits not listed are reserved (15-17).
pub fn terminal_bit_kind(bit: i16) -> AlarmKind {
    match bit {
        0 => AlarmKind::Emergency,
        1 => AlarmKind::Overspeed,
        2 => AlarmKind::FatigueDriving,
        3 => AlarmKind::DangerWarning,
        // GNSS module, antenna open or shorted, undervoltage, display,
        // TTS, camera, IC-card module.
        4..=7 | 9..=12 => AlarmKind::TerminalFault,
        8 => AlarmKind::PowerCut,
        // Stolen, illegal ignition, illegal displacement.
        26..=28 => AlarmKind::Theft,
        29 => AlarmKind::Collision,
        30 => AlarmKind::Rollover,
        31 => AlarmKind::IllegalDoorOpening,
        // Overspeed and fatigue pre-warnings, today's driving time, parking
        // overtime, area, route, route time, deviation, VSS, fuel.
        _ => AlarmKind::TerminalOther,
    }
}

/// The `rule_id` of alarms no rule raises (active safety, always on).
pub const NO_RULE: Uuid = Uuid::nil();

/// The `condition` of an active-safety alarm of `source` (1-4) and `event`
/// (0-255): -1000 - 256 × source - event, below every other condition.
pub fn safety_condition(source: u8, event: u8) -> i16 {
    -1000 - 256 * i16::from(source) - i16::from(event)
}

/// The alarm kind of an active-safety item (苏标 T/JSATL12-2017 tables
/// 4-15, 4-17, 4-19 and 4-21), or none for what is an event, not an alarm
/// (road-sign recognition, snapshots, driver change, a tyre's timed report).
/// `source` is telematics SafetySource: 1 ADAS, 2 DMS, 3 tyres (event = the
/// reading's event bits), 4 blind spot.
pub fn safety_kind(source: u8, event: u32) -> Option<AlarmKind> {
    Some(match (source, event) {
        (1, 1) => AlarmKind::ForwardCollision,
        (1, 2) => AlarmKind::LaneDeparture,
        (1, 3) => AlarmKind::HeadwayTooShort,
        (1, 4) => AlarmKind::PedestrianCollision,
        (1, 5) => AlarmKind::FrequentLaneChange,
        (1, 6) => AlarmKind::RoadSignOverLimit,
        (1, 7) => AlarmKind::Obstacle,
        (1, 8..=15) | (2, 6..=15) => AlarmKind::ActiveSafetyOther,
        (2, 1) => AlarmKind::FatigueDriving,
        (2, 2) => AlarmKind::PhoneUse,
        (2, 3) => AlarmKind::Smoking,
        (2, 4) => AlarmKind::Distraction,
        (2, 5) => AlarmKind::DriverAbsent,
        // Bit 0 is the timed pressure report; 1-7 too high, too low, too
        // hot, sensor fault, unbalanced, slow leak, sensor battery low.
        (3, bits) if bits & 0xfe != 0 => AlarmKind::TyrePressure,
        (4, 1..=3) => AlarmKind::BlindSpot,
        _ => return None,
    })
}

/// An active-safety item's level (苏标: 1 first, 2 second and more urgent):
/// 2 is HIGH, 1 or none MEDIUM.
pub fn safety_level(level: u32) -> i16 {
    if level >= 2 { 3 } else { 2 }
}

/// The 0x0800 event code of the photos a terminal takes for an alarm bit
/// (JT/T 808-2019 table 82: 2 robbery alarm, 3 collision or rollover, 4
/// door opened), if it takes any.
pub fn photo_event(condition: i16) -> Option<i16> {
    match condition {
        0 => Some(2),
        29 | 30 => Some(3),
        31 => Some(4),
        _ => None,
    }
}

/// The 0x0200 bits a terminal holds until the platform confirms them with
/// 0x8203 (JT/T 808-2019 table 24: emergency, danger warning, area, route,
/// route time, illegal ignition, illegal displacement).
const CONFIRMED_BY_PLATFORM: u32 = 1 | 1 << 3 | 1 << 20 | 1 << 21 | 1 << 22 | 1 << 27 | 1 << 28;

/// The 0x8203 type bits that confirm an alarm of `condition`, when its
/// terminal waits for one.
pub fn confirmation_bits(condition: i16) -> Option<u32> {
    let bit = u32::try_from(condition).ok().filter(|b| *b < 32)?;
    Some(1u32 << bit).filter(|b| CONFIRMED_BY_PLATFORM & b != 0)
}

/// The bits a terminal rule may name (15-17 are reserved).
pub fn is_terminal_bit(bit: i32) -> bool {
    (0..32).contains(&bit) && !(15..=17).contains(&bit)
}

/// The `condition` of a fatigue rule's daily-limit alarm (its continuous
/// driving alarm is -1).
pub const DAILY_CONDITION: i16 = -2;
/// The `condition` of a fence-window alarm: entering, leaving.
pub const ENTER_CONDITION: i16 = -3;
pub const EXIT_CONDITION: i16 = -4;

/// The `condition` of a temperature alarm of `probe` (0-255): -100 - probe,
/// so every platform condition is negative and a terminal bit never is.
pub fn probe_condition(probe: i16) -> i16 {
    -100 - probe
}

/// What a rule watches, with its parameters in the units the engine uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RuleKind {
    /// Inside fences with a speed limit, the lowest of theirs replaces
    /// `limit_dkmh`.
    Overspeed {
        limit_dkmh: i32,
        min_s: i32,
    },
    Fatigue {
        max_drive_s: i32,
        rest_s: i32,
        /// Driving in one Beijing day past this raises one alarm for the day.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        daily_s: Option<i32>,
    },
    NightDriving {
        from_minute: i32,
        to_minute: i32,
        min_s: i32,
    },
    LowSoc {
        below: i16,
        min_s: i32,
    },
    Terminal {
        bits: u32,
    },
    /// Crossings of `fences` (every fence when empty) in a Beijing-time
    /// window: instant alarms, from the crossings fence evaluation found.
    FenceWindow {
        fences: Vec<Uuid>,
        on_enter: bool,
        on_exit: bool,
        from_minute: i32,
        to_minute: i32,
    },
    /// A probe outside its cold-chain band for at least `min_s` (seen
    /// outside from its first to its last reading out of range).
    Temperature {
        min_s: i32,
    },
    /// No fix for `hours` (the periodic job of `offline`).
    Offline {
        hours: i32,
    },
}

/// Whether `minute` of the day lies in [from, to), a window that may cross
/// midnight.
pub fn in_window(minute: i32, from: i32, to: i32) -> bool {
    if from <= to {
        (from..to).contains(&minute)
    } else {
        minute >= from || minute < to
    }
}

/// The minute of the Beijing day of `time`.
pub fn beijing_minute(time: chrono::DateTime<chrono::Utc>) -> i32 {
    use chrono::Timelike;
    let local = time.with_timezone(&beijing());
    (local.hour() * 60 + local.minute()) as i32
}

/// The Beijing midnight that began the day of `time`.
pub fn beijing_day_start(time: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Utc> {
    let local = time.with_timezone(&beijing());
    local
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .and_then(|t| t.and_local_timezone(beijing()).single())
        .map_or(time, |t| t.with_timezone(&chrono::Utc))
}

/// UTC+8, the time of every window and day of the rules.
pub fn beijing() -> chrono::FixedOffset {
    chrono::FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// Whether a fence-window rule alarms on a crossing of `fence` (entering
/// when `enter`) at `time`.
pub fn window_crossing(
    kind: &RuleKind,
    fence: Uuid,
    enter: bool,
    time: chrono::DateTime<chrono::Utc>,
) -> bool {
    match kind {
        RuleKind::FenceWindow {
            fences,
            on_enter,
            on_exit,
            from_minute,
            to_minute,
        } => {
            (fences.is_empty() || fences.contains(&fence))
                && (if enter { *on_enter } else { *on_exit })
                && in_window(beijing_minute(time), *from_minute, *to_minute)
        }
        _ => false,
    }
}

impl RuleKind {
    pub fn code(&self) -> RuleKindCode {
        match self {
            RuleKind::Overspeed { .. } => RuleKindCode::Overspeed,
            RuleKind::Fatigue { .. } => RuleKindCode::Fatigue,
            RuleKind::NightDriving { .. } => RuleKindCode::NightDriving,
            RuleKind::LowSoc { .. } => RuleKindCode::LowSoc,
            RuleKind::Terminal { .. } => RuleKindCode::Terminal,
            RuleKind::FenceWindow { .. } => RuleKindCode::FenceWindow,
            RuleKind::Temperature { .. } => RuleKindCode::Temperature,
            RuleKind::Offline { .. } => RuleKindCode::Offline,
        }
    }

    /// How long a condition must hold before it is an alarm.
    pub fn min_duration_s(&self) -> i32 {
        match *self {
            RuleKind::Overspeed { min_s, .. }
            | RuleKind::NightDriving { min_s, .. }
            | RuleKind::LowSoc { min_s, .. }
            | RuleKind::Temperature { min_s } => min_s,
            RuleKind::Fatigue { .. }
            | RuleKind::Terminal { .. }
            | RuleKind::FenceWindow { .. }
            | RuleKind::Offline { .. } => 0,
        }
    }

    /// The kind of alarm a condition of this rule raises.
    pub fn alarm_kind(&self, condition: i16) -> AlarmKind {
        match self {
            RuleKind::Overspeed { .. } => AlarmKind::Overspeed,
            RuleKind::Fatigue { .. } => AlarmKind::FatigueDriving,
            RuleKind::NightDriving { .. } => AlarmKind::NightDriving,
            RuleKind::LowSoc { .. } => AlarmKind::LowBattery,
            RuleKind::Terminal { .. } => terminal_bit_kind(condition),
            RuleKind::FenceWindow { .. } => AlarmKind::Geofence,
            RuleKind::Temperature { .. } => AlarmKind::Temperature,
            RuleKind::Offline { .. } => AlarmKind::Offline,
        }
    }
}

/// A rule as the engine applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub id: Uuid,
    pub level: i16,
    /// The organisation subtree it applies to (every vehicle when none).
    pub org_path: Option<String>,
    pub kind: RuleKind,
}

impl Rule {
    /// Whether it applies to a vehicle under `vehicle_org_path`.
    pub fn applies_to(&self, vehicle_org_path: &str) -> bool {
        self.org_path
            .as_deref()
            .is_none_or(|p| vehicle_org_path.starts_with(p))
    }
}

/// A rule as the settings form sends it, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleDraft {
    pub name: String,
    pub level: i16,
    pub org_id: Option<Uuid>,
    pub enabled: bool,
    pub kind: RuleKind,
    pub quiet_minutes: i32,
}

fn within(
    field: &str,
    value: i32,
    range: std::ops::RangeInclusive<i32>,
    what: &str,
) -> Result<i32, ServiceError> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(ServiceError::invalid(
            field,
            format!("{what}应在 {} 到 {} 之间", range.start(), range.end()),
        ))
    }
}

/// A rule's Beijing-time window: minutes of the day, start and end apart.
fn window(rule: &pb::AlarmRule) -> Result<(i32, i32), ServiceError> {
    let from = within(
        "windowStartMinute",
        rule.window_start_minute,
        0..=1439,
        "开始时间",
    )?;
    let to = within(
        "windowEndMinute",
        rule.window_end_minute,
        0..=1439,
        "结束时间",
    )?;
    if from == to {
        return Err(ServiceError::invalid(
            "windowEndMinute",
            "结束时间不能与开始时间相同",
        ));
    }
    Ok((from, to))
}

impl RuleDraft {
    pub fn parse(rule: &pb::AlarmRule) -> Result<RuleDraft, ServiceError> {
        let name = rule.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 50 {
            return Err(ServiceError::invalid("name", "规则名称为 1 到 50 个字符"));
        }
        let level = match pb::RiskLevel::try_from(rule.level) {
            Ok(pb::RiskLevel::Low) => 1,
            Ok(pb::RiskLevel::Medium) => 2,
            Ok(pb::RiskLevel::High) => 3,
            _ => return Err(ServiceError::invalid("level", "请选择报警等级")),
        };
        let org_id = match rule.org_id.trim() {
            "" => None,
            id => Some(
                Uuid::parse_str(id).map_err(|_| ServiceError::invalid("orgId", "组织编号无效"))?,
            ),
        };
        let kind = match pb::AlarmRuleKind::try_from(rule.kind) {
            Ok(pb::AlarmRuleKind::Overspeed) => RuleKind::Overspeed {
                limit_dkmh: within("limitKmh", rule.limit_kmh, 10..=200, "限速")? * 10,
                min_s: within(
                    "minDurationSeconds",
                    rule.min_duration_seconds,
                    0..=3600,
                    "持续时间",
                )?,
            },
            Ok(pb::AlarmRuleKind::Fatigue) => RuleKind::Fatigue {
                max_drive_s: within(
                    "maxDriveMinutes",
                    rule.max_drive_minutes,
                    30..=720,
                    "连续驾驶时长",
                )? * 60,
                rest_s: within("restMinutes", rule.rest_minutes, 5..=240, "休息时长")? * 60,
                daily_s: match rule.daily_drive_minutes {
                    0 => None,
                    m => Some(within("dailyDriveMinutes", m, 60..=1440, "每日驾驶时长")? * 60),
                },
            },
            Ok(pb::AlarmRuleKind::NightDriving) => {
                let (from, to) = window(rule)?;
                RuleKind::NightDriving {
                    from_minute: from,
                    to_minute: to,
                    min_s: within(
                        "minDurationSeconds",
                        rule.min_duration_seconds,
                        0..=3600,
                        "持续时间",
                    )?,
                }
            }
            Ok(pb::AlarmRuleKind::LowSoc) => RuleKind::LowSoc {
                below: within(
                    "socBelowPercent",
                    rule.soc_below_percent,
                    1..=99,
                    "电量阈值",
                )? as i16,
                min_s: within(
                    "minDurationSeconds",
                    rule.min_duration_seconds,
                    0..=3600,
                    "持续时间",
                )?,
            },
            Ok(pb::AlarmRuleKind::Terminal) => {
                if rule.terminal_bits.is_empty() {
                    return Err(ServiceError::invalid("terminalBits", "请选择终端报警位"));
                }
                let mut bits = 0u32;
                for bit in &rule.terminal_bits {
                    if !is_terminal_bit(*bit) {
                        return Err(ServiceError::invalid("terminalBits", "终端报警位无效"));
                    }
                    bits |= 1 << bit;
                }
                RuleKind::Terminal { bits }
            }
            Ok(pb::AlarmRuleKind::FenceWindow) => {
                let (from_minute, to_minute) = window(rule)?;
                if !rule.fence_on_enter && !rule.fence_on_exit {
                    return Err(ServiceError::invalid(
                        "fenceOnEnter",
                        "请选择进围栏或出围栏",
                    ));
                }
                if rule.fence_ids.len() > 100 {
                    return Err(ServiceError::invalid("fenceIds", "最多选择 100 个围栏"));
                }
                let mut fences = Vec::with_capacity(rule.fence_ids.len());
                for id in &rule.fence_ids {
                    let id = Uuid::parse_str(id.trim())
                        .map_err(|_| ServiceError::invalid("fenceIds", "围栏编号无效"))?;
                    if !fences.contains(&id) {
                        fences.push(id);
                    }
                }
                fences.sort_unstable();
                RuleKind::FenceWindow {
                    fences,
                    on_enter: rule.fence_on_enter,
                    on_exit: rule.fence_on_exit,
                    from_minute,
                    to_minute,
                }
            }
            Ok(pb::AlarmRuleKind::Temperature) => RuleKind::Temperature {
                min_s: within(
                    "minDurationSeconds",
                    rule.min_duration_seconds,
                    60..=86_400,
                    "超温持续时间",
                )?,
            },
            Ok(pb::AlarmRuleKind::Offline) => RuleKind::Offline {
                hours: within("offlineHours", rule.offline_hours, 1..=720, "离线时长")?,
            },
            _ => return Err(ServiceError::invalid("kind", "请选择规则类型")),
        };
        Ok(RuleDraft {
            name,
            level,
            org_id,
            enabled: rule.enabled,
            kind,
            quiet_minutes: within("quietMinutes", rule.quiet_minutes, 0..=1440, "静默时长")?,
        })
    }
}

/// An operator's move of an alarm, checked against where it is: an open
/// alarm is assigned or closed; a closed one may be closed again (a
/// correction, or a second operator's answer: each is logged, the last
/// stands) but never reopened.
pub fn can_move(from: AlarmState, to: AlarmState) -> bool {
    use AlarmState::*;
    match to {
        Processing => matches!(from, Unhandled | Processing),
        Handled | FalseAlarm => true,
        Unhandled => false,
    }
}

/// A remark: trimmed, at most 500 characters; required to dismiss.
pub fn remark(text: &str, required: bool) -> Result<String, ServiceError> {
    let text = text.trim();
    if text.chars().count() > 500 {
        return Err(ServiceError::invalid("remark", "备注最多 500 个字符"));
    }
    if required && text.is_empty() {
        return Err(ServiceError::invalid("remark", "请填写误报原因"));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_alarms_are_never_reopened_and_open_ones_close_either_way() {
        use AlarmState::*;
        assert!(can_move(Unhandled, Processing));
        assert!(can_move(Processing, FalseAlarm));
        assert!(can_move(Unhandled, Handled));
        assert!(can_move(FalseAlarm, Handled));
        assert!(!can_move(Handled, Processing));
        assert!(!can_move(FalseAlarm, Processing));
        assert!(!can_move(Processing, Unhandled));
    }

    #[test]
    fn a_rule_is_checked_field_by_field() {
        let mut rule = pb::AlarmRule {
            name: " 限速 60 ".into(),
            kind: pb::AlarmRuleKind::Overspeed.into(),
            level: pb::RiskLevel::High.into(),
            limit_kmh: 60,
            min_duration_seconds: 30,
            enabled: true,
            ..Default::default()
        };
        let draft = RuleDraft::parse(&rule).unwrap();
        assert_eq!(draft.name, "限速 60");
        assert_eq!(
            draft.kind,
            RuleKind::Overspeed {
                limit_dkmh: 600,
                min_s: 30
            }
        );
        assert_eq!(draft.level, 3);
        rule.limit_kmh = 5;
        let err = RuleDraft::parse(&rule).unwrap_err();
        assert_eq!(err.message, "限速应在 10 到 200 之间");
        rule.limit_kmh = 60;
        rule.kind = pb::AlarmRuleKind::Terminal.into();
        rule.terminal_bits = vec![0, 16];
        assert!(RuleDraft::parse(&rule).is_err());
        rule.terminal_bits = vec![0, 29];
        assert_eq!(
            RuleDraft::parse(&rule).unwrap().kind,
            RuleKind::Terminal { bits: 1 | 1 << 29 }
        );
    }

    #[test]
    fn the_new_kinds_are_checked_with_their_own_fields() {
        let mut rule = pb::AlarmRule {
            name: "每日驾驶".into(),
            kind: pb::AlarmRuleKind::Fatigue.into(),
            level: pb::RiskLevel::Medium.into(),
            max_drive_minutes: 240,
            rest_minutes: 20,
            daily_drive_minutes: 480,
            ..Default::default()
        };
        assert_eq!(
            RuleDraft::parse(&rule).unwrap().kind,
            RuleKind::Fatigue {
                max_drive_s: 240 * 60,
                rest_s: 20 * 60,
                daily_s: Some(480 * 60)
            }
        );
        rule.daily_drive_minutes = 30;
        let err = RuleDraft::parse(&rule).unwrap_err();
        assert_eq!(err.fields[0].field, "dailyDriveMinutes");
        assert_eq!(err.message, "每日驾驶时长应在 60 到 1440 之间");
        rule.kind = pb::AlarmRuleKind::FenceWindow.into();
        rule.window_start_minute = 22 * 60;
        rule.window_end_minute = 6 * 60;
        assert_eq!(
            RuleDraft::parse(&rule).unwrap_err().message,
            "请选择进围栏或出围栏"
        );
        rule.fence_on_enter = true;
        rule.fence_ids = vec!["x".into()];
        assert_eq!(RuleDraft::parse(&rule).unwrap_err().message, "围栏编号无效");
        rule.fence_ids = vec![
            Uuid::from_u128(2).to_string(),
            Uuid::from_u128(1).to_string(),
        ];
        assert!(matches!(
            RuleDraft::parse(&rule).unwrap().kind,
            RuleKind::FenceWindow { ref fences, on_enter: true, on_exit: false, .. }
                if fences == &[Uuid::from_u128(1), Uuid::from_u128(2)]
        ));
        rule.kind = pb::AlarmRuleKind::Temperature.into();
        rule.min_duration_seconds = 30;
        assert!(RuleDraft::parse(&rule).is_err());
        rule.min_duration_seconds = 900;
        assert_eq!(
            RuleDraft::parse(&rule).unwrap().kind,
            RuleKind::Temperature { min_s: 900 }
        );
        rule.kind = pb::AlarmRuleKind::Offline.into();
        assert_eq!(
            RuleDraft::parse(&rule).unwrap_err().message,
            "离线时长应在 1 到 720 之间"
        );
        rule.offline_hours = 24;
        assert_eq!(
            RuleDraft::parse(&rule).unwrap().kind,
            RuleKind::Offline { hours: 24 }
        );
    }

    #[test]
    fn a_fence_window_alarms_inside_its_beijing_window_even_across_midnight() {
        let fence = Uuid::from_u128(1);
        let kind = RuleKind::FenceWindow {
            fences: vec![fence],
            on_enter: true,
            on_exit: false,
            from_minute: 22 * 60,
            to_minute: 6 * 60,
        };
        let utc = |s: &str| {
            chrono::DateTime::parse_from_rfc3339(s)
                .unwrap()
                .with_timezone(&chrono::Utc)
        };
        // 23:30 and 01:00 Beijing are inside; 12:00 and 06:00 are not.
        assert!(window_crossing(
            &kind,
            fence,
            true,
            utc("2026-11-28T15:30:00Z")
        ));
        assert!(window_crossing(
            &kind,
            fence,
            true,
            utc("2026-11-28T17:00:00Z")
        ));
        assert!(!window_crossing(
            &kind,
            fence,
            true,
            utc("2026-11-28T04:00:00Z")
        ));
        assert!(!window_crossing(
            &kind,
            fence,
            true,
            utc("2026-11-28T22:00:00Z")
        ));
        assert!(
            !window_crossing(&kind, fence, false, utc("2026-11-28T17:00:00Z")),
            "exits not watched"
        );
        assert!(!window_crossing(
            &kind,
            Uuid::from_u128(2),
            true,
            utc("2026-11-28T17:00:00Z")
        ));
    }

    #[test]
    fn a_beijing_day_starts_at_16_utc() {
        let utc = |s: &str| {
            chrono::DateTime::parse_from_rfc3339(s)
                .unwrap()
                .with_timezone(&chrono::Utc)
        };
        assert_eq!(
            beijing_day_start(utc("2026-11-28T15:59:00Z")),
            utc("2026-11-27T16:00:00Z")
        );
        assert_eq!(
            beijing_day_start(utc("2026-11-28T16:00:00Z")),
            utc("2026-11-28T16:00:00Z")
        );
    }

    #[test]
    fn only_the_bits_the_terminal_holds_are_confirmed() {
        assert_eq!(confirmation_bits(0), Some(1));
        assert_eq!(confirmation_bits(3), Some(8));
        assert_eq!(confirmation_bits(29), None, "collision clears by itself");
        assert_eq!(confirmation_bits(-1), None, "a platform rule");
    }

    #[test]
    fn active_safety_items_map_to_their_kinds_and_events_are_not_alarms() {
        assert_eq!(safety_kind(2, 2), Some(AlarmKind::PhoneUse));
        assert_eq!(safety_kind(2, 3), Some(AlarmKind::Smoking));
        assert_eq!(safety_kind(1, 1), Some(AlarmKind::ForwardCollision));
        assert_eq!(safety_kind(1, 3), Some(AlarmKind::HeadwayTooShort));
        assert_eq!(safety_kind(4, 2), Some(AlarmKind::BlindSpot));
        assert_eq!(safety_kind(1, 0x10), None, "road-sign recognition");
        assert_eq!(safety_kind(2, 0x11), None, "driver change");
        assert_eq!(safety_kind(3, 1), None, "a timed tyre report");
        assert_eq!(safety_kind(3, 1 << 2), Some(AlarmKind::TyrePressure));
        assert_eq!(
            (safety_level(2), safety_level(1), safety_level(0)),
            (3, 2, 2)
        );
        assert!(safety_condition(4, 255) < safety_condition(1, 0));
        assert!(safety_condition(1, 0) < probe_condition(255));
    }

    #[test]
    fn a_dismissal_needs_its_reason() {
        assert!(remark("  ", true).is_err());
        assert_eq!(remark(" 信号漂移 ", true).unwrap(), "信号漂移");
        assert_eq!(remark("", false).unwrap(), "");
        assert!(remark(&"长".repeat(501), false).is_err());
    }
}
