//! An application's rules: which bills and how much of each may be
//! invoiced, what cancelling does in each state, the invoice's lines and
//! the issuing queue's retry delays. Pure: no I/O, no clock.

use std::collections::HashSet;
use std::time::Duration;

use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use crate::bills::domain::{BillKind, BillStatus};
use crate::codes::stored_code;
use crate::invoicing::client::{self, InvoiceLine, RedReason};

stored_code! {
    InvoiceType => pb::InvoiceType {
        DigitalSpecial = 1,
        DigitalGeneral = 2,
        PaperSpecial = 3,
        PaperGeneral = 4,
    }
}

stored_code! {
    ApplicationStatus => pb::InvoiceApplicationStatus {
        PendingReview = 1,
        Issuing = 2,
        Issued = 3,
        Mailed = 4,
        Rejected = 5,
        Cancelled = 6,
    }
}

/// Most bills on one application (one invoice line each).
pub const MAX_BILLS: usize = 250;

impl InvoiceType {
    /// A special VAT invoice: the buyer's tax id, address, phone, bank and account are printed.
    pub fn special(self) -> bool {
        match self {
            InvoiceType::DigitalSpecial | InvoiceType::PaperSpecial => true,
            InvoiceType::DigitalGeneral | InvoiceType::PaperGeneral => false,
        }
    }

    /// Posted on paper, so an address is required.
    pub fn paper(self) -> bool {
        match self {
            InvoiceType::PaperSpecial | InvoiceType::PaperGeneral => true,
            InvoiceType::DigitalSpecial | InvoiceType::DigitalGeneral => false,
        }
    }

    pub fn platform(self) -> client::InvoiceType {
        if self.special() {
            client::InvoiceType::Special
        } else {
            client::InvoiceType::Ordinary
        }
    }
}

/// A bill as an application sees it, read under its row lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invoiceable {
    pub bill_id: Uuid,
    pub status: BillStatus,
    /// Paid, minus refunded, minus already invoiced (or applied for).
    pub invoiceable_fen: i64,
}

/// How much of each bill an application takes: each asked bill is one the
/// caller reaches, paid or partly paid, asked once, for at most what is
/// left to invoice (0 = all of it).
pub fn allocate(
    asked: &[(Uuid, i64)],
    bills: &[Invoiceable],
) -> Result<Vec<(Uuid, i64)>, ServiceError> {
    if asked.is_empty() {
        return Err(ServiceError::invalid("bills", "请选择要开票的账单"));
    }
    if asked.len() > MAX_BILLS {
        return Err(ServiceError::invalid("bills", "一次最多为 250 张账单开票"));
    }
    let mut seen = HashSet::new();
    asked
        .iter()
        .map(|&(bill_id, amount_fen)| {
            if !seen.insert(bill_id) {
                return Err(ServiceError::invalid("bills", "同一账单不能重复选择"));
            }
            let bill = bills
                .iter()
                .find(|b| b.bill_id == bill_id)
                .ok_or_else(ServiceError::not_found)?;
            if !matches!(bill.status, BillStatus::Paid | BillStatus::PartiallyPaid) {
                return Err(ServiceError::invalid("bills", "只能为已支付的账单开票"));
            }
            if amount_fen < 0 {
                return Err(ServiceError::invalid("bills", "开票金额不能为负"));
            }
            let amount = if amount_fen == 0 {
                bill.invoiceable_fen
            } else {
                amount_fen
            };
            if amount <= 0 || amount > bill.invoiceable_fen {
                return Err(ServiceError::new(
                    ErrorCode::Conflict,
                    format!(
                        "开票金额超过账单可开票金额（可开 {} 元）",
                        yuan(bill.invoiceable_fen.max(0))
                    ),
                ));
            }
            Ok((bill_id, amount))
        })
        .collect()
}

/// Fen as yuan text: 12345 → "123.45".
pub fn yuan(fen: i64) -> String {
    format!("{}.{:02}", fen / 100, fen % 100)
}

/// What cancelling an application does in its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancelling {
    /// Nothing reached the platform: the application is cancelled and its
    /// amounts freed.
    Withdraw,
    /// Its invoice is reversed with a red-letter one, then as withdrawn.
    Reverse,
}

