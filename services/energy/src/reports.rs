//! What the statements, the dashboard and the behaviour analysis share:
//! which sessions count as spent, the range a report reads (at most a
//! quarter), the sessions' scope condition (tenant, reach, organisation
//! filter) and average prices in integer arithmetic.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_proto::common::v1 as common;
use sqlx::QueryBuilder;
use sqlx_postgres::Postgres;
use uuid::Uuid;

use crate::sessions::domain::SessionStatus;

/// The longest range a report reads.
pub const MAX_RANGE: Duration = Duration::days(92);

/// Sessions whose money was captured: settled, or settled and (partly) refunded.
pub fn settled_codes() -> Vec<i16> {
    vec![
        i16::from(SessionStatus::Settled),
        i16::from(SessionStatus::Refunded),
    ]
}

/// A checked report range `[start, end)`: both sides, at most
/// [`MAX_RANGE`]; unset, `default` (e.g. this month so far) or, without
/// one, refused.
pub fn range(
    field: &str,
    value: Option<&common::TimeRange>,
    default: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> Result<(DateTime<Utc>, DateTime<Utc>), ServiceError> {
    let parsed = TimeRange::parse(field, value)?;
    let (start, end) = match (parsed.start, parsed.end, default) {
        (Some(start), Some(end), _) => (start, end),
        (None, None, Some(default)) => default,
        _ => {
            return Err(ServiceError::invalid(field, "请选择查询的开始和结束时间"));
        }
    };
    if start >= end {
        return Err(ServiceError::invalid(field, "开始时间须早于结束时间"));
    }
    if end - start > MAX_RANGE {
        return Err(ServiceError::invalid(field, "查询时间范围不能超过92天"));
    }
    Ok((start, end))
}

/// Which sessions of the tenant a report reads: the caller's reach and an
/// organisation filter (already expanded to subtrees), over the card's
/// organisation (sessions have no creator).
#[derive(Debug, Clone)]
pub struct Scope {
    pub enterprise_id: Uuid,
    pub reach: ResolvedReach,
    pub org_ids: Vec<Uuid>,
}

impl Scope {
    /// Appends ` and <tenant, reach and organisation conditions>` over the
    /// session alias `s`.
    pub fn push(&self, qb: &mut QueryBuilder<'_, Postgres>) {
        qb.push(" and s.enterprise_id = ")
            .push_bind(self.enterprise_id);
        self.push_orgs(qb, "s.org_id");
    }

    /// Appends the reach and organisation conditions over `org_column`.
    pub fn push_orgs(&self, qb: &mut QueryBuilder<'_, Postgres>, org_column: &str) {
        if !self.reach.all {
            qb.push(" and ")
                .push(org_column)
                .push(" = any(")
                .push_bind(self.reach.org_ids.clone())
                .push(")");
        }
        if !self.org_ids.is_empty() {
            qb.push(" and ")
                .push(org_column)
                .push(" = any(")
                .push_bind(self.org_ids.clone())
                .push(")");
        }
    }
}

/// The average price of `energy_wh` costing `total_fen`, fen per MWh
/// (rounded half up); 0 without energy.
pub fn fen_per_mwh(total_fen: i64, energy_wh: i64) -> i64 {
    per(total_fen, 1_000_000, energy_wh)
}

/// `amount * scale / over`, rounded half up, in 128-bit arithmetic; 0
/// when `over` is not positive.
pub fn per(amount: i64, scale: i64, over: i64) -> i64 {
    if over <= 0 {
        return 0;
    }
    let n = i128::from(amount) * i128::from(scale);
    let d = i128::from(over);
    i64::try_from((2 * n + d).div_euclid(2 * d)).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(t: DateTime<Utc>) -> Option<prost_types::Timestamp> {
        Some(fleetdesk_kit::convert::timestamp(t))
    }

    #[test]
    fn a_range_has_both_ends_and_at_most_92_days_or_the_default_if_any() {
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let day = (now - Duration::days(1), now);
        let default = Some(day);
        assert_eq!(range("t", None, default).unwrap(), day);
        assert!(range("t", None, None).is_err());
        let r = |s, e| common::TimeRange {
            start: ts(s),
            end: ts(e),
        };
        let ok = r(now - Duration::days(92), now);
        assert!(range("t", Some(&ok), default).is_ok());
        let long = r(now - Duration::days(93), now);
        assert!(range("t", Some(&long), default).is_err());
        let half = common::TimeRange {
            start: ts(now),
            end: None,
        };
        assert!(range("t", Some(&half), default).is_err());
        let empty = r(now, now);
        assert!(range("t", Some(&empty), default).is_err());
    }

    #[test]
    fn prices_round_half_up_and_need_energy() {
        // 123.45 元 for 150 kWh: 0.823 元/kWh = 82300 fen/MWh.
        assert_eq!(fen_per_mwh(12_345, 150_000), 82_300);
        assert_eq!(fen_per_mwh(1, 3), 333_333);
        assert_eq!(fen_per_mwh(2, 3), 666_667);
        assert_eq!(fen_per_mwh(500, 0), 0);
        assert_eq!(per(i64::MAX, 1_000_000, 1), i64::MAX);
    }
}
