//! Coupons over the real gRPC server and the functions payments call in
//! their transaction: a grant once per (campaign, coupon_no), the list's
//! filters (status with expiry judged at read time, kind, validity, usable
//! for bills or an order kind), one use under ten racing payments, hold →
//! settle, release, and tenant isolation.

use crate::support;

use chrono::{Duration, Utc};
use fleetdesk_finance::Actor;
use fleetdesk_finance::bills::store::BillRow;
use fleetdesk_finance::coupons::{self, Discount};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::reach::{ReachClaim, ResolvedReach};
use fleetdesk_kit::{ErrorCode, db, grpc};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgPool;
use sqlx_postgres::PgPoolOptions;
use support::{Stack, Tenant, err, line, month, new_bill, stack};
use uuid::Uuid;

const CAMPAIGN: &str = "2026-双十二";

/// The end of the test coupons' validity: one instant, so a repeated grant
/// asks for the same terms.
static UNTIL: std::sync::LazyLock<chrono::DateTime<Utc>> =
    std::sync::LazyLock::new(|| Utc::now() + Duration::days(30));

fn amount_off(no: &str, face_fen: i64) -> pb::CouponGrant {
    pb::CouponGrant {
        coupon_no: no.into(),
        name: format!("满减券 {no}"),
        kind: pb::CouponKind::AmountOff as i32,
        face_value_fen: face_fen,
        percent_off_bp: 0,
        max_discount_fen: 0,
        min_spend_fen: 0,
        applicable_bill_kinds: Vec::new(),
        applicable_order_kinds: Vec::new(),
        valid_from: None,
        valid_until: Some(timestamp(*UNTIL)),
    }
}

fn percent_off(no: &str, bp: i32, cap_fen: i64) -> pb::CouponGrant {
    pb::CouponGrant {
        kind: pb::CouponKind::PercentOff as i32,
        face_value_fen: 0,
        percent_off_bp: bp,
        max_discount_fen: cap_fen,
        ..amount_off(no, 0)
    }
}

async fn grant(
    s: &Stack,
    t: &Tenant,
    coupons: Vec<pb::CouponGrant>,
) -> Result<Vec<pb::Coupon>, tonic::Status> {
    s.client
        .clone()
        .grant_coupons(s.service(pb::GrantCouponsRequest {
            enterprise_id: t.enterprise.to_string(),
            campaign: CAMPAIGN.into(),
            coupons,
        }))
        .await
        .map(|r| r.into_inner().coupons)
}

/// A user call of `t` holding only `permissions`.
fn user<T>(s: &Stack, t: &Tenant, permissions: &[&str], message: T) -> tonic::Request<T> {
    let claims = Claims {
        iss: "gateway".into(),
        sub: format!("user:{}", t.user),
        ent: Some(t.enterprise.to_string()),
        acc: None,
        perms: permissions.iter().map(|p| (*p).to_owned()).collect(),
        reach: Some(ReachClaim {
            all: true,
            ..ReachClaim::default()
        }),
        flags: Vec::new(),
        iat: 0,
        exp: 0,
    };
    grpc::outgoing(message, &s.signer, &claims)
}

async fn list(
    s: &Stack,
    t: &Tenant,
    mut filter: pb::ListCouponsRequest,
) -> Result<Vec<String>, tonic::Status> {
    filter.page = Some(common::PageRequest { page: 1, size: 100 });
    let answer = s
        .client
        .clone()
        .list_coupons(user(s, t, &[coupons::PERMISSION], filter))
        .await?
        .into_inner();
    assert_eq!(answer.page.unwrap().total, answer.coupons.len() as i64);
    let mut nos: Vec<String> = answer.coupons.into_iter().map(|c| c.coupon_no).collect();
    nos.sort();
    Ok(nos)
}