/// Cancelling `status`, `attempts` calls to the platform made: before the
/// first call it is withdrawn; while calls are under way it waits (the
/// platform may be issuing); an issued invoice is reversed once.
pub fn cancelling(status: ApplicationStatus, attempts: i32) -> Result<Cancelling, ServiceError> {
    match status {
        ApplicationStatus::PendingReview => Ok(Cancelling::Withdraw),
        ApplicationStatus::Issuing if attempts == 0 => Ok(Cancelling::Withdraw),
        ApplicationStatus::Issuing => Err(ServiceError::new(
            ErrorCode::Conflict,
            "发票正在开具，请开具完成后再申请红冲",
        )),
        ApplicationStatus::Issued | ApplicationStatus::Mailed => Ok(Cancelling::Reverse),
        ApplicationStatus::Rejected | ApplicationStatus::Cancelled => Err(ServiceError::new(
            ErrorCode::Conflict,
            "该申请已驳回、撤销或红冲，不能再次操作",
        )),
    }
}

/// The platform's red-letter reason for the user's text: one of its four
/// names as typed, else 开票有误.
pub fn red_reason(text: &str) -> RedReason {
    match text.trim() {
        "销货退回" => RedReason::GoodsReturned,
        "服务中止" => RedReason::ServiceStopped,
        "销售折让" => RedReason::SalesAllowance,
        _ => RedReason::IssuedInError,
    }
}

/// Rates the platform accepts, basis points.
const RATES_BP: [u32; 8] = [0, 100, 150, 300, 500, 600, 900, 1300];

/// What a bill of `kind` is invoiced as: goods or service name, tax
/// classification code (19 digits) and its usual rate.
pub fn item_of(kind: BillKind) -> (&'static str, &'static str, u32) {
    match kind {
        BillKind::Rent | BillKind::RentToOwnInstalment => {
            ("*经营租赁*车辆租赁费", "3040502020200000000", 1300)
        }
        BillKind::Charging => ("*现代服务*充电服务费", "3040502029900000000", 600),
        BillKind::Repair => ("*修理修配劳务*车辆维修费", "2010000000000000000", 1300),
        BillKind::Insurance => ("*现代服务*保险代理服务费", "3040802000000000000", 600),
        BillKind::ServiceFee | BillKind::Order => {
            ("*现代服务*车辆管理服务费", "3040502029900000000", 600)
        }
        BillKind::ViolationFine | BillKind::Deposit | BillKind::Compensation | BillKind::Other => {
            ("*现代服务*其他现代服务", "3049900000000000000", 600)
        }
    }
}

/// The rate of a bill's invoice line: its own lines' (the highest) when
/// the platform accepts it for this invoice, else the kind's usual one.
pub fn rate_of(kind: BillKind, line_rates_bp: &[i32], special: bool) -> u32 {
    line_rates_bp
        .iter()
        .filter_map(|r| u32::try_from(*r).ok())
        .max()
        .filter(|r| RATES_BP.contains(r) && !(special && *r == 0))
        .unwrap_or(item_of(kind).2)
}

/// The amount excluding tax of `total_fen` including tax at `rate_bp`,
/// chosen so that it plus its tax (as the platform rounds it) is the
/// total whenever such an amount exists (else the nearest).
pub fn excluding_tax(total_fen: i64, rate_bp: u32) -> i64 {
    let with = |amount_fen: i64| amount_fen + line(amount_fen, rate_bp).tax_fen();
    let rate = i128::from(rate_bp);
    let guess =
        i64::try_from((i128::from(total_fen) * 10_000 + (10_000 + rate) / 2) / (10_000 + rate))
            .unwrap_or(total_fen);
    [guess, guess - 1, guess + 1]
        .into_iter()
        .find(|a| with(*a) == total_fen)
        .unwrap_or(guess)
}

fn line(amount_fen: i64, rate_bp: u32) -> InvoiceLine {
    InvoiceLine {
        name: String::new(),
        tax_code: String::new(),
        specification: String::new(),
        unit: String::new(),
        quantity: String::new(),
        unit_price: String::new(),
        amount_fen,
        rate_bp,
    }
}

