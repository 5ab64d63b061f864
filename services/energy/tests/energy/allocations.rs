//! Allocation down and up the account tree over the real energy service:
//! a thousand concurrent allocations and reclaims keep every balance equal
//! to its entries, none below zero and the money unchanged; a key moves
//! money once and refuses another body; money moves only between parent
//! and direct child; reach and tenants bound every account and record.

use crate::support;

use fleetdesk_kit::ErrorCode;
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use support::{Stack, Tenant, allocate, err, reclaim, stack};
use uuid::Uuid;

/// Every record of `t` (at most 100 per page).
async fn records(s: &Stack, t: &Tenant, account: &str) -> Vec<pb::BalanceAllocation> {
    let mut out = Vec::new();
    for page in 1.. {
        let answer = s
            .client
            .clone()
            .list_balance_allocations(s.req(
                t,
                pb::ListBalanceAllocationsRequest {
                    page: Some(common::PageRequest { page, size: 100 }),
                    account_id: account.to_owned(),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner();
        let done = answer.allocations.len() < 100;
        out.extend(answer.allocations);
        if done {
            break;
        }
    }
    out
}

#[tokio::test]
async fn a_thousand_concurrent_allocations_and_reclaims_keep_the_books() {
    let s = stack(true).await;
    s.top_up(&s.a, 1_000_000).await;
    let east = s.account_of(&s.a, s.a.east).await.id;
    let south = s.account_of(&s.a, s.a.south).await.id;
    let shanghai = s.account_of(&s.a, s.a.shanghai).await.id;

    let tree = support::StormTree::of(&s, &s.a).await;
    let started = std::time::Instant::now();
    let moved = support::allocation_storm(&s, &s.a, &tree, 1000).await;
    assert!(moved > 300, "only {moved} of 1000 moved");
    eprintln!("1000 moves in {:?}", started.elapsed());

    let books = s.books(&s.a).await;
    for (balance, entries) in &books {
        assert_eq!(balance, entries, "a balance differs from its entries");
    }
    assert_eq!(
        books.iter().map(|b| b.0).sum::<i64>(),
        0,
        "money made or lost"
    );
    assert_eq!(
        books.iter().filter(|b| b.0 < 0).count(),
        1,
        "only FUNDING is below zero"
    );
    let accounts = s.accounts(&s.a).await;
    assert_eq!(
        accounts.iter().map(|a| a.available_fen).sum::<i64>(),
        1_000_000
    );
    assert!(accounts.iter().all(|a| a.available_fen >= 0));

    // The record tells the same story as the ledger: one row per move, and
    // each sub-account holds what came in minus what went out.
    assert_eq!(records(&s, &s.a, "").await.len(), moved);
    for account in [&east, &south, &shanghai] {
        let flow: i64 = records(&s, &s.a, account)
            .await
            .iter()
            .map(|r| {
                if r.to_account_id == *account {
                    r.amount_fen
                } else {
                    -r.amount_fen
                }
            })
            .sum();
        let balance = accounts
            .iter()
            .find(|a| a.id == *account)
            .unwrap()
            .available_fen;
        assert_eq!(
            flow, balance,
            "records of {account} disagree with its balance"
        );
    }
}

#[tokio::test]
async fn a_key_moves_money_once_and_only_parent_and_child_trade() {
    let s = stack(true).await;
    s.top_up(&s.a, 100_000).await;
    let mut c = s.client.clone();
    let main = s.account_of(&s.a, s.a.root).await.id;
    let east = s.account_of(&s.a, s.a.east).await.id;
    let shanghai = s.account_of(&s.a, s.a.shanghai).await.id;

    let first = c
        .allocate_balance(s.keyed(&s.a, "once", allocate(&main, &east, 30_000)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.from_account.as_ref().unwrap().available_fen, 70_000);
    assert_eq!(first.allocations[0].to_balance_after_fen, 30_000);
    let replay = c
        .allocate_balance(s.keyed(&s.a, "once", allocate(&main, &east, 30_000)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay, first);
    assert_eq!(s.account_of(&s.a, s.a.east).await.available_fen, 30_000);
    let other = c
        .allocate_balance(s.keyed(&s.a, "once", allocate(&main, &east, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&other).code.edge_code(), 4009);
    // The key may come in the body instead of the header; one is required.
    let mut in_body = allocate(&main, &east, 5_000);
    in_body.idempotency_key = "body-key".into();
    c.allocate_balance(s.req(&s.a, in_body)).await.unwrap();
    let keyless = c
        .allocate_balance(s.req(&s.a, allocate(&main, &east, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&keyless).fields[0].field, "Idempotency-Key");

    // Not a direct child: MAIN → Shanghai skips East.
    let skip = c
        .allocate_balance(s.keyed(&s.a, "skip", allocate(&main, &shanghai, 100)))
        .await
        .unwrap_err();
    assert_eq!(err(&skip).code, ErrorCode::Conflict);
    let back = c
        .reclaim_balance(s.keyed(&s.a, "back", reclaim(&east, 35_001)))
        .await
        .unwrap_err();
    assert!(err(&back).message.contains("组织账户余额不足"));
    let back = c
        .reclaim_balance(s.keyed(&s.a, "back", reclaim(&east, 35_000)))
        .await
        .unwrap()
        .into_inner()
        .allocation
        .unwrap();
    assert_eq!(back.direction, pb::AllocationDirection::Reclaim as i32);
    assert_eq!(back.to_account_id, main);
    assert_eq!(back.to_balance_after_fen, 100_000);
    let root_up = c
        .reclaim_balance(s.keyed(&s.a, "root", reclaim(&main, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&root_up).code, ErrorCode::Conflict);

    // A frozen sub-account receives nothing.
    c.update_charging_account(s.req(
        &s.a,
        pb::UpdateChargingAccountRequest {
            account_id: east.clone(),
            low_balance_threshold_fen: 1_000,
            status: pb::ChargingAccountStatus::Frozen as i32,
        },
    ))
    .await
    .unwrap();
    let frozen = c
        .allocate_balance(s.keyed(&s.a, "frozen", allocate(&main, &east, 100)))
        .await
        .unwrap_err();
    assert!(err(&frozen).message.contains("已冻结"));
    let low = c
        .list_charging_accounts(s.req(
            &s.a,
            pb::ListChargingAccountsRequest {
                low_balance_only: true,
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .accounts;
    assert_eq!(
        low.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        vec![east.as_str()]
    );
}

#[tokio::test]
async fn reach_and_tenants_bound_accounts_and_records() {
    let s = stack(true).await;
    s.top_up(&s.a, 50_000).await;
    let mut c = s.client.clone();
    let main = s.account_of(&s.a, s.a.root).await.id;
    let east = s.account_of(&s.a, s.a.east).await.id;
    let shanghai = s.account_of(&s.a, s.a.shanghai).await.id;
    c.allocate_balance(s.keyed(&s.a, "a1", allocate(&main, &east, 20_000)))
        .await
        .unwrap();
    c.allocate_balance(s.keyed(&s.a, "a2", allocate(&east, &shanghai, 5_000)))
        .await
        .unwrap();

    // A manager of East sees East and Shanghai, and moves money between them only.
    let east_only = ReachClaim {
        all: false,
        subtrees: vec![s.a.east],
        orgs: Vec::new(),
    };
    let seen = c
        .list_charging_accounts(s.req_reaching(
            &s.a,
            east_only.clone(),
            pb::ListChargingAccountsRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner()
        .accounts;
    let mut seen: Vec<String> = seen.into_iter().map(|a| a.id).collect();
    seen.sort();
    let mut expected = vec![east.clone(), shanghai.clone()];
    expected.sort();
    assert_eq!(seen, expected);
    let mut req = s.req_reaching(&s.a, east_only.clone(), allocate(&main, &east, 1));
    req.metadata_mut()
        .insert("idempotency-key", "m1".parse().unwrap());
    assert_eq!(
        err(&c.allocate_balance(req).await.unwrap_err()).code,
        ErrorCode::NotFound
    );
    let records = c
        .list_balance_allocations(s.req_reaching(
            &s.a,
            east_only,
            pb::ListBalanceAllocationsRequest::default(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(records.page.unwrap().total, 2, "both moves touch East");

    // B sees and moves nothing of A's.
    let b_accounts = s.accounts(&s.b).await;
    assert_eq!(b_accounts.len(), 4);
    assert!(
        b_accounts
            .iter()
            .all(|a| a.enterprise_id == s.b.enterprise.to_string())
    );
    let get = c
        .get_charging_account(s.req(
            &s.b,
            pb::GetChargingAccountRequest {
                account_id: main.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&get).code, ErrorCode::NotFound);
    let steal = c
        .allocate_balance(s.keyed(&s.b, "steal", allocate(&main, &east, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&steal).code, ErrorCode::NotFound);
    let b_main = s.account_of(&s.b, s.b.root).await.id;
    let into_a = c
        .allocate_balance(s.keyed(&s.b, "into", allocate(&b_main, &east, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&into_a).code, ErrorCode::NotFound);
    let pull = c
        .reclaim_balance(s.keyed(&s.b, "pull", reclaim(&shanghai, 1)))
        .await
        .unwrap_err();
    assert_eq!(err(&pull).code, ErrorCode::NotFound);
    let freeze = c
        .update_charging_account(s.req(
            &s.b,
            pb::UpdateChargingAccountRequest {
                account_id: east.clone(),
                low_balance_threshold_fen: 0,
                status: pb::ChargingAccountStatus::Frozen as i32,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&freeze).code, ErrorCode::NotFound);
    let b_records = c
        .list_balance_allocations(s.req(
            &s.b,
            pb::ListBalanceAllocationsRequest {
                account_id: east.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b_records.page.unwrap().total, 0);
    assert_eq!(s.account_of(&s.a, s.a.east).await.available_fen, 15_000);
    let _ = Uuid::nil();
}