fn statuses(statuses: &[pb::CouponStatus]) -> pb::ListCouponsRequest {
    pb::ListCouponsRequest {
        statuses: statuses.iter().map(|s| *s as i32).collect(),
        ..Default::default()
    }
}

/// A pool acting as the service does (row-level security applies), with
/// room for ten transactions at once.
async fn app_pool(s: &Stack) -> PgPool {
    PgPoolOptions::new()
        .max_connections(12)
        .after_connect(|conn, _| {
            Box::pin(async move {
                sqlx::query(&format!("set role {}", db::APP_ROLE))
                    .execute(conn)
                    .await?;
                Ok(())
            })
        })
        .connect_with((*s.owner.connect_options()).clone())
        .await
        .unwrap()
}

/// The payments service's caller for `t`'s enterprise.
fn system(t: &Tenant) -> Actor {
    Actor {
        enterprise_id: t.enterprise,
        user_id: None,
        name: "系统".into(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    }
}

/// Raises a rent bill of `amount_fen` for `t`.
async fn rent_bill(s: &Stack, t: &Tenant, source: &str, amount_fen: i64) -> pb::Bill {
    s.create_bill(new_bill(
        t,
        t.shanghai,
        pb::BillKind::Rent,
        month(2026, 11),
        source,
        vec![line("11月租金", "沪A10001", amount_fen)],
    ))
    .await
    .unwrap()
}

/// `t`'s bill rows `ids`, as payments read them.
async fn rows(conn: &mut sqlx_postgres::PgConnection, t: &Tenant, ids: &[&str]) -> Vec<BillRow> {
    let ids: Vec<Uuid> = ids.iter().map(|i| Uuid::parse_str(i).unwrap()).collect();
    fleetdesk_finance::bills::store::some(conn, &system(t), &ids, false)
        .await
        .unwrap()
}

fn id(c: &pb::Coupon) -> Uuid {
    Uuid::parse_str(&c.id).unwrap()
}

#[tokio::test]
async fn a_grant_is_made_once_per_campaign_and_coupon_number() {
    let s = stack().await;
    let a = &s.a;
    let first = grant(
        &s,
        a,
        vec![amount_off("C1", 5_000), percent_off("C2", 1_000, 2_000)],
    )
    .await
    .unwrap();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].status, pb::CouponStatus::Available as i32);
    assert_eq!(first[1].percent_off_bp, 1_000);

    // The same grant again (start unset: the first's holds) answers the first coupons.
    let again = grant(
        &s,
        a,
        vec![amount_off("C1", 5_000), percent_off("C2", 1_000, 2_000)],
    )
    .await
    .unwrap();
    assert_eq!(again, first);
    assert_eq!(list(&s, a, Default::default()).await.unwrap(), ["C1", "C2"]);

    // The same number with other terms is refused, and nothing of that call is kept.
    let e = err(
        &grant(&s, a, vec![amount_off("C3", 100), amount_off("C1", 6_000)])
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.fields[0].field, "coupons[1].couponNo");
    assert_eq!(list(&s, a, Default::default()).await.unwrap(), ["C1", "C2"]);

    // Another tenant may hold the same number of the same campaign.
    assert_eq!(
        grant(&s, &s.b, vec![amount_off("C1", 1)])
            .await
            .unwrap()
            .len(),
        1
    );

    // A user cannot grant; a grant without a value is refused naming the field.
    let by_user = s
        .client
        .clone()
        .grant_coupons(s.req(
            a,
            pb::GrantCouponsRequest {
                enterprise_id: a.enterprise.to_string(),
                campaign: CAMPAIGN.into(),
                coupons: vec![amount_off("C9", 100)],
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&by_user).code, ErrorCode::Forbidden);
    let e = err(&grant(&s, a, vec![amount_off("C9", 0)]).await.unwrap_err());
    assert_eq!(e.fields[0].field, "coupons[0].faceValueFen");
    let none = err(&grant(&s, a, vec![]).await.unwrap_err());
    assert_eq!(none.fields[0].field, "coupons");
}

