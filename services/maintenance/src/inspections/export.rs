//! Annual inspections (drivingLicense) as an export kind: the list's
//! filter and reach, judged on the day the job runs, in the list's order
//! (soonest due first), walked by (due date, id) keyset pages from the
//! list's indexes.

use chrono::{NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::PageKey;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::convert::filter;
use super::domain::{Class, Outcome, Standing};
use super::store::{self, InspectionQuery, InspectionRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, day, text};
use crate::odometer::{beijing_day, day_start};
use fleetdesk_assets::vehicles;
use fleetdesk_kit::export::scope::money;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "annual_inspections";

pub const HEADER: [&str; 12] = [
    "车牌号",
    "车架号",
    "所属组织",
    "检验类别",
    "注册日期",
    "状态",
    "到期日期",
    "剩余天数",
    "上次检验日期",
    "上次检验结果",
    "检验机构",
    "检验费用(元)",
];

/// The job an `ExportAnnualInspections` request queues (the filter checked now).
pub fn job(f: &pb::ListAnnualInspectionsRequest) -> Result<NewJob, ServiceError> {
    filter(f, beijing_day(Utc::now()))?;
    let filters_json = serde_json::json!({
        "plateNumbers": f.plate_numbers,
        "vins": f.vins,
        "orgIds": f.org_ids,
        "statuses": f.statuses,
        "expireTime": exports::range_json(f.expire_time.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "年检管理".to_owned(),
        module: "drivingLicense",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// Where an export page starts: the last row's due date (`-` when unknown) and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DueKey {
    pub due: Option<NaiveDate>,
    pub id: Uuid,
}

impl PageKey for DueKey {
    fn encode(&self) -> String {
        let due = self.due.map_or_else(|| "-".to_owned(), |d| d.to_string());
        format!("{due},{}", self.id)
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        let bad = || ServiceError::invalid("after", "导出位置无效");
        let (due, id) = text.split_once(',').ok_or_else(bad)?;
        let due = match due {
            "-" => None,
            d => Some(d.parse().map_err(|_| bad())?),
        };
        Ok(DueKey {
            due,
            id: Uuid::parse_str(id).map_err(|_| bad())?,
        })
    }
}

/// The inspection list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct InspectionsExport;

impl ListExport for InspectionsExport {
    type Scope = (Actor, InspectionQuery);
    type Row = InspectionRow;
    type Key = DueKey;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let request = exports::filter::<pb::ListAnnualInspectionsRequest>(job)?;
        let mut query = filter(&request, beijing_day(Utc::now()))?;
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
        after: Option<DueKey>,
        limit: i64,
    ) -> Result<Vec<InspectionRow>, ServiceError> {
        let after = after.map(|k| (k.due, k.id));
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &InspectionRow) -> DueKey {
        DueKey {
            due: row.due_date,
            id: row.id,
        }
    }

    fn cells(&self, row: InspectionRow) -> Vec<Cell> {
        let today = beijing_day(Utc::now());
        let class = Class::try_from(row.inspection_class).map_or("", Class::label);
        let result = row
            .last_result
            .and_then(|r| Outcome::try_from(r).ok())
            .map_or("", Outcome::label);
        let remaining = row.due_date.map_or(Cell::Empty, |d| {
            Cell::Text((d - today).num_days().to_string())
        });
        vec![
            text(row.plate_number),
            text(row.vin),
            text(row.org_name.unwrap_or_default()),
            text(class),
            day(row.register_time),
            text(Standing::of(row.due_date, today).label()),
            day(row.due_date.map(day_start)),
            remaining,
            day(row.last_inspected_at),
            text(result),
            text(row.last_station),
            money(row.last_inspected_at.map(|_| row.last_cost_fen)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_round_trip_with_and_without_a_due_date() {
        for due in [NaiveDate::from_ymd_opt(2026, 12, 1), None] {
            let key = DueKey {
                due,
                id: Uuid::from_u128(7),
            };
            assert_eq!(DueKey::decode(&key.encode()).unwrap(), key);
        }
        assert!(DueKey::decode("2026-13-01,x").is_err());
    }
}
