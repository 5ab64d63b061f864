//! Usage records as export kinds: the list's filter and reach
//! (`store::filtered`), newest first by keyset on (`created_at`, `id`). A
//! sub-page's export (rent, purchase, replacement, rent-to-own) carries the
//! terms columns of its kind; an export of every kind carries all of them.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::Terms;
use super::store::{self, UsageQuery, UsageRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, moment, money, text};
use crate::vehicles;
use crate::vehicles::domain::UsageKind;

/// The kind's name in `export_job.kind` for every kind of record.
pub const KIND: &str = "usage_records";
const KIND_RENT: &str = "usage_records_rent";
const KIND_PURCHASE: &str = "usage_records_purchase";
const KIND_REPLACEMENT: &str = "usage_records_replacement";
const KIND_RENT_TO_OWN: &str = "usage_records_rent_to_own";

/// Every kind name with its export (for the worker).
pub fn kinds() -> [(&'static str, UsageRecordsExport); 5] {
    [
        (KIND, UsageRecordsExport(None)),
        (KIND_RENT, UsageRecordsExport(Some(UsageKind::Rent))),
        (KIND_PURCHASE, UsageRecordsExport(Some(UsageKind::Purchase))),
        (
            KIND_REPLACEMENT,
            UsageRecordsExport(Some(UsageKind::Replacement)),
        ),
        (
            KIND_RENT_TO_OWN,
            UsageRecordsExport(Some(UsageKind::RentToOwn)),
        ),
    ]
}

/// (kind name, record name, console page) of an export of `kind`'s records.
fn names(kind: Option<UsageKind>) -> (&'static str, &'static str, &'static str) {
    match kind {
        None => (KIND, "用车记录", "carUsedRecord"),
        Some(UsageKind::Rent) => (KIND_RENT, "租赁记录", "carRentRecord"),
        Some(UsageKind::Purchase) => (KIND_PURCHASE, "购车记录", "purchaseRecord"),
        Some(UsageKind::Replacement) => (KIND_REPLACEMENT, "替换车记录", "carReplaceRecord"),
        Some(UsageKind::RentToOwn) => (KIND_RENT_TO_OWN, "以租代售记录", "rentForSaleRecord"),
    }
}

const HEAD: [&str; 9] = [
    "车牌号",
    "车架号(VIN)",
    "所属组织",
    "使用类型",
    "记录状态",
    "合同编号",
    "合作方",
    "开始日期",
    "结束日期",
];
const TAIL: [&str; 2] = ["备注", "创建时间"];

/// The terms columns of one kind.
fn terms_header(kind: UsageKind) -> &'static [&'static str] {
    match kind {
        UsageKind::Rent => &[
            "月租金(元)",
            "押金(元)",
            "租期(月)",
            "每月付款日",
            "还车日期",
        ],
        UsageKind::Purchase => &["购车价(元)", "购置税(元)", "发票号", "交车日期"],
        UsageKind::Replacement => &["被替换车辆", "替换原因", "临时替换"],
        UsageKind::RentToOwn => &[
            "分期期数",
            "首付(元)",
            "每期金额(元)",
            "总价(元)",
            "尾款(元)",
            "已付期数",
            "逾期期数",
            "过户日期",
        ],
    }
}

/// The terms cells of `kind` (empty when the record is of another kind).
fn terms_cells(kind: UsageKind, terms: Option<&Terms>) -> Vec<Cell> {
    match (kind, terms) {
        (UsageKind::Rent, Some(Terms::Rent(r))) => vec![
            money(Some(r.monthly_rent_fen)),
            money(Some(r.deposit_fen)),
            Cell::from(r.term_months),
            Cell::from(r.payment_day),
            day(r.return_time),
        ],
        (UsageKind::Purchase, Some(Terms::Purchase(p))) => vec![
            money(Some(p.price_fen)),
            money(Some(p.purchase_tax_fen)),
            text(p.invoice_no.clone()),
            day(p.delivery_time),
        ],
        (UsageKind::Replacement, Some(Terms::Replacement(r))) => vec![
            text(r.replaced_plate_number.clone()),
            Cell::from(r.reason.label()),
            Cell::from(if r.temporary { "是" } else { "否" }),
        ],
        (UsageKind::RentToOwn, Some(Terms::RentToOwn(r))) => vec![
            Cell::from(r.term_months),
            money(Some(r.down_payment_fen)),
            money(Some(r.monthly_payment_fen)),
            money(Some(r.total_price_fen)),
            money(Some(r.final_payment_fen)),
            Cell::from(r.paid_periods),
            Cell::from(r.overdue_periods),
            day(r.ownership_transfer_time),
        ],
        (kind, _) => vec![Cell::Empty; terms_header(kind).len()],
    }
}

