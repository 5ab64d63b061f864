//! Rules of statements, without the database: their status, which build a
//! request asks for, when a closed month is due, confirmation, the figures
//! a statement adds up and the check that they reconcile with the ledger.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use crate::calendar::Month;
use crate::codes::stored_code;

stored_code!(
    /// Where a statement stands.
    StatementStatus => pb::ReconciliationStatus {
        Generating = 1,
        PendingConfirmation = 2,
        Confirmed = 3,
        Disputed = 4,
        Draft = 5,
    }
);

impl StatementStatus {
    /// As the list and the workbook show it.
    pub fn label(self) -> &'static str {
        match self {
            StatementStatus::Generating => "生成中",
            StatementStatus::PendingConfirmation => "待确认",
            StatementStatus::Confirmed => "已确认",
            StatementStatus::Disputed => "有异议",
            StatementStatus::Draft => "本月草稿",
        }
    }
}

/// How long after a month ends its statement waits for the last CDRs
/// (sessions ending just before midnight settle minutes later).
pub const ISSUE_GRACE: Duration = Duration::hours(2);

/// How many months back a late settlement still joins the next statement.
pub const STRAGGLER_MONTHS: usize = 3;

/// The statement number: the month and the id's first digits, e.g.
/// CS202611-3F2A9C1B.
pub fn statement_no(month: Month, id: Uuid) -> String {
    let hex = id.simple().to_string().to_uppercase();
    format!("CS{}-{}", month.code(), &hex[..8])
}

/// The workbook's name.
pub fn file_name(month: Month, statement_no: &str) -> String {
    format!("充电对账单_{}_{statement_no}.xlsx", month.label())
}

/// What building a month's statement does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// The current month: (re)build the draft from the sessions so far.
    Draft,
    /// A closed month without an issued statement: take its sessions and issue it.
    Issue,
    /// A disputed statement, for the operator: rebuild it from its sessions.
    Reissue,
    /// Already issued: answer it as it is.
    Keep,
}

/// What `GenerateReconciliationStatement` for `month` does at `now`, given
/// the month's statement (if any) and whether an operator service asks.
pub fn build_for(
    month: Month,
    now: DateTime<Utc>,
    existing: Option<StatementStatus>,
    operator: bool,
) -> Result<Build, ServiceError> {
    let current = Month::of(now);
    if month > current {
        return Err(ServiceError::invalid("month", "不能生成未来月份的对账单"));
    }
    if month == current {
        return Ok(Build::Draft);
    }
    Ok(match existing {
        None | Some(StatementStatus::Draft | StatementStatus::Generating) => Build::Issue,
        Some(StatementStatus::Disputed) if operator => Build::Reissue,
        Some(
            StatementStatus::Disputed
            | StatementStatus::PendingConfirmation
            | StatementStatus::Confirmed,
        ) => Build::Keep,
    })
}

/// The month the month-end job issues at `now`: the latest closed month
/// whose last CDRs have had [`ISSUE_GRACE`] to arrive. That is the previous
/// month once the grace has passed since it ended, and the one before it
/// until then: its statement normally exists already, and one missing (a
/// round that failed all month) is issued rather than skipped.
pub fn due_month(now: DateTime<Utc>) -> Month {
    let current = Month::of(now);
    if now >= current.start() + ISSUE_GRACE {
        current.previous()
    } else {
        current.previous().previous()
    }
}

/// The months whose sessions a statement of `month` takes: the month
/// itself and the [`STRAGGLER_MONTHS`] before it (sessions of those that
/// settled after their own statement was issued).
pub fn source_months(month: Month) -> Vec<i32> {
    let mut months = vec![month.code()];
    let mut m = month;
    for _ in 0..STRAGGLER_MONTHS {
        m = m.previous();
        months.push(m.code());
    }
    months
}

/// What confirming (or disputing) does to a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub accepted: bool,
    pub dispute_reason: String,
}

