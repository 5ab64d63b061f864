//! Statements between the wire and the store: the list filter checked, and
//! rows as proto messages — with the caller's reach, a statement shows the
//! figures of the organisation lines it reaches and no workbook unless it
//! reaches the whole enterprise.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::files;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, list};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::{Figures, StatementStatus};
use super::store::{CardLineQuery, CardLineRow, OrgLineRow, StatementQuery, StatementRow};
use crate::calendar::Month;
use crate::filters;

/// The list's filter, checked.
pub fn query(r: &pb::ListReconciliationStatementsRequest) -> Result<StatementQuery, ServiceError> {
    let bound = |field: &str, m: Option<&common::YearMonth>| {
        m.map(|m| Month::parse(field, Some(m)).map(Month::code))
            .transpose()
    };
    let from_month = bound("startMonth", r.start_month.as_ref())?;
    let to_month = bound("endMonth", r.end_month.as_ref())?;
    if let (Some(from), Some(to)) = (from_month, to_month)
        && from > to
    {
        return Err(ServiceError::invalid(
            "startMonth",
            "开始月份不能晚于结束月份",
        ));
    }
    Ok(StatementQuery {
        from_month,
        to_month,
        statuses: filters::codes("statuses", &r.statuses, StatementStatus::from_pb)?,
    })
}

/// The card-line filter, checked (organisations not yet expanded).
pub fn card_line_query(
    r: &pb::ListReconciliationCardLinesRequest,
) -> Result<CardLineQuery, ServiceError> {
    Ok(CardLineQuery {
        org_ids: filters::ids("orgIds", &r.org_ids, "组织编号无效")?,
        card_nos: list::batch("cardNos", &r.card_nos)?,
    })
}

fn org_line(row: &OrgLineRow) -> pb::ReconciliationOrgLine {
    let Figures {
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        uncollected_fen,
        refunded_fen,
        total_fen,
    } = row.figures;
    pb::ReconciliationOrgLine {
        org_id: row.org_id.to_string(),
        org_name: row.org_name.clone(),
        session_count,
        energy_wh,
        total_fen,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        uncollected_fen,
        refunded_fen,
        card_count: row.card_count,
    }
}

pub fn card_line(row: CardLineRow) -> pb::ReconciliationCardLine {
    let Figures {
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        uncollected_fen,
        refunded_fen,
        total_fen,
    } = row.figures;
    pb::ReconciliationCardLine {
        card_id: row.card_id.to_string(),
        card_no: row.card_no,
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        plate_number: row.plate_number,
        driver_name: row.driver_name,
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        uncollected_fen,
        refunded_fen,
        total_fen,
    }
}

/// What the caller sees of a statement: the whole of it, or — reaching
/// only some organisations — the sum of their `lines` and no workbook.
pub fn statement(
    row: StatementRow,
    lines: &[OrgLineRow],
    reach: &ResolvedReach,
) -> pb::ReconciliationStatement {
    let status = crate::codes::optional::<StatementStatus>(Some(row.status));
    let (figures, card_count, ledger_captured_fen, file) = if reach.all {
        let file = (!row.file_key.is_empty()).then(|| common::FileRef {
            content_type: files::content_type(&row.file_name).to_owned(),
            name: row.file_name.clone(),
            key: row.file_key.clone(),
            size_bytes: row.file_size,
        });
        (row.figures, row.card_count, row.ledger_captured_fen, file)
    } else {
        let mut sum = Figures::default();
        let mut cards = 0;
        for line in lines.iter().filter(|l| l.statement_id == row.id) {
            sum += line.figures;
            cards += line.card_count;
        }
        // The ledger is checked for the whole statement; a part of it
        // reconciles by the same sessions.
        (sum, cards, sum.total_fen, None)
    };
    let Figures {
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        uncollected_fen,
        refunded_fen,
        total_fen,
    } = figures;
    pb::ReconciliationStatement {
        id: row.id.to_string(),
        statement_no: row.statement_no,
        enterprise_id: row.enterprise_id.to_string(),
        month: Month::from_code(row.month).map(Month::to_pb),
        status: status.map_or(0, StatementStatus::pb),
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        refunded_fen,
        total_fen,
        org_lines: lines
            .iter()
            .filter(|l| l.statement_id == row.id)
            .map(org_line)
            .collect(),
        file,
        generated_time: row.generated_at.map(timestamp),
        confirmed_by: row.confirmed_by_name,
        confirm_time: row.confirm_time.map(timestamp),
        dispute_reason: row.dispute_reason,
        finance_bill_id: row.finance_bill_id,
        uncollected_fen,
        ledger_captured_fen,
        card_count,
        partial: !reach.all,
    }
}

