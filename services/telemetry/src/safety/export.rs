//! A safety ranking as an export kind: the ranking's filter, dimension and
//! order, paged by rank (a ranking has no time to key on; ranks are dense
//! and stable while the job runs, as the rows are the past's).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::PageKey;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::handlers::query;
use super::store::{self, Dimension, RankRow, SafetyQuery};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "safety_ranking";

const HEADER: [&str; 8] = [
    "排名",
    "名称",
    "所属组织",
    "里程(km)",
    "报警次数",
    "百公里报警",
    "安全评分",
    "车辆数",
];

fn dimension_name(dimension: Dimension) -> &'static str {
    match dimension {
        Dimension::Vehicle => "车辆",
        Dimension::Driver => "司机",
        Dimension::Org => "组织",
    }
}

/// The job of an `ExportSafetyRanking` request (its filter checked now).
pub fn job(request: &pb::ExportSafetyRankingRequest) -> Result<NewJob, ServiceError> {
    let pb::ExportSafetyRankingRequest {
        filter,
        dimension,
        best_first,
    } = request;
    let range = convert::day_range(filter.as_ref().and_then(|f| f.report_date.as_ref()))?;
    let dimension = convert::dimension(*dimension)?;
    Ok(NewJob {
        kind: KIND,
        name: format!("安全报表（{}排名）", dimension_name(dimension)),
        module: "carSafetyReport",
        filter: prost::Message::encode_to_vec(request),
        filters_json: serde_json::json!({
            "from": range.from.to_string(),
            "to": range.to.to_string(),
            "orgIds": filter.as_ref().map(|f| f.org_ids.clone()).unwrap_or_default(),
            "dimension": dimension_name(dimension),
            "bestFirst": best_first,
        }),
    })
}

/// A row's rank: where the page after it starts.
#[derive(Debug, Clone, Copy)]
pub struct Rank(i64);

impl PageKey for Rank {
    fn encode(&self) -> String {
        self.0.to_string()
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        text.parse()
            .map(Rank)
            .map_err(|_| ServiceError::invalid("after", "分页位置无效"))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct SafetyRankingExport;

impl ListExport for SafetyRankingExport {
    type Scope = (Actor, SafetyQuery, Dimension, bool);
    type Row = RankRow;
    type Key = Rank;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let request: pb::ExportSafetyRankingRequest = exports::filter(job)?;
        let q = query(conn, &actor, request.filter.as_ref()).await?;
        let dimension = convert::dimension(request.dimension)?;
        Ok((actor, q, dimension, request.best_first))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, q, dimension, best_first): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        let first = store::ranking(conn, actor, q, *dimension, *best_first, 0, 1).await?;
        Ok(first.first().map_or(0, |row| row.total))
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, q, dimension, best_first): &Self::Scope,
        after: Option<Rank>,
        limit: i64,
    ) -> Result<Vec<RankRow>, ServiceError> {
        let offset = after.map_or(0, |r| r.0);
        store::ranking(conn, actor, q, *dimension, *best_first, offset, limit).await
    }

    fn key(row: &RankRow) -> Rank {
        Rank(row.rank)
    }

    fn cells(&self, row: RankRow) -> Vec<Cell> {
        let ranked = convert::rank_row(row, &[]);
        vec![
            Cell::from(i64::from(ranked.rank)),
            text(ranked.name),
            text(ranked.org_name),
            Cell::from((ranked.mileage_m as f64 / 100.0).round() / 10.0),
            Cell::from(ranked.alarm_count),
            Cell::from(ranked.alarms_per_100km),
            Cell::from(ranked.score),
            Cell::from(i64::from(ranked.vehicle_count)),
        ]
    }
}
