//! Demo data of finance's coupons (myCoupons): what the operator granted
//! demo enterprise A — an any-bill amount-off coupon, a capped percent-off
//! one for charging, one with a minimum spend for rent, one ending in three
//! days, one not valid yet, one long expired (it reads EXPIRED: expiry is
//! judged at read time) and one the operator withdrew (VOIDED). Granted
//! through the service's own store (one coupon per campaign and number).
//!
//! Deterministic ids and validity relative to `now`; idempotent: a grant
//! made before is kept as it is (its key already taken), all in one
//! transaction.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_finance::Actor;
use fleetdesk_finance::bills::domain::BillKind;
use fleetdesk_finance::coupons::domain::{CouponKind, Terms};
use fleetdesk_finance::coupons::store;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::PgPool;

const CAMPAIGN: &str = "演示-运营赠券";

/// One demo coupon: its number, terms and whether the operator withdrew it.
struct Demo {
    no: &'static str,
    terms: Terms,
    voided: bool,
}

fn demos(now: DateTime<Utc>) -> Vec<Demo> {
    let terms = |name: &str, kind, from_days: i64, until_days: i64| Terms {
        name: name.to_owned(),
        kind,
        face_value_fen: 0,
        percent_off_bp: 0,
        max_discount_fen: 0,
        min_spend_fen: 0,
        bill_kinds: Vec::new(),
        order_kinds: Vec::new(),
        valid_from: now + Duration::days(from_days),
        valid_until: now + Duration::days(until_days),
    };
    let demo = |no, terms, voided| Demo { no, terms, voided };
    vec![
        demo(
            "YHQ-0001",
            Terms {
                face_value_fen: 20_000,
                ..terms("新年账单立减200元", CouponKind::AmountOff, -10, 80)
            },
            false,
        ),
        demo(
            "YHQ-0002",
            Terms {
                percent_off_bp: 1_000,
                max_discount_fen: 50_000,
                bill_kinds: vec![BillKind::Charging],
                ..terms("充电账单9折(最高减500元)", CouponKind::PercentOff, -5, 55)
            },
            false,
        ),
        demo(
            "YHQ-0003",
            Terms {
                face_value_fen: 100_000,
                min_spend_fen: 1_000_000,
                bill_kinds: vec![BillKind::Rent, BillKind::RentToOwnInstalment],
                ..terms("租金满1万减1000元", CouponKind::AmountOff, -20, 40)
            },
            false,
        ),
        demo(
            "YHQ-0004",
            Terms {
                face_value_fen: 5_000,
                ..terms("限时立减50元", CouponKind::AmountOff, -27, 3)
            },
            false,
        ),
        demo(
            "YHQ-0005",
            Terms {
                face_value_fen: 30_000,
                ..terms("下月维修立减300元", CouponKind::AmountOff, 7, 60)
            },
            false,
        ),
        demo(
            "YHQ-0006",
            Terms {
                face_value_fen: 10_000,
                ..terms("国庆立减100元", CouponKind::AmountOff, -70, -40)
            },
            false,
        ),
        demo(
            "YHQ-0007",
            Terms {
                percent_off_bp: 500,
                ..terms("服务费95折", CouponKind::PercentOff, -30, 30)
            },
            true,
        ),
    ]
}

/// Grants enterprise A's demo coupons in the finance schema; how many
/// were new.
pub async fn run(finance: &PgPool, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let enterprise = demo_id("enterprise:a");
    let operator = Actor {
        enterprise_id: enterprise,
        user_id: None,
        name: "运营".to_owned(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    };
    let mut tx = db::begin_service(finance).await?;
    db::enter_tenant(&mut tx, enterprise).await?;
    let mut granted = 0;
    for Demo { no, terms, voided } in demos(now) {
        let id = demo_id(&format!("coupon:{no}"));
        if !store::insert(&mut tx, &operator, id, CAMPAIGN, no, &terms).await? {
            continue;
        }
        granted += 1;
        if voided {
            sqlx::query("update coupon set status = 5 where id = $1 and status = 1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
    }
    tx.commit().await?;
    Ok(granted)
}