#[tokio::test]
async fn the_list_filters_by_status_kind_validity_and_what_a_coupon_can_pay() {
    let s = stack().await;
    let a = &s.a;
    let now = Utc::now();
    let charging_only = pb::CouponGrant {
        applicable_bill_kinds: vec![pb::BillKind::Charging as i32],
        ..amount_off("CHARGE", 1_000)
    };
    let big_spend = pb::CouponGrant {
        min_spend_fen: 1_000_000,
        ..amount_off("BIG", 50_000)
    };
    let expired = pb::CouponGrant {
        valid_from: Some(timestamp(now - Duration::days(10))),
        valid_until: Some(timestamp(now - Duration::days(1))),
        ..amount_off("OLD", 1_000)
    };
    let later = pb::CouponGrant {
        valid_from: Some(timestamp(now + Duration::days(5))),
        valid_until: Some(timestamp(now + Duration::days(60))),
        ..amount_off("LATER", 1_000)
    };
    let top_up = pb::CouponGrant {
        applicable_bill_kinds: vec![pb::BillKind::Order as i32],
        applicable_order_kinds: vec![pb::OrderKind::ChargingTopUp as i32],
        ..percent_off("TOPUP", 500, 0)
    };
    grant(
        &s,
        a,
        vec![
            amount_off("ANY", 2_000),
            charging_only,
            big_spend,
            expired,
            later,
            top_up,
        ],
    )
    .await
    .unwrap();

    // Expiry is judged at read time: the lapsed coupon reads and filters as EXPIRED.
    assert_eq!(
        list(&s, a, statuses(&[pb::CouponStatus::Expired]))
            .await
            .unwrap(),
        ["OLD"]
    );
    assert_eq!(
        list(&s, a, statuses(&[pb::CouponStatus::Available]))
            .await
            .unwrap(),
        ["ANY", "BIG", "CHARGE", "LATER", "TOPUP"]
    );
    let percent = pb::ListCouponsRequest {
        kinds: vec![pb::CouponKind::PercentOff as i32],
        ..Default::default()
    };
    assert_eq!(list(&s, a, percent).await.unwrap(), ["TOPUP"]);
    let ending_soon = pb::ListCouponsRequest {
        valid_until: Some(common::TimeRange {
            start: Some(timestamp(now)),
            end: Some(timestamp(now + Duration::days(31))),
        }),
        ..Default::default()
    };
    assert_eq!(
        list(&s, a, ending_soon).await.unwrap(),
        ["ANY", "BIG", "CHARGE", "TOPUP"]
    );

    // Usable now for a rent bill of 3,000.00: not the charging-only, the
    // big-spend, the lapsed, the not-yet-valid or the top-up coupon.
    let bill = rent_bill(&s, a, "rent-1", 300_000).await;
    let for_bill = pb::ListCouponsRequest {
        usable_for_bill_ids: vec![bill.id.clone()],
        ..Default::default()
    };
    assert_eq!(list(&s, a, for_bill).await.unwrap(), ["ANY"]);
    // The list agrees with what payments are told.
    let pool = app_pool(&s).await;
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    let bills = rows(&mut tx, a, &[&bill.id]).await;
    let coupons_of_a = s
        .client
        .clone()
        .list_coupons(user(&s, a, &[coupons::PERMISSION], Default::default()))
        .await
        .unwrap()
        .into_inner()
        .coupons;
    for c in &coupons_of_a {
        let priced = coupons::discount(&mut tx, &system(a), id(c), &bills, 300_000).await;
        assert_eq!(priced.is_ok(), c.coupon_no == "ANY", "{}", c.coupon_no);
    }
    drop(tx);

    // Usable for a charging top-up order (no amount yet, so no minimum
    // spend judged): the any-kind coupons and the top-up one, not the
    // charging-only one.
    let for_top_up = pb::ListCouponsRequest {
        usable_for_order_kind: pb::OrderKind::ChargingTopUp as i32,
        ..Default::default()
    };
    assert_eq!(
        list(&s, a, for_top_up).await.unwrap(),
        ["ANY", "BIG", "TOPUP"]
    );

    // The pay page may ask under its own permission; a caller with neither may not.
    let pay = s
        .client
        .clone()
        .list_coupons(user(&s, a, &[coupons::PAY_PERMISSION], Default::default()))
        .await
        .unwrap();
    assert_eq!(pay.into_inner().coupons.len(), 6);
    let neither = s
        .client
        .clone()
        .list_coupons(user(&s, a, &["bill:biz:pageInfo"], Default::default()))
        .await
        .unwrap_err();
    assert_eq!(err(&neither).code, ErrorCode::Forbidden);
}

