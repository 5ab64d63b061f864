//! What an operation-log row is about and how its remark is written. Pure: no
//! database, no proto.

use chrono::{DateTime, FixedOffset, Utc};
use fleetdesk_proto::vehicle::v1 as pb;

/// The kind of object a log row belongs to (stored as `pb::BusinessType`'s number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Business {
    Vehicle,
    Driver,
    UsageRecord,
}

impl Business {
    /// From the wire; `None` for kinds this service keeps no log of.
    pub fn from_pb(value: i32) -> Option<Business> {
        use pb::BusinessType as T;
        match T::try_from(value).ok()? {
            T::Vehicle => Some(Business::Vehicle),
            T::Driver => Some(Business::Driver),
            T::UsageRecord => Some(Business::UsageRecord),
            T::Unspecified
            | T::Geofence
            | T::RepairOrder
            | T::RepairStatement
            | T::Accident
            | T::Violation
            | T::AnnualInspection
            | T::InsurancePolicy => None,
        }
    }

    /// The stored code.
    pub fn code(self) -> i16 {
        let pb = match self {
            Business::Vehicle => pb::BusinessType::Vehicle,
            Business::Driver => pb::BusinessType::Driver,
            Business::UsageRecord => pb::BusinessType::UsageRecord,
        };
        pb as i16
    }
}

/// Shanghai time, for dates shown inside a remark.
fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// Money in fen as yuan with two decimals, e.g. `3500.00元`.
pub fn yuan(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let fen = fen.unsigned_abs();
    format!("{sign}{}.{:02}元", fen / 100, fen % 100)
}

/// A date as the console shows it (yyyy-MM-dd, Asia/Shanghai).
pub fn date(at: Option<DateTime<Utc>>) -> String {
    at.map(|t| t.with_timezone(&shanghai()).format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// A remark built field by field: `姓名：由「张三」改为「张四」；手机号：已修改`.
/// Only fields whose value changed are named.
#[derive(Debug, Default, Clone)]
pub struct Changes {
    parts: Vec<String>,
}

/// How an empty value reads in a remark.
const EMPTY: &str = "空";

fn shown(value: &str) -> &str {
    if value.is_empty() { EMPTY } else { value }
}

impl Changes {
    pub fn new() -> Changes {
        Changes::default()
    }

    /// A plain sentence (e.g. `新增司机`, `结束使用记录`).
    pub fn note(mut self, text: impl Into<String>) -> Changes {
        self.parts.push(text.into());
        self
    }

    /// A text field: both values are shown.
    pub fn text(mut self, label: &str, before: &str, after: &str) -> Changes {
        if before != after {
            self.parts.push(format!(
                "{label}：由「{}」改为「{}」",
                shown(before),
                shown(after)
            ));
        }
        self
    }

    /// A personal field (phone, ID number, address, images): the change is
    /// named, the values are not — the log is not an unaudited reveal.
    pub fn secret(mut self, label: &str, before: &str, after: &str) -> Changes {
        if before != after {
            self.parts.push(format!("{label}：已修改"));
        }
        self
    }

    /// A money field in fen.
    pub fn money(self, label: &str, before: Option<i64>, after: Option<i64>) -> Changes {
        let show = |v: Option<i64>| v.map(yuan).unwrap_or_default();
        self.text(label, &show(before), &show(after))
    }

    /// A whole number.
    pub fn number(self, label: &str, before: Option<i64>, after: Option<i64>) -> Changes {
        let show = |v: Option<i64>| v.map(|n| n.to_string()).unwrap_or_default();
        self.text(label, &show(before), &show(after))
    }

    /// A date (yyyy-MM-dd, Asia/Shanghai).
    pub fn date(
        self,
        label: &str,
        before: Option<DateTime<Utc>>,
        after: Option<DateTime<Utc>>,
    ) -> Changes {
        self.text(label, &date(before), &date(after))
    }

    /// Whether no field changed and no note was added.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The remark; empty when nothing changed.
    pub fn finish(self) -> String {
        self.parts.join("；")
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_remark_names_only_the_fields_that_changed_in_order() {
        let remark = Changes::new()
            .text("姓名", "张三", "张四")
            .text("工号", "A1", "A1")
            .money("月租金", Some(350_000), Some(360_050))
            .text("备注", "", "长期")
            .finish();
        assert_eq!(
            remark,
            "姓名：由「张三」改为「张四」；月租金：由「3500.00元」改为「3600.50元」；备注：由「空」改为「长期」"
        );
    }

    #[test]
    fn personal_fields_are_named_but_their_values_never_appear() {
        let remark = Changes::new()
            .secret("手机号", "13800000000", "13900000000")
            .finish();
        assert_eq!(remark, "手机号：已修改");
        assert!(!remark.contains("139"));
    }

    #[test]
    fn nothing_changed_gives_an_empty_remark() {
        let changes = Changes::new()
            .text("姓名", "张三", "张三")
            .date("到期日", None, None);
        assert!(changes.is_empty());
        assert_eq!(changes.finish(), "");
    }

    #[test]
    fn dates_read_in_shanghai_time() {
        // 2026-11-22 17:00 UTC is already the 23rd in Shanghai.
        let at = Utc.with_ymd_and_hms(2026, 11, 22, 17, 0, 0).unwrap();
        assert_eq!(date(Some(at)), "2026-11-23");
        assert_eq!(yuan(-5), "-0.05元");
    }

    #[test]
    fn only_vehicle_driver_and_usage_logs_are_kept_here() {
        assert_eq!(
            Business::from_pb(pb::BusinessType::Driver as i32),
            Some(Business::Driver)
        );
        assert_eq!(Business::from_pb(pb::BusinessType::Geofence as i32), None);
        assert_eq!(Business::from_pb(0), None);
        assert_eq!(Business::UsageRecord.code(), 3);
    }
}
