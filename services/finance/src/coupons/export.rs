//! The coupon list (myCoupons) as an export kind: the list's filter over
//! the whole enterprise (coupons have no reach), newest granted first,
//! walked by (issued time, id) keyset pages of its index; expiry judged
//! when the job runs, as the list judges it when read. The pay page's
//! "usable for" filters are not a list of the page and are refused.

use chrono::Utc;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::scope::day;
use fleetdesk_kit::export::{Cell, JobScope};
use fleetdesk_kit::grpc;
use fleetdesk_kit::list::Cursor;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::PERMISSION;
use super::convert::query;
use super::domain::{self, CouponKind, CouponStatus};
use super::store::{self, CouponQuery, CouponRow};
use crate::bills::domain::BillKind;
use crate::context::{Actor, Context};
use crate::exports::{self, ListExport, NewJob, moment, money, text};

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "coupons";

pub const HEADER: [&str; 14] = [
    "券号",
    "优惠券名称",
    "优惠类型",
    "面额(元)",
    "折扣",
    "最高优惠(元)",
    "最低消费(元)",
    "适用账单",
    "生效日期",
    "失效日期",
    "状态",
    "抵扣金额(元)",
    "使用时间",
    "活动",
];

/// ExportCoupons: queues the export of the list `filter` for the caller.
pub async fn start(
    ctx: &Context,
    req: Request<pb::ExportCouponsRequest>,
) -> Result<pb::ExportCouponsResponse, ServiceError> {
    grpc::require_permission(&req, PERMISSION)?;
    let (actor, mut tx) = Actor::begin_member(&ctx.pool, &req).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportCouponsResponse { job: Some(job) })
}

/// The list's query of `f`; its "usable for" filters are refused (4000).
fn checked(f: &pb::ListCouponsRequest) -> Result<CouponQuery, ServiceError> {
    let (query, bill_ids, order_kind) = query(f)?;
    if !bill_ids.is_empty() || order_kind.is_some() {
        return Err(ServiceError::invalid(
            "usableForBillIds",
            "导出不支持按可用账单或订单类型筛选",
        ));
    }
    Ok(query)
}

/// The job an export of the list `f` queues (the filter checked now).
pub fn job(f: &pb::ListCouponsRequest) -> Result<NewJob, ServiceError> {
    checked(f)?;
    let filters_json = serde_json::json!({
        "statuses": f.statuses,
        "kinds": f.kinds,
        "validUntil": exports::range_json(f.valid_until.as_ref()),
    });
    Ok(NewJob {
        kind: KIND,
        name: "我的优惠券".to_owned(),
        module: "myCoupons",
        filter: prost::Message::encode_to_vec(f),
        filters_json,
    })
}

/// The coupon list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct CouponsExport;

impl ListExport for CouponsExport {
    type Scope = (Actor, CouponQuery);
    type Row = CouponRow;
    type Key = Cursor;

    fn header(&self) -> Vec<String> {
        exports::header(&HEADER)
    }

    async fn scope(
        &self,
        _conn: &mut PgConnection,
        job: &JobScope,
    ) -> Result<Self::Scope, ServiceError> {
        let actor = exports::actor(job)?;
        let query = checked(&exports::filter::<pb::ListCouponsRequest>(job)?)?;
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
    ) -> Result<Vec<CouponRow>, ServiceError> {
        store::after(conn, actor, query, after, limit).await
    }

    fn key(row: &CouponRow) -> Cursor {
        Cursor {
            at: row.issued_time,
            id: row.id,
        }
    }

    fn cells(&self, c: CouponRow) -> Vec<Cell> {
        let kind = CouponKind::try_from(c.kind).ok();
        let status = CouponStatus::try_from(c.status)
            .ok()
            .map(|s| domain::seen(s, c.valid_until, Utc::now()));
        let kinds: Vec<&str> = c
            .applicable_bill_kinds
            .iter()
            .filter_map(|k| BillKind::try_from(*k).ok().map(BillKind::label))
            .collect();
        let (face, percent, cap) = match kind {
            Some(CouponKind::AmountOff) => (money(c.face_value_fen), Cell::Empty, Cell::Empty),
            Some(CouponKind::PercentOff) => (
                Cell::Empty,
                Cell::Text(percent_off(c.percent_off_bp)),
                if c.max_discount_fen > 0 {
                    money(c.max_discount_fen)
                } else {
                    Cell::Empty
                },
            ),
            None => (Cell::Empty, Cell::Empty, Cell::Empty),
        };
        vec![
            text(c.coupon_no),
            text(c.name),
            Cell::Label(kind.map_or("", kind_label)),
            face,
            percent,
            cap,
            money(c.min_spend_fen),
            text(if kinds.is_empty() {
                "全部账单".to_owned()
            } else {
                kinds.join("、")
            }),
            day(Some(c.valid_from)),
            day(Some(c.valid_until)),
            Cell::Label(status.map_or("", status_label)),
            if c.used_time.is_some() {
                money(c.used_discount_fen)
            } else {
                Cell::Empty
            },
            moment(c.used_time),
            text(c.campaign),
        ]
    }
}

/// Basis points taken off as a percentage: 1000 → 减10%, 1250 → 减12.5%.
fn percent_off(bp: i32) -> String {
    let (whole, hundredths) = (bp / 100, bp % 100);
    match hundredths {
        0 => format!("减{whole}%"),
        h if h % 10 == 0 => format!("减{whole}.{}%", h / 10),
        h => format!("减{whole}.{h:02}%"),
    }
}

fn kind_label(kind: CouponKind) -> &'static str {
    match kind {
        CouponKind::AmountOff => "满减券",
        CouponKind::PercentOff => "折扣券",
    }
}

/// A coupon status as the list shows it.
fn status_label(status: CouponStatus) -> &'static str {
    match status {
        CouponStatus::Available => "可使用",
        CouponStatus::Locked => "使用中",
        CouponStatus::Used => "已使用",
        CouponStatus::Expired => "已过期",
        CouponStatus::Voided => "已作废",
    }
}

#[cfg(test)]
mod tests {
    use super::percent_off;

    #[test]
    fn a_share_off_reads_as_a_percentage_without_float() {
        assert_eq!(percent_off(1000), "减10%");
        assert_eq!(percent_off(1250), "减12.5%");
        assert_eq!(percent_off(1205), "减12.05%");
        assert_eq!(percent_off(5), "减0.05%");
    }
}