/// The ids of `rows`, for their lines.
pub fn ids(rows: &[StatementRow]) -> Vec<Uuid> {
    rows.iter().map(|r| r.id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: Uuid) -> StatementRow {
        StatementRow {
            id,
            enterprise_id: Uuid::from_u128(1),
            statement_no: "CS202611-00000000".into(),
            month: 202_611,
            status: i16::from(StatementStatus::PendingConfirmation),
            figures: Figures {
                session_count: 3,
                total_fen: 900,
                ..Figures::default()
            },
            card_count: 2,
            ledger_captured_fen: 900,
            file_key: "e/statement/x/a.xlsx".into(),
            file_name: "a.xlsx".into(),
            file_size: 10,
            version: 1,
            generated_at: None,
            confirmed_by_name: String::new(),
            confirm_time: None,
            dispute_reason: String::new(),
            finance_bill_id: String::new(),
        }
    }

    fn line(statement: Uuid, org: u128, sessions: i64, fen: i64) -> OrgLineRow {
        OrgLineRow {
            statement_id: statement,
            org_id: Uuid::from_u128(org),
            org_name: format!("org{org}"),
            figures: Figures {
                session_count: sessions,
                total_fen: fen,
                ..Figures::default()
            },
            card_count: 1,
        }
    }

    #[test]
    fn a_partial_reach_sees_the_sum_of_its_lines_and_no_workbook() {
        let id = Uuid::from_u128(9);
        let lines = [line(id, 2, 2, 600)];
        let part = ResolvedReach {
            all: false,
            org_ids: vec![Uuid::from_u128(2)],
            own: None,
        };
        let seen = statement(row(id), &lines, &part);
        assert!(seen.partial && seen.file.is_none());
        assert_eq!((seen.session_count, seen.total_fen), (2, 600));
        assert_eq!(seen.org_lines.len(), 1);
        let whole = ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        };
        let all = statement(row(id), &lines, &whole);
        assert!(!all.partial);
        assert_eq!((all.session_count, all.total_fen), (3, 900));
        assert_eq!(
            all.file.unwrap().content_type,
            files::content_type("a.xlsx")
        );
    }

    #[test]
    fn time_fixed_and_reservation_fees_reach_the_statement_and_its_lines() {
        let id = Uuid::from_u128(9);
        let parts = Figures {
            parking_fee_fen: 100,
            time_fee_fen: 200,
            fixed_fee_fen: 50,
            reservation_fee_fen: 25,
            ..Figures::default()
        };
        let mut whole = row(id);
        whole.figures = parts;
        let mut south = line(id, 2, 1, 375);
        south.figures = parts;
        let reach = ResolvedReach {
            all: false,
            org_ids: vec![Uuid::from_u128(2)],
            own: None,
        };
        let seen = statement(whole, &[south], &reach);
        let org = &seen.org_lines[0];
        for fees in [
            (
                seen.parking_fee_fen,
                seen.time_fee_fen,
                seen.fixed_fee_fen,
                seen.reservation_fee_fen,
            ),
            (
                org.parking_fee_fen,
                org.time_fee_fen,
                org.fixed_fee_fen,
                org.reservation_fee_fen,
            ),
        ] {
            assert_eq!(fees, (100, 200, 50, 25));
        }
    }

    #[test]
    fn a_month_range_must_run_forward() {
        let ym = |m| {
            Some(common::YearMonth {
                year: 2026,
                month: m,
            })
        };
        let bad = pb::ListReconciliationStatementsRequest {
            start_month: ym(11),
            end_month: ym(10),
            ..Default::default()
        };
        assert!(query(&bad).is_err());
        let good = pb::ListReconciliationStatementsRequest {
            start_month: ym(10),
            end_month: ym(11),
            ..Default::default()
        };
        let q = query(&good).unwrap();
        assert_eq!((q.from_month, q.to_month), (Some(202_610), Some(202_611)));
    }
}
