//! Sessions (consumeRecord) as an export kind: the list's filter and reach
//! (`store::filtered`), newest first by keyset on (`start_time`, `id`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;

use super::convert;
use super::domain::{SessionStatus, StartMethod};
use super::store::{self, SessionQuery, SessionRow};
use crate::context::Actor;
use crate::exports::{self, ListExport, NewJob, label, moment, money, range_json, text};
use crate::filters;
use crate::stations::domain::ConnectorKind;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "charging_sessions";

pub const HEADER: [&str; 27] = [
    "订单编号",
    "车牌号",
    "充电卡号",
    "所属组织",
    "司机",
    "充电站",
    "城市",
    "桩号",
    "充电方式",
    "启动方式",
    "开始时间",
    "结束时间",
    "充电时长(分钟)",
    "充电量(kWh)",
    "电费(元)",
    "服务费(元)",
    "停车费(元)",
    "时长费(元)",
    "启动费(元)",
    "预约费(元)",
    "优惠(元)",
    "实付金额(元)",
    "未收回(元)",
    "开始SOC(%)",
    "结束SOC(%)",
    "状态",
    "结束原因",
];

/// The job an `ExportChargingSessions` request queues (the filter checked now).
pub fn job(filter: &pb::ListChargingSessionsRequest) -> Result<NewJob, ServiceError> {
    convert::query(filter)?;
    let filters_json = serde_json::json!({
        "plateNumbers": filter.plate_numbers,
        "cardNos": filter.card_nos,
        "orgIds": filter.org_ids,
        "driverId": filter.driver_id,
        "stationId": filter.station_id,
        "sessionNo": filter.session_no,
        "statuses": filter.statuses,
        "startMethods": filter.start_methods,
        "startTime": range_json(filter.start_time.as_ref()),
        "statementMonth": filter.statement_month.as_ref().map(|m| format!("{:04}-{:02}", m.year, m.month)),
    });
    Ok(NewJob {
        kind: KIND,
        name: "充电消费记录".to_owned(),
        module: "consumeRecord",
        filter: prost::Message::encode_to_vec(filter),
        filters_json,
    })
}

/// The session list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct SessionsExport;

/// kWh with three decimals from Wh.
fn kwh(wh: i64) -> Cell {
    Cell::Text(
        fleetdesk_ocpi::Decimal::from_scaled(wh, 3)
            .as_str()
            .to_owned(),
    )
}

fn soc(value: Option<i16>) -> Cell {
    value.map_or(Cell::Empty, |v| Cell::from(i64::from(v)))
}

fn cells(row: SessionRow) -> Vec<Cell> {
    let minutes = row
        .end_time
        .map(|end| (end - row.start_time).num_minutes().max(0));
    vec![
        Cell::from(row.session_no),
        text(row.plate_number),
        Cell::from(row.card_no),
        text(row.org_name),
        text(row.driver_name),
        text(row.station_name),
        text(row.city_name),
        text(row.pile_no),
        row.connector_type.map_or(Cell::Empty, |t| {
            label::<ConnectorKind>(t, ConnectorKind::label)
        }),
        label::<StartMethod>(row.start_method, StartMethod::label),
        moment(Some(row.start_time)),
        moment(row.end_time),
        minutes.map_or(Cell::Empty, Cell::from),
        kwh(row.energy_wh),
        money(row.electricity_fen),
        money(row.service_fee_fen),
        money(row.parking_fee_fen),
        money(row.time_fee_fen),
        money(row.fixed_fee_fen),
        money(row.reservation_fee_fen),
        money(row.discount_fen),
        money(row.total_fen),
        money(row.uncollected_fen),
        soc(row.start_soc),
        soc(row.end_soc),
        label::<SessionStatus>(row.status, SessionStatus::label),
        text(row.stop_reason),
    ]
}

impl ListExport for SessionsExport {
    type Scope = (Actor, SessionQuery);
    type Row = SessionRow;
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
        let mut query = convert::query(&exports::filter::<pb::ListChargingSessionsRequest>(job)?)?;
        query.org_ids = filters::org_subtrees(conn, query.org_ids).await?;
        Ok((actor, query))
    }

    async fn count(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
    ) -> Result<i64, ServiceError> {
        Ok(store::totals(conn, actor, query).await?.session_count)
    }

    async fn page(
        &self,
        conn: &mut PgConnection,
        (actor, query): &Self::Scope,
        after: Option<Cursor>,
        limit: i64,
    ) -> Result<Vec<SessionRow>, ServiceError> {
        store::export_page(conn, actor, query, after, limit).await
    }

    fn key(row: &SessionRow) -> Cursor {
        Cursor {
            at: row.start_time,
            id: row.id,
        }
    }

    fn cells(&self, row: SessionRow) -> Vec<Cell> {
        cells(row)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use uuid::Uuid;

    use super::*;

    fn settled() -> SessionRow {
        let start_time = Utc.with_ymd_and_hms(2026, 11, 2, 1, 0, 0).unwrap();
        SessionRow {
            id: Uuid::from_u128(1),
            session_no: "S1".into(),
            org_id: Uuid::from_u128(2),
            org_name: "华东".into(),
            account_id: Uuid::from_u128(3),
            card_id: Uuid::from_u128(4),
            card_no: "AB12345678".into(),
            vehicle_id: None,
            plate_number: "沪A12345".into(),
            driver_id: None,
            driver_name: String::new(),
            station_id: None,
            station_name: String::new(),
            city_name: String::new(),
            pile_no: String::new(),
            connector_no: String::new(),
            connector_type: None,
            start_method: i16::from(StartMethod::CardSwipe),
            start_time,
            end_time: Some(start_time + chrono::Duration::minutes(45)),
            energy_wh: 20_000,
            electricity_fen: 1_000,
            service_fee_fen: 300,
            parking_fee_fen: 100,
            time_fee_fen: 200,
            fixed_fee_fen: 50,
            reservation_fee_fen: 25,
            discount_fen: 0,
            cost_fen: 1_675,
            cost_excl_vat_fen: 1_482,
            total_fen: 1_675,
            uncollected_fen: 0,
            refunded_fen: 0,
            held_fen: 2_000,
            start_soc: Some(20),
            end_soc: Some(80),
            status: i16::from(SessionStatus::Settled),
            stop_reason: String::new(),
            settle_time: None,
            statement_month: Some(202_611),
        }
    }

    #[test]
    fn each_part_of_the_cost_has_its_own_column() {
        let row = cells(settled());
        assert_eq!(row.len(), HEADER.len());
        let column = |title: &str| HEADER.iter().position(|h| *h == title).unwrap();
        assert_eq!(row[column("停车费(元)")], money(100));
        assert_eq!(row[column("时长费(元)")], money(200));
        assert_eq!(row[column("启动费(元)")], money(50));
        assert_eq!(row[column("预约费(元)")], money(25));
        assert_eq!(row[column("电费(元)")], money(1_000));
        assert_eq!(row[column("实付金额(元)")], money(1_675));
    }
}
