//! Cards (electricCard, juniorElectricCard) as an export kind: the list's
//! filter and reach (`store::filtered`), newest issued first by keyset on
//! (`issued_at`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::{BudgetPeriod, CardKind, CardStatus, HolderKind};
use super::store::{self, CardQuery, CardRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "charging_cards";

pub const HEADER: [&str; 13] = [
    "卡号",
    "卡类型",
    "所属组织",
    "绑定类型",
    "车牌号",
    "司机",
    "卡状态",
    "余额(元)",
    "预算周期",
    "预算金额(元)",
    "累计消费(元)",
    "开卡时间",
    "备注",
];

/// The job an `ExportChargingCards` request queues (the filter checked now).
pub fn job(filter: &pb::ListChargingCardsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    let junior = !filter.junior_of_org_id.trim().is_empty();
    Ok(NewJob {
        kind: KIND,
        name: if junior {
            "下级充电卡"
        } else {
            "充电卡"
        }
        .to_owned(),
        module: if junior {
            "juniorElectricCard"
        } else {
            "electricCard"
        },
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "cardNos": filter.card_nos,
            "plateNumbers": filter.plate_numbers,
            "orgIds": filter.org_ids,
            "accountId": filter.account_id,
            "driverName": filter.driver_name,
            "kinds": filter.kinds,
            "holderKinds": filter.holder_kinds,
            "statuses": filter.statuses,
            "issuedTime": exports::range_json(filter.issued_time.as_ref()),
            "juniorOfOrgId": filter.junior_of_org_id,
        }),
    })
}

/// Cards as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct CardsExport;

impl ListExport for CardsExport {
    type Scope = (Actor, CardQuery);
    type Row = CardRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query = convert::query(&exports::filter::<pb::ListChargingCardsRequest>(job)?)?;
        Ok((actor, convert::expand(conn, query).await?))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(store::totals(conn, actor, query).await?.0)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<CardRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &CardRow) -> Cursor {
        Cursor {
            at: row.issued_at,
            id: row.id,
        }
    }

    fn cells(&self, row: CardRow) -> Vec<Cell> {
        vec![
            Cell::from(row.card_no),
            label::<CardKind>(row.kind, CardKind::label),
            text(row.org_name),
            label::<HolderKind>(row.holder_kind, HolderKind::label),
            text(row.plate_number),
            text(row.driver_name),
            label::<CardStatus>(row.status, CardStatus::label),
            money(row.balance_fen),
            label::<BudgetPeriod>(row.budget_period, BudgetPeriod::label),
            money(row.budget_limit_fen),
            money(row.total_consumed_fen),
            moment(Some(row.issued_at)),
            text(row.remark),
        ]
    }
}