/// One invoice line for `total_fen` (including tax) of a bill.
pub fn bill_line(
    kind: BillKind,
    content: &str,
    bill_no: &str,
    total_fen: i64,
    rate_bp: u32,
) -> InvoiceLine {
    let (name, tax_code, _) = item_of(kind);
    let name = if content.trim().is_empty() {
        name
    } else {
        content.trim()
    };
    InvoiceLine {
        name: name.to_owned(),
        tax_code: tax_code.to_owned(),
        specification: bill_no.to_owned(),
        ..line(excluding_tax(total_fen, rate_bp), rate_bp)
    }
}

/// How long the issuing queue waits before try `attempts + 1` after a
/// retryable failure: half a second doubling, at most five minutes.
pub fn retry_delay(attempts: i32) -> Duration {
    let doublings = u32::try_from(attempts.clamp(1, 10) - 1).unwrap_or(0);
    Duration::from_millis(500 * 2u64.pow(doublings)).min(Duration::from_secs(300))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paid(invoiceable_fen: i64) -> Invoiceable {
        Invoiceable {
            bill_id: Uuid::new_v4(),
            status: BillStatus::Paid,
            invoiceable_fen,
        }
    }

    #[test]
    fn an_application_takes_at_most_what_is_left_of_paid_bills() {
        let a = paid(10_000);
        let b = paid(5_000);
        assert_eq!(
            allocate(&[(a.bill_id, 0), (b.bill_id, 4_000)], &[a, b]).unwrap(),
            [(a.bill_id, 10_000), (b.bill_id, 4_000)]
        );
        assert!(allocate(&[(a.bill_id, 10_001)], &[a]).is_err());
        assert!(allocate(&[(a.bill_id, 1), (a.bill_id, 1)], &[a]).is_err());
        assert!(allocate(&[(Uuid::new_v4(), 1)], &[a]).is_err());
        assert!(allocate(&[(a.bill_id, 0)], &[paid(0)]).is_err());
        let unpaid = Invoiceable {
            status: BillStatus::Unpaid,
            ..a
        };
        assert!(allocate(&[(a.bill_id, 0)], &[unpaid]).is_err());
        // Nothing left: "all of it" is nothing and refused.
        let spent = Invoiceable {
            invoiceable_fen: 0,
            ..a
        };
        assert!(allocate(&[(a.bill_id, 0)], &[spent]).is_err());
    }

    #[test]
    fn cancelling_withdraws_before_the_platform_and_reverses_after() {
        use ApplicationStatus::*;
        assert_eq!(cancelling(Issuing, 0).unwrap(), Cancelling::Withdraw);
        assert!(cancelling(Issuing, 1).is_err());
        assert_eq!(cancelling(Issued, 1).unwrap(), Cancelling::Reverse);
        assert!(cancelling(Cancelled, 1).is_err());
        assert!(cancelling(Rejected, 0).is_err());
    }

    #[test]
    fn the_amount_excluding_tax_adds_back_up_to_the_total() {
        for total in [1, 99, 100, 113, 10_000, 123_456, 999_999] {
            for rate in [600, 900, 1300, 300] {
                let amount = excluding_tax(total, rate);
                let back = amount + line(amount, rate).tax_fen();
                assert!(
                    (back - total).abs() <= 1,
                    "{total} at {rate}: {amount} → {back}"
                );
            }
        }
        assert_eq!(excluding_tax(113_000, 1300), 100_000);
        assert_eq!(excluding_tax(10_600, 600), 10_000);
    }

    #[test]
    fn a_bill_line_rate_is_its_own_when_the_platform_takes_it() {
        assert_eq!(rate_of(BillKind::Charging, &[600, 1300], true), 1300);
        assert_eq!(rate_of(BillKind::Charging, &[700], false), 600);
        assert_eq!(rate_of(BillKind::Rent, &[0], true), 1300);
        assert_eq!(rate_of(BillKind::Rent, &[0], false), 0);
        assert_eq!(rate_of(BillKind::Rent, &[], false), 1300);
    }

    #[test]
    fn retries_back_off_to_five_minutes() {
        assert_eq!(retry_delay(1), Duration::from_millis(500));
        assert_eq!(retry_delay(3), Duration::from_secs(2));
        assert_eq!(retry_delay(40), Duration::from_secs(256));
    }
}