/// Checks a confirmation: once, of a statement waiting for it, by a caller
/// who sees the whole enterprise, of the total they saw.
pub fn decide(
    status: StatementStatus,
    whole_enterprise: bool,
    total_fen: i64,
    expected_total_fen: i64,
    accepted: bool,
    dispute_reason: &str,
) -> Result<Decision, ServiceError> {
    if !whole_enterprise {
        return Err(ServiceError::new(
            ErrorCode::Forbidden,
            "只有可查看全企业数据的用户可以确认对账单",
        ));
    }
    match status {
        StatementStatus::PendingConfirmation => {}
        StatementStatus::Confirmed => {
            return Err(conflict("对账单已确认，不能重复操作"));
        }
        StatementStatus::Disputed => {
            return Err(conflict("对账单已提出异议，请等待重新出具"));
        }
        StatementStatus::Draft | StatementStatus::Generating => {
            return Err(conflict("本月尚未结束，对账单不能确认"));
        }
    }
    if expected_total_fen != total_fen {
        return Err(conflict("对账单金额已变化，请刷新后重试"));
    }
    let dispute_reason = dispute_reason.trim().to_owned();
    if !accepted && dispute_reason.is_empty() {
        return Err(ServiceError::invalid("disputeReason", "请填写异议原因"));
    }
    if dispute_reason.chars().count() > 500 {
        return Err(ServiceError::invalid(
            "disputeReason",
            "异议原因不能超过500个字符",
        ));
    }
    Ok(Decision {
        accepted,
        dispute_reason: if accepted {
            String::new()
        } else {
            dispute_reason
        },
    })
}

fn conflict(message: &str) -> ServiceError {
    ServiceError::new(ErrorCode::Conflict, message)
}

/// The sums of a set of sessions (a statement, an organisation, a card).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Figures {
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    pub uncollected_fen: i64,
    pub refunded_fen: i64,
    pub total_fen: i64,
}

impl std::ops::AddAssign for Figures {
    fn add_assign(&mut self, other: Figures) {
        self.session_count += other.session_count;
        self.energy_wh += other.energy_wh;
        self.electricity_fen += other.electricity_fen;
        self.service_fee_fen += other.service_fee_fen;
        self.parking_fee_fen += other.parking_fee_fen;
        self.time_fee_fen += other.time_fee_fen;
        self.fixed_fee_fen += other.fixed_fee_fen;
        self.reservation_fee_fen += other.reservation_fee_fen;
        self.discount_fen += other.discount_fen;
        self.uncollected_fen += other.uncollected_fen;
        self.refunded_fen += other.refunded_fen;
        self.total_fen += other.total_fen;
    }
}

/// An issued statement must equal what the ledger captured for its
/// sessions, fen for fen and part by part: each part's revenue legs at
/// most the part (a short hold leaves the rest uncollected), and what the
/// parts miss exactly the uncollected. A difference is a bug to fix, never
/// a statement to send.
pub fn reconcile(figures: &Figures, ledger: &LedgerCaptured) -> Result<(), ServiceError> {
    let parts = [
        (figures.electricity_fen, ledger.electricity_fen),
        (figures.service_fee_fen, ledger.service_fee_fen),
        (figures.time_fee_fen, ledger.time_fee_fen),
        (figures.parking_fee_fen, ledger.parking_fee_fen),
        (figures.fixed_fee_fen, ledger.fixed_fee_fen),
        (figures.reservation_fee_fen, ledger.reservation_fee_fen),
    ];
    let missed: i64 = parts.iter().map(|(part, booked)| part - booked).sum();
    let by_part = parts.iter().all(|(part, booked)| booked <= part);
    if figures.total_fen == ledger.total_fen && by_part && missed == figures.uncollected_fen {
        Ok(())
    } else {
        tracing::error!(
            ?figures,
            ?ledger,
            "Statement does not reconcile with the ledger."
        );
        Err(ServiceError::new(
            ErrorCode::Internal,
            "对账单金额与账本扣款不一致，暂不能出具",
        ))
    }
}

