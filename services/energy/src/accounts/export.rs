//! The account tree (accountManagement) as an export kind: the list's
//! filter and reach, in tree order. The tree is bounded by the organisation
//! tree, so it is one page: the first page is the whole tree and any page
//! after it is empty (the key a page ends with is never read).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::domain::{AccountKind, AccountStatus};
use super::store::{self, AccountQuery, AccountRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "charging_accounts";

pub const HEADER: [&str; 9] = [
    "组织名称",
    "账户类型",
    "层级",
    "账户状态",
    "可用余额(元)",
    "名下卡余额(元)",
    "充电卡数",
    "累计收到(元)",
    "余额预警值(元)",
];

/// The job an `ExportChargingAccounts` request queues.
pub fn job(filter: &pb::ListChargingAccountsRequest) -> NewJob {
    NewJob {
        kind: KIND,
        name: "充电账户".to_owned(),
        module: "accountManagement",
        filter: prost::Message::encode_to_vec(filter),
        filters_json: serde_json::json!({
            "rootAccountId": filter.root_account_id,
            "directChildrenOnly": filter.direct_children_only,
            "orgIds": filter.org_ids,
            "statuses": filter.statuses,
            "lowBalanceOnly": filter.low_balance_only,
        }),
    }
}

/// The account tree as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct AccountsExport;

impl ListExport for AccountsExport {
    type Scope = (Actor, AccountQuery);
    type Row = AccountRow;
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
        let filter = exports::filter::<pb::ListChargingAccountsRequest>(job)?;
        let query = super::handlers::query(conn, &actor, &filter).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(store::list(conn, actor, query).await?.len() as i64)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        _limit: i64,
    ) -> Result<Vec<AccountRow>, ServiceError> {
        match after {
            Some(_) => Ok(Vec::new()),
            None => store::list(conn, actor, query).await,
        }
    }

    fn key(row: &AccountRow) -> Cursor {
        Cursor {
            at: row.created_at,
            id: row.id,
        }
    }

    fn cells(&self, row: AccountRow) -> Vec<Cell> {
        let level = row.level();
        vec![
            text(row.org_name),
            label::<AccountKind>(row.kind, AccountKind::label),
            Cell::from(i64::from(level)),
            label::<AccountStatus>(row.status, AccountStatus::label),
            money(row.balance_fen),
            money(row.card_balance_fen),
            Cell::from(row.card_count),
            money(row.total_received_fen),
            money(row.low_balance_threshold_fen),
        ]
    }
}
