//! The demo charging data on a fresh database: enterprise A opened with its
//! seeded main balance allocated down the demo tree and onto cards (books
//! balanced, records written), enterprise B left to apply, and a second run
//! changing nothing.

use fleetdesk_kit::{db, demo_id};
use fleetdesk_seed::energy::{self as seed, DemoDriver, DemoVehicle, MAIN_BALANCE_FEN};
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use uuid::Uuid;

async fn count(pool: &PgPool, sql: &str, enterprise: Uuid) -> i64 {
    sqlx::query_scalar(sql)
        .bind(enterprise)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_demo_enterprise_is_opened_with_money_down_its_tree_once() {
    let test_db = TestDb::migrated(&[&fleetdesk_energy::SCHEMA]).await;
    let owner = db::connect_owner(&test_db.url, fleetdesk_energy::SCHEMA.name, 2)
        .await
        .unwrap();
    let a = demo_id("enterprise:a");
    let shanghai = demo_id("org:a-shanghai");
    let vehicles: Vec<DemoVehicle> = (0..5)
        .map(|i| DemoVehicle {
            id: Uuid::new_v4(),
            plate_number: format!("沪AD{i:04}"),
            org_id: if i == 0 { Uuid::new_v4() } else { shanghai },
        })
        .collect();
    let drivers = vec![DemoDriver {
        id: Uuid::new_v4(),
        name: "王师傅".into(),
        org_id: demo_id("org:a-shenzhen"),
    }];
    seed::run(&owner, &vehicles, &drivers).await.unwrap();
    seed::run(&owner, &vehicles, &drivers).await.unwrap();

    let opened: i16 =
        sqlx::query_scalar("select state from charging_opening where enterprise_id = $1")
            .bind(a)
            .fetch_one(&owner)
            .await
            .unwrap();
    assert_eq!(opened, 3);
    let b = demo_id("enterprise:b");
    assert_eq!(
        count(
            &owner,
            "select count(*) from charging_opening where enterprise_id = $1",
            b
        )
        .await,
        0
    );
    assert_eq!(
        count(
            &owner,
            "select count(*) from charging_account where enterprise_id = $1",
            a
        )
        .await,
        7
    );
    assert_eq!(
        count(
            &owner,
            "select count(*) from charging_card where enterprise_id = $1",
            a
        )
        .await,
        6
    );
    assert_eq!(
        count(
            &owner,
            "select count(*) from balance_allocation where enterprise_id = $1",
            a
        )
        .await,
        6
    );
    assert_eq!(
        count(
            &owner,
            "select count(*) from card_amount_change where enterprise_id = $1",
            a
        )
        .await,
        6
    );
    // Inside the enterprise: every fen seeded, none made or lost, none below zero.
    let books: Vec<(i16, i64, i64)> = sqlx::query_as(
        "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
         where e.account_id = a.id), 0)::bigint from ledger_account a where a.enterprise_id = $1",
    )
    .bind(a)
    .fetch_all(&owner)
    .await
    .unwrap();
    for (kind, balance, entries) in &books {
        assert_eq!(balance, entries);
        assert!(*balance >= 0 || *kind == 5, "kind {kind} below zero");
    }
    let held: i64 = books.iter().filter(|b| b.0 != 5).map(|b| b.1).sum();
    assert_eq!(held, MAIN_BALANCE_FEN);
    // A vehicle of an organisation outside the demo tree is carded on MAIN.
    let main_cards = count(
        &owner,
        "select count(*) from charging_card c join charging_account m on m.id = c.account_id \
         where c.enterprise_id = $1 and m.kind = 1",
        a,
    )
    .await;
    assert_eq!(main_cards, 1);
}