/// What the ledger's captures of a statement's sessions credited, in all
/// (the holds' debits) and to each revenue account kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct LedgerCaptured {
    pub total_fen: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub time_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn the_current_month_is_a_draft_and_a_closed_one_is_issued_once() {
        let now = utc("2026-12-10T02:00:00Z");
        let dec = Month::of(now);
        let nov = dec.previous();
        assert_eq!(build_for(dec, now, None, false).unwrap(), Build::Draft);
        assert!(build_for(dec.next(), now, None, false).is_err());
        assert_eq!(build_for(nov, now, None, false).unwrap(), Build::Issue);
        let draft = Some(StatementStatus::Draft);
        assert_eq!(build_for(nov, now, draft, false).unwrap(), Build::Issue);
        for kept in [
            StatementStatus::PendingConfirmation,
            StatementStatus::Confirmed,
            StatementStatus::Disputed,
        ] {
            assert_eq!(build_for(nov, now, Some(kept), false).unwrap(), Build::Keep);
        }
        let disputed = Some(StatementStatus::Disputed);
        assert_eq!(build_for(nov, now, disputed, true).unwrap(), Build::Reissue);
        let confirmed = Some(StatementStatus::Confirmed);
        assert_eq!(build_for(nov, now, confirmed, true).unwrap(), Build::Keep);
    }

    #[test]
    fn a_month_is_due_two_hours_after_it_ends_in_shanghai() {
        // 1 Dec 01:59 Shanghai: still October; 02:00: November is due.
        assert_eq!(due_month(utc("2026-11-30T16:00:00Z")).code(), 202_610);
        assert_eq!(due_month(utc("2026-11-30T17:59:00Z")).code(), 202_610);
        assert_eq!(due_month(utc("2026-11-30T18:00:00Z")).code(), 202_611);
        assert_eq!(due_month(utc("2027-01-15T00:00:00Z")).code(), 202_612);
        // Across a year: 1 Jan 00:30 Shanghai, November of the year before.
        assert_eq!(due_month(utc("2026-12-31T16:30:00Z")).code(), 202_611);
    }

    #[test]
    fn a_statement_takes_its_month_and_three_before_it() {
        let jan = Month::new(2027, 1).unwrap();
        assert_eq!(source_months(jan), [202_701, 202_612, 202_611, 202_610]);
    }

    #[test]
    fn confirmation_is_once_by_the_whole_enterprise_of_the_total_seen() {
        let pending = StatementStatus::PendingConfirmation;
        let ok = decide(pending, true, 500, 500, true, " ").unwrap();
        assert_eq!(
            ok,
            Decision {
                accepted: true,
                dispute_reason: String::new()
            }
        );
        let disputed = decide(pending, true, 500, 500, false, " 金额不符 ").unwrap();
        assert_eq!(disputed.dispute_reason, "金额不符");
        assert_eq!(
            decide(pending, true, 500, 500, false, "").unwrap_err().code,
            ErrorCode::BadRequest
        );
        assert_eq!(
            decide(pending, true, 500, 499, true, "").unwrap_err().code,
            ErrorCode::Conflict
        );
        assert_eq!(
            decide(pending, false, 500, 500, true, "").unwrap_err().code,
            ErrorCode::Forbidden
        );
        for done in [
            StatementStatus::Confirmed,
            StatementStatus::Disputed,
            StatementStatus::Draft,
        ] {
            assert_eq!(
                decide(done, true, 500, 500, true, "").unwrap_err().code,
                ErrorCode::Conflict
            );
        }
    }

    #[test]
    fn numbers_name_the_month_and_figures_add_up() {
        let id = Uuid::parse_str("3f2a9c1b-0000-4000-8000-000000000000").unwrap();
        let nov = Month::new(2026, 11).unwrap();
        assert_eq!(statement_no(nov, id), "CS202611-3F2A9C1B");
        assert_eq!(
            file_name(nov, "CS202611-3F2A9C1B"),
            "充电对账单_2026-11_CS202611-3F2A9C1B.xlsx"
        );
        let mut sum = Figures::default();
        let one = Figures {
            session_count: 1,
            energy_wh: 10_000,
            total_fen: 900,
            ..Figures::default()
        };
        sum += one;
        sum += one;
        assert_eq!(
            (sum.session_count, sum.energy_wh, sum.total_fen),
            (2, 20_000, 1_800)
        );
    }

    #[test]
    fn a_statement_reconciles_with_the_ledger_part_by_part() {
        let figures = Figures {
            electricity_fen: 1_000,
            service_fee_fen: 300,
            time_fee_fen: 200,
            fixed_fee_fen: 100,
            uncollected_fen: 150,
            total_fen: 1_450,
            ..Figures::default()
        };
        let ledger = LedgerCaptured {
            total_fen: 1_450,
            electricity_fen: 1_000,
            service_fee_fen: 300,
            time_fee_fen: 50,
            fixed_fee_fen: 100,
            ..LedgerCaptured::default()
        };
        assert!(reconcile(&figures, &ledger).is_ok());
        // The same total with time booked as electricity does not reconcile.
        let misbooked = LedgerCaptured {
            electricity_fen: 1_150,
            time_fee_fen: 0,
            ..ledger
        };
        assert_eq!(
            reconcile(&figures, &misbooked).unwrap_err().code,
            ErrorCode::Internal
        );
        let short = LedgerCaptured {
            total_fen: 1_350,
            fixed_fee_fen: 0,
            ..ledger
        };
        assert!(reconcile(&figures, &short).is_err());
    }
}
