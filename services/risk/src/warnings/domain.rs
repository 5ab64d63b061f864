//! Warning stored codes and what a warning says. Pure: no database, no
//! proto messages.

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a warning is about (codes as WarningType).
    WarningKind => pb::WarningType {
        InsuranceExpiring = 1, InspectionDue = 2, MaintenanceDue = 3, LicenceExpiring = 4,
        LongIdle = 5, LongOffline = 6, NightDriving = 7, AbnormalEnergyUse = 8,
        FrequentAlarms = 9, PaymentOverdue = 10,
    }
);

stored_code!(
    /// Where a warning is (codes as WarningStatus).
    WarningState => pb::WarningStatus { Unread = 1, Acknowledged = 2, Resolved = 3 }
);

stored_code!(
    /// How urgent (codes as RiskLevel).
    Level => pb::RiskLevel { Low = 1, Medium = 2, High = 3 }
);

/// Licences expiring within this many days are warned of.
pub const LICENCE_HORIZON_DAYS: i64 = 30;
/// A licence this close to expiry (or past it) is a high-level warning.
const LICENCE_URGENT_DAYS: i64 = 7;

/// A warning to raise (unless its subject already has one for its period).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raise {
    pub kind: WarningKind,
    pub level: Level,
    /// Which period of the subject: once per subject and period.
    pub period: String,
    pub title: String,
    pub content: String,
}

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn local_day(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&shanghai()).date_naive()
}

/// The warning of a licence expiring at `expires`, seen at `now`.
pub fn licence(driver_name: &str, expires: DateTime<Utc>, now: DateTime<Utc>) -> Raise {
    let day = local_day(expires);
    let left = (day - local_day(now)).num_days();
    let date = day.format("%Y-%m-%d");
    let (title, content) = if left < 0 {
        (
            "驾驶证已过期",
            format!("司机{driver_name}的驾驶证已于 {date} 到期，请尽快换证"),
        )
    } else {
        (
            "驾驶证即将到期",
            format!("司机{driver_name}的驾驶证将于 {date} 到期（剩余 {left} 天），请及时换证"),
        )
    };
    Raise {
        kind: WarningKind::LicenceExpiring,
        level: if left <= LICENCE_URGENT_DAYS {
            Level::High
        } else {
            Level::Medium
        },
        period: day.to_string(),
        title: title.to_owned(),
        content,
    }
}

/// The warning of a rent-to-own record with `overdue` unpaid instalments
/// after `paid` paid ones.
pub fn overdue(
    plate_number: &str,
    contract_no: &str,
    paid: i32,
    overdue: i32,
    instalment_fen: Option<i64>,
) -> Raise {
    let newest = paid + overdue;
    let amount = instalment_fen
        .map(|f| format!("，每期 {}", fleetdesk_assets::oplog::domain::yuan(f)))
        .unwrap_or_default();
    Raise {
        kind: WarningKind::PaymentOverdue,
        level: if overdue >= 2 {
            Level::High
        } else {
            Level::Medium
        },
        period: format!("instalment-{newest}"),
        title: "分期付款逾期".to_owned(),
        content: format!(
            "车辆{plate_number}（合同 {contract_no}）第 {newest} 期已逾期，共 {overdue} 期未付{amount}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_licence_is_warned_of_by_its_shanghai_expiry_day() {
        let now = Utc.with_ymd_and_hms(2026, 11, 29, 2, 0, 0).unwrap();
        // 2026-12-19 16:30 UTC is the 20th in Shanghai: 21 days left.
        let expires = Utc.with_ymd_and_hms(2026, 12, 19, 16, 30, 0).unwrap();
        let r = licence("张三", expires, now);
        assert_eq!((r.level, r.period.as_str()), (Level::Medium, "2026-12-20"));
        assert!(r.content.contains("剩余 21 天"), "{}", r.content);
        let past = licence("张三", now - chrono::Duration::days(2), now);
        assert_eq!(
            (past.level, past.title.as_str()),
            (Level::High, "驾驶证已过期")
        );
    }

    #[test]
    fn an_overdue_record_is_one_period_per_newest_instalment() {
        let one = overdue("粤B00001", "HT-1", 3, 1, Some(150_000));
        assert_eq!(
            (one.period.as_str(), one.level),
            ("instalment-4", Level::Medium)
        );
        assert!(one.content.ends_with("每期 1500.00元"), "{}", one.content);
        assert_eq!(
            overdue("粤B00001", "HT-1", 3, 2, None).period,
            "instalment-5"
        );
    }
}