/// The job an `ExportUsageRecords` request queues (the filter checked now).
pub fn job(filter: &pb::UsageRecordFilter) -> Result<NewJob, ServiceError> {
    convert::query(Some(filter.clone()))?;
    let (kind, name, module) = names(UsageKind::from_pb(filter.kind));
    let filters_json = serde_json::json!({
        "kind": filter.kind,
        "plateNumbers": filter.plate_numbers,
        "vins": filter.vins,
        "orgIds": filter.org_ids,
        "statuses": filter.statuses,
        "contractNo": filter.contract_no,
        "counterparty": filter.counterparty,
        "period": exports::range_json(filter.period.as_ref()),
        "vehicleId": filter.vehicle_id,
    });
    Ok(NewJob {
        kind,
        name: name.to_owned(),
        module,
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// Usage records of one kind (or of every kind) as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct UsageRecordsExport(Option<UsageKind>);

impl UsageRecordsExport {
    /// The kinds whose terms columns the file carries.
    fn term_kinds(&self) -> Vec<UsageKind> {
        match self.0 {
            Some(kind) => vec![kind],
            None => UsageKind::ALL.to_vec(),
        }
    }
}

impl ListExport for UsageRecordsExport {
    type Scope = (Actor, UsageQuery);
    type Row = UsageRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        let mut header: Vec<&str> = HEAD.to_vec();
        for kind in self.term_kinds() {
            header.extend_from_slice(terms_header(kind));
        }
        header.extend_from_slice(&TAIL);
        header.into_iter().map(str::to_owned).collect()
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let mut query = convert::query(Some(exports::filter::<pb::UsageRecordFilter>(job)?))?;
        query.org_ids = vehicles::store::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        store::count(conn, actor, query).await
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<UsageRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &UsageRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: UsageRow) -> Vec<Cell> {
        let terms = convert::terms(&row);
        let status = convert::status(&row);
        let mut cells = vec![
            Cell::from(row.plate_number),
            Cell::from(row.vin),
            text(row.org_name),
            crate::exports::label::<UsageKind>(Some(row.kind), UsageKind::label),
            status.map_or(Cell::Empty, |s| Cell::from(s.label())),
            text(row.contract_no),
            text(row.counterparty),
            day(Some(row.start_time)),
            day(row.end_time),
        ];
        for kind in self.term_kinds() {
            cells.extend(terms_cells(kind, terms.as_ref()));
        }
        cells.push(text(row.remark));
        cells.push(moment(Some(row.created_at)));
        cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::domain::{Purchase, Rent, RentToOwn, Replacement, ReplacementReason};

    #[test]
    fn every_kind_has_a_cell_under_each_of_its_titles() {
        let samples = [
            Terms::Rent(Rent::default()),
            Terms::Purchase(Purchase::default()),
            Terms::Replacement(Replacement {
                replaced_vehicle_id: uuid::Uuid::nil(),
                replaced_plate_number: "粤B12345".into(),
                reason: ReplacementReason::Repair,
                temporary: true,
            }),
            Terms::RentToOwn(RentToOwn::default()),
        ];
        for kind in UsageKind::ALL {
            for terms in samples.iter().map(Some).chain([None]) {
                assert_eq!(
                    terms_cells(*kind, terms).len(),
                    terms_header(*kind).len(),
                    "{kind:?}"
                );
            }
        }
        let all = UsageRecordsExport(None).header().len();
        let rent = UsageRecordsExport(Some(UsageKind::Rent)).header().len();
        assert_eq!(rent, HEAD.len() + 5 + TAIL.len());
        assert_eq!(all, HEAD.len() + 5 + 4 + 3 + 8 + TAIL.len());
    }
}
