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
        FrequentAlarms = 9, PaymentOverdue = 10, IdCardExpiring = 11,
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

/// Licences and ID cards expiring within this many days are warned of.
pub const LICENCE_HORIZON_DAYS: i64 = 30;
/// A licence or ID card this close to expiry (or past it) is a high-level warning.
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

/// A driver's document that expires: what its warnings say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    Licence,
    IdCard,
}

impl Document {
    /// The warning type of its expiry.
    pub fn kind(self) -> WarningKind {
        match self {
            Document::Licence => WarningKind::LicenceExpiring,
            Document::IdCard => WarningKind::IdCardExpiring,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Document::Licence => "驾驶证",
            Document::IdCard => "身份证",
        }
    }
}

/// The warning of a driver's `document` expiring at `expires`, seen at
/// `now`: once per expiry day (a renewal is a new period), high within a
/// week of it or after.
pub fn expiring(
    document: Document,
    driver_name: &str,
    expires: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Raise {
    let day = local_day(expires);
    let left = (day - local_day(now)).num_days();
    let date = day.format("%Y-%m-%d");
    let name = document.name();
    let (title, content) = if left < 0 {
        (
            format!("{name}已过期"),
            format!("司机{driver_name}的{name}已于 {date} 到期，请尽快换证"),
        )
    } else {
        (
            format!("{name}即将到期"),
            format!("司机{driver_name}的{name}将于 {date} 到期（剩余 {left} 天），请及时换证"),
        )
    };
    Raise {
        kind: document.kind(),
        level: if left <= LICENCE_URGENT_DAYS {
            Level::High
        } else {
            Level::Medium
        },
        period: day.to_string(),
        title,
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
        let r = expiring(Document::Licence, "张三", expires, now);
        assert_eq!((r.level, r.period.as_str()), (Level::Medium, "2026-12-20"));
        assert!(r.content.contains("剩余 21 天"), "{}", r.content);
        let past = expiring(
            Document::Licence,
            "张三",
            now - chrono::Duration::days(2),
            now,
        );
        assert_eq!(
            (past.level, past.title.as_str()),
            (Level::High, "驾驶证已过期")
        );
    }

    #[test]
    fn an_id_card_is_warned_of_like_a_licence_under_its_own_type() {
        let now = Utc.with_ymd_and_hms(2026, 11, 29, 2, 0, 0).unwrap();
        let soon = expiring(
            Document::IdCard,
            "李四",
            now + chrono::Duration::days(5),
            now,
        );
        assert_eq!(
            (soon.kind, soon.level, soon.title.as_str()),
            (WarningKind::IdCardExpiring, Level::High, "身份证即将到期")
        );
        assert!(soon.content.contains("身份证将于"), "{}", soon.content);
        let later = expiring(
            Document::IdCard,
            "李四",
            now + chrono::Duration::days(20),
            now,
        );
        assert_eq!(later.level, Level::Medium);
        let past = expiring(
            Document::IdCard,
            "李四",
            now - chrono::Duration::days(1),
            now,
        );
        assert_eq!(past.title, "身份证已过期");
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