#[tokio::test]
async fn ten_payments_racing_for_one_coupon_use_it_once() {
    let s = stack().await;
    let a = s.a.clone();
    let coupon = id(&grant(&s, &a, vec![amount_off("ONCE", 5_000)])
        .await
        .unwrap()[0]);
    let bill = rent_bill(&s, &a, "rent-race", 100_000).await;
    let pool = app_pool(&s).await;
    // Each payer holds its transaction open a while after taking the
    // coupon, so the ten overlap; a payer that fails panics its task.
    let payers: Vec<_> = (0..10)
        .map(|_| {
            let (pool, a, bill) = (pool.clone(), a.clone(), bill.id.clone());
            tokio::spawn(async move {
                let payment = Uuid::new_v4();
                let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
                let bills = rows(&mut tx, &a, &[&bill]).await;
                // A payer starting after the winner committed is refused
                // already when pricing; the others when taking the coupon.
                let priced =
                    coupons::discount(&mut tx, &system(&a), coupon, &bills, 100_000).await?;
                assert_eq!(priced.discount_fen, 5_000);
                let used = coupons::consume(&mut tx, &system(&a), &priced, payment).await;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                tx.commit().await.unwrap();
                used.map(|()| payment)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for payer in payers {
        match payer.await.unwrap() {
            Ok(payment) => winners.push(payment),
            Err(e) => assert_eq!(e.code, ErrorCode::Conflict, "{e:?}"),
        }
    }
    assert_eq!(winners.len(), 1);
    let used = list_one(&s, &a).await;
    assert_eq!(used.status, pb::CouponStatus::Used as i32);
    assert_eq!(used.used_payment_id, winners[0].to_string());
    assert_eq!(used.used_discount_fen, 5_000);

    // The winner's step repeated is a no-op; pricing it again says it is used.
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    let again = Discount {
        coupon_id: coupon,
        discount_fen: 5_000,
    };
    coupons::consume(&mut tx, &system(&a), &again, winners[0])
        .await
        .unwrap();
    let bills = rows(&mut tx, &a, &[&bill.id]).await;
    let e = coupons::discount(&mut tx, &system(&a), coupon, &bills, 100_000)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.message, "优惠券已使用");
}

async fn list_one(s: &Stack, t: &Tenant) -> pb::Coupon {
    let mut all = s
        .client
        .clone()
        .list_coupons(user(s, t, &[coupons::PERMISSION], Default::default()))
        .await
        .unwrap()
        .into_inner()
        .coupons;
    assert_eq!(all.len(), 1);
    all.remove(0)
}

#[tokio::test]
async fn a_failed_payment_releases_its_coupon_and_a_pending_one_holds_it_until_settled() {
    let s = stack().await;
    let a = &s.a;
    let coupon = id(&grant(&s, a, vec![percent_off("HALF", 5_000, 20_000)])
        .await
        .unwrap()[0]);
    let bill = rent_bill(&s, a, "rent-release", 100_000).await;
    let pool = app_pool(&s).await;
    let actor = system(a);

    // Used, then the payment fails: available again, and another payment may use it.
    let failed = Uuid::new_v4();
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    let bills = rows(&mut tx, a, &[&bill.id]).await;
    let priced = coupons::discount(&mut tx, &actor, coupon, &bills, 100_000)
        .await
        .unwrap();
    assert_eq!(
        priced.discount_fen, 20_000,
        "50% of 1,000.00 capped at 200.00"
    );
    coupons::consume(&mut tx, &actor, &priced, failed)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    coupons::release(&mut tx, &actor, failed).await.unwrap();
    coupons::release(&mut tx, &actor, failed).await.unwrap();
    tx.commit().await.unwrap();
    let freed = list_one(&s, a).await;
    assert_eq!(freed.status, pb::CouponStatus::Available as i32);
    assert_eq!(freed.used_payment_id, "");
    assert_eq!(freed.used_discount_fen, 0);

    // A pending payment holds it (LOCKED: another cannot take it) until it settles (USED).
    let pending = Uuid::new_v4();
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    coupons::hold(&mut tx, &actor, &priced, pending)
        .await
        .unwrap();
    let e = coupons::consume(&mut tx, &actor, &priced, Uuid::new_v4())
        .await
        .unwrap_err();
    assert_eq!(e.message, "优惠券正被另一笔支付占用");
    tx.commit().await.unwrap();
    assert_eq!(
        list_one(&s, a).await.status,
        pb::CouponStatus::Locked as i32
    );
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    coupons::settle(&mut tx, &actor, pending).await.unwrap();
    tx.commit().await.unwrap();
    let used = list_one(&s, a).await;
    assert_eq!(used.status, pb::CouponStatus::Used as i32);
    assert_eq!(used.used_payment_id, pending.to_string());

    // Released after its validity ended, it reads as EXPIRED and cannot be used.
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "update coupon set valid_from = now() - interval '1 day', \
         valid_until = now() - interval '1 second' where id = $1",
    )
    .bind(coupon)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mut tx = db::begin_tenant(&pool, a.enterprise).await.unwrap();
    coupons::release(&mut tx, &actor, pending).await.unwrap();
    let e = coupons::consume(&mut tx, &actor, &priced, Uuid::new_v4())
        .await
        .unwrap_err();
    assert_eq!(e.message, "优惠券已过期");
    tx.commit().await.unwrap();
    assert_eq!(
        list_one(&s, a).await.status,
        pb::CouponStatus::Expired as i32
    );
}

#[tokio::test]
async fn another_tenant_neither_sees_nor_uses_a_coupon() {
    let s = stack().await;
    let (a, b) = (&s.a, &s.b);
    let coupon = id(&grant(&s, a, vec![amount_off("A-ONLY", 1_000)])
        .await
        .unwrap()[0]);
    assert!(list(&s, b, Default::default()).await.unwrap().is_empty());
    let b_bill = rent_bill(&s, b, "rent-b", 10_000).await;
    let pool = app_pool(&s).await;
    let mut tx = db::begin_tenant(&pool, b.enterprise).await.unwrap();
    let bills = rows(&mut tx, b, &[&b_bill.id]).await;
    let e = coupons::discount(&mut tx, &system(b), coupon, &bills, 10_000)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let priced = Discount {
        coupon_id: coupon,
        discount_fen: 1_000,
    };
    let e = coupons::consume(&mut tx, &system(b), &priced, Uuid::new_v4())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    drop(tx);
    // A's bill is not B's to price coupons against: B's list for it is 4004.
    let a_bill = rent_bill(&s, a, "rent-a", 10_000).await;
    let e = list(
        &s,
        b,
        pb::ListCouponsRequest {
            usable_for_bill_ids: vec![a_bill.id],
            ..Default::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    assert_eq!(
        list_one(&s, a).await.status,
        pb::CouponStatus::Available as i32
    );
}
