//! Charging cards over the real energy and vehicle services: a card bound
//! to a vehicle or a driver takes money from its organisation's account
//! under an Idempotency-Key (once; another body under the key is 4009),
//! is refused by the session authorisation when frozen, cancelled or at a
//! station it may not use, and gives its balance back when cancelled; the
//! lists (junior cards, amount changes) and their exports keep to the
//! caller's tenant, and tenant B changes nothing of A's.

use crate::support;

use std::time::Duration;

use fleetdesk_energy::cards::authorize::{Credential, Refusal, authorize};
use fleetdesk_energy::cards::domain::CardStatus;
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::energy::v1 as pb;
use support::{Stack, Tenant, err, stack};
use uuid::Uuid;

fn vehicle_card(t: &Tenant, account: &str, card_no: &str, vehicle: usize) -> pb::ChargingCardInput {
    pb::ChargingCardInput {
        org_id: t.shanghai.to_string(),
        account_id: account.to_owned(),
        kind: pb::ChargingCardKind::Physical as i32,
        card_no: card_no.to_owned(),
        holder_kind: pb::CardHolderKind::Vehicle as i32,
        vehicle_id: t.vehicles[vehicle].0.to_string(),
        driver_id: String::new(),
        budget_period: pb::BudgetPeriod::None as i32,
        budget_limit_fen: 0,
        per_session_limit_fen: 0,
        remark: String::new(),
        allowed_station_ids: Vec::new(),
    }
}

fn change(
    card: &str,
    kind: pb::CardAmountChangeKind,
    amount_fen: i64,
) -> pb::ChangeChargingCardAmountRequest {
    pb::ChangeChargingCardAmountRequest {
        card_id: card.to_owned(),
        kind: kind as i32,
        amount_fen,
        remark: String::new(),
        idempotency_key: String::new(),
    }
}

/// Asks the session authorisation as the sessions module does.
async fn ask(
    s: &Stack,
    enterprise: Option<Uuid>,
    credential: Credential<'_>,
    station: Option<Uuid>,
) -> Result<fleetdesk_energy::cards::authorize::Authorized, Refusal> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    authorize(&mut tx, enterprise, credential, station)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_card_is_funded_once_per_key_refused_when_unusable_and_returns_its_balance() {
    let s = stack(true).await;
    let shanghai = s.funded_shanghai(&s.a, 100_000).await;
    let mut c = s.client.clone();
    let card = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(&s.a, &shanghai, "8800a0000001", 0)),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .card
        .unwrap();
    assert_eq!(card.card_no, "8800A0000001");
    assert_eq!(
        card.plate_number, s.a.vehicles[0].1,
        "the plate comes from the vehicle service"
    );
    assert_eq!(card.balance_fen, 0);
    let taken = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(&s.a, &shanghai, "8800A0000001", 1)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&taken).message, "该卡号已存在");
    let same_vehicle = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(&s.a, &shanghai, "8800A0000002", 0)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&same_vehicle).code, ErrorCode::Conflict);
    let wrong_account = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(
                    &s.a,
                    &s.account_of(&s.a, s.a.east).await.id,
                    "8800A0000003",
                    1,
                )),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&wrong_account).fields[0].field, "accountId");

    // Funded once per key; another body under the key is refused.
    let top_up = |fen| change(&card.id, pb::CardAmountChangeKind::TopUp, fen);
    let first = c
        .change_charging_card_amount(s.keyed(&s.a, "t1", top_up(30_000)))
        .await
        .unwrap()
        .into_inner();
    let again = c
        .change_charging_card_amount(s.keyed(&s.a, "t1", top_up(30_000)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, first);
    let change_row = first.change.unwrap();
    assert_eq!(
        (change_row.balance_before_fen, change_row.balance_after_fen),
        (0, 30_000)
    );
    let other = c
        .change_charging_card_amount(s.keyed(&s.a, "t1", top_up(1)))
        .await
        .unwrap_err();
    assert_eq!(err(&other).code.edge_code(), 4009);
    let too_much = c
        .change_charging_card_amount(s.keyed(&s.a, "t2", top_up(70_001)))
        .await
        .unwrap_err();
    assert!(err(&too_much).message.contains("组织账户余额不足"));
    c.change_charging_card_amount(s.keyed(
        &s.a,
        "w1",
        change(&card.id, pb::CardAmountChangeKind::Withdraw, 5_000),
    ))
    .await
    .unwrap();
    assert_eq!(s.account_of(&s.a, s.a.shanghai).await.available_fen, 75_000);

    // The sessions' authorisation: by number or plate, then refused once unusable.
    let plate = s.a.vehicles[0].1.as_str();
    let ok = ask(&s, None, Credential::CardNo("8800a0000001"), None)
        .await
        .unwrap();
    assert_eq!((ok.enterprise_id, ok.balance_fen), (s.a.enterprise, 25_000));
    assert_eq!(
        ask(&s, Some(s.a.enterprise), Credential::Plate(plate), None)
            .await
            .unwrap()
            .card_id
            .to_string(),
        card.id
    );
    assert_eq!(
        ask(&s, Some(s.b.enterprise), Credential::Plate(plate), None).await,
        Err(Refusal::NotRegistered)
    );
    c.freeze_charging_card(s.req(
        &s.a,
        pb::FreezeChargingCardRequest {
            card_id: card.id.clone(),
            reason: "司机离职".into(),
        },
    ))
    .await
    .unwrap();
    let frozen = ask(&s, None, Credential::Plate(plate), None)
        .await
        .unwrap_err();
    assert_eq!(frozen, Refusal::CardUnavailable(CardStatus::Frozen));
    assert_eq!(frozen.reason(), "充电卡已冻结，不能充电");
    c.unfreeze_charging_card(s.req(
        &s.a,
        pb::UnfreezeChargingCardRequest {
            card_id: card.id.clone(),
        },
    ))
    .await
    .unwrap();

    // Limited to one station: refused elsewhere.
    let station = Uuid::new_v4();
    let mut limited = vehicle_card(&s.a, &shanghai, "8800A0000001", 0);
    limited.allowed_station_ids = vec![station.to_string()];
    c.update_charging_card(s.req(
        &s.a,
        pb::UpdateChargingCardRequest {
            card_id: card.id.clone(),
            card: Some(limited),
        },
    ))
    .await
    .unwrap();
    assert!(
        ask(&s, None, Credential::Plate(plate), Some(station))
            .await
            .is_ok()
    );
    assert_eq!(
        ask(&s, None, Credential::Plate(plate), Some(Uuid::new_v4())).await,
        Err(Refusal::StationNotAllowed)
    );

    // Cancelled: the balance goes back to the account, and the card is refused.
    let cancelled = c
        .cancel_charging_card(s.keyed(
            &s.a,
            "c1",
            pb::CancelChargingCardRequest {
                card_id: card.id.clone(),
                lost: false,
                reason: "车辆报废".into(),
                idempotency_key: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(cancelled.card.unwrap().balance_fen, 0);
    assert_eq!(cancelled.returned.unwrap().amount_fen, 25_000);
    assert_eq!(
        s.account_of(&s.a, s.a.shanghai).await.available_fen,
        100_000
    );
    assert_eq!(
        ask(&s, None, Credential::CardNo("8800A0000001"), Some(station)).await,
        Err(Refusal::CardUnavailable(CardStatus::Cancelled))
    );
    let top_up_cancelled = c
        .change_charging_card_amount(s.keyed(&s.a, "t3", top_up(1)))
        .await
        .unwrap_err();
    assert!(err(&top_up_cancelled).message.contains("已注销"));

    let changes = c
        .list_card_amount_changes(s.req(
            &s.a,
            pb::ListCardAmountChangesRequest {
                card_id: card.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .changes;
    let kinds: Vec<i32> = changes.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        vec![
            pb::CardAmountChangeKind::CancelReturn as i32,
            pb::CardAmountChangeKind::Withdraw as i32,
            pb::CardAmountChangeKind::TopUp as i32
        ]
    );
    for (balance, entries) in s.books(&s.a).await {
        assert_eq!(balance, entries);
    }
}

/// Waits for an export job of this service to finish; its row count.
async fn exported(s: &Stack, job: &str) -> i64 {
    let id = Uuid::parse_str(job).unwrap();
    for _ in 0..100 {
        let mut tx = db::begin_service(&s.owner).await.unwrap();
        let (status, rows): (i16, i64) =
            sqlx::query_as("select status, rows_done from export_job where id = $1")
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .unwrap();
        drop(tx);
        match status {
            3 => return rows,
            4 | 5 => panic!("export {job} ended with status {status}"),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    panic!("export {job} did not finish");
}

#[tokio::test]
async fn lists_and_exports_keep_to_the_tenant_and_b_changes_nothing_of_a() {
    let s = stack(true).await;
    let shanghai = s.funded_shanghai(&s.a, 10_000).await;
    let mut c = s.client.clone();
    let card = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(&s.a, &shanghai, "8800B0000001", 1)),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .card
        .unwrap();
    let driver_card = c
        .create_charging_card(s.req(
            &s.a,
            pb::CreateChargingCardRequest {
                card: Some(pb::ChargingCardInput {
                    kind: pb::ChargingCardKind::Virtual as i32,
                    card_no: String::new(),
                    holder_kind: pb::CardHolderKind::Driver as i32,
                    vehicle_id: String::new(),
                    driver_id: s.a.driver.to_string(),
                    budget_period: pb::BudgetPeriod::Monthly as i32,
                    budget_limit_fen: 50_000,
                    ..vehicle_card(&s.a, &shanghai, "", 0)
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .card
        .unwrap();
    assert_eq!(driver_card.driver_name, "李师傅");
    assert!(driver_card.card_no.starts_with('V'));
    c.change_charging_card_amount(s.keyed(
        &s.a,
        "t",
        change(&card.id, pb::CardAmountChangeKind::TopUp, 4_000),
    ))
    .await
    .unwrap();

    // Junior cards: Shanghai's cards are East's juniors, not Shanghai's own.
    let juniors = |org: Uuid| pb::ListChargingCardsRequest {
        junior_of_org_id: org.to_string(),
        ..Default::default()
    };
    let of_east = c
        .list_charging_cards(s.req(&s.a, juniors(s.a.east)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(of_east.page.unwrap().total, 2);
    assert_eq!(of_east.total_balance_fen, 4_000);
    let of_shanghai = c
        .list_charging_cards(s.req(&s.a, juniors(s.a.shanghai)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(of_shanghai.page.unwrap().total, 0);
    let by_plate = c
        .list_charging_cards(s.req(
            &s.a,
            pb::ListChargingCardsRequest {
                plate_numbers: vec![s.a.vehicles[1].1.clone()],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(by_plate.cards.len(), 1);

    // Every list exports what it lists.
    let cards_job = c
        .export_charging_cards(s.req(
            &s.a,
            pb::ExportChargingCardsRequest {
                filter: Some(pb::ListChargingCardsRequest::default()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(exported(&s, &cards_job.id).await, 2);
    let changes_job = c
        .export_card_amount_changes(s.req(&s.a, pb::ExportCardAmountChangesRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(exported(&s, &changes_job.id).await, 1);
    let allocations_job = c
        .export_balance_allocations(s.req(&s.a, pb::ExportBalanceAllocationsRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(exported(&s, &allocations_job.id).await, 2);
    let accounts_job = c
        .export_charging_accounts(s.req(&s.a, pb::ExportChargingAccountsRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(exported(&s, &accounts_job.id).await, 4);
    // B's export of the same lists holds none of A's rows.
    let b_job = c
        .export_charging_cards(s.req(&s.b, pb::ExportChargingCardsRequest::default()))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    assert_eq!(exported(&s, &b_job.id).await, 0);

    // B sees nothing of A's and changes nothing.
    let b_cards = c
        .list_charging_cards(s.req(
            &s.b,
            pb::ListChargingCardsRequest {
                card_nos: vec!["8800B0000001".into()],
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b_cards.page.unwrap().total, 0);
    let not_found = |status: tonic::Status| assert_eq!(err(&status).code, ErrorCode::NotFound);
    not_found(
        c.get_charging_card(s.req(
            &s.b,
            pb::GetChargingCardRequest {
                card_id: card.id.clone(),
            },
        ))
        .await
        .unwrap_err(),
    );
    not_found(
        c.freeze_charging_card(s.req(
            &s.b,
            pb::FreezeChargingCardRequest {
                card_id: card.id.clone(),
                reason: String::new(),
            },
        ))
        .await
        .unwrap_err(),
    );
    not_found(
        c.cancel_charging_card(s.keyed(
            &s.b,
            "x",
            pb::CancelChargingCardRequest {
                card_id: card.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err(),
    );
    not_found(
        c.change_charging_card_amount(s.keyed(
            &s.b,
            "y",
            change(&card.id, pb::CardAmountChangeKind::Withdraw, 1),
        ))
        .await
        .unwrap_err(),
    );
    not_found(
        c.update_charging_card(s.req(
            &s.b,
            pb::UpdateChargingCardRequest {
                card_id: card.id.clone(),
                card: Some(vehicle_card(
                    &s.b,
                    &s.account_of(&s.b, s.b.shanghai).await.id,
                    "",
                    0,
                )),
            },
        ))
        .await
        .unwrap_err(),
    );
    // A card of B's on A's account, or on A's vehicle, is refused.
    let on_a = c
        .create_charging_card(s.req(
            &s.b,
            pb::CreateChargingCardRequest {
                card: Some(vehicle_card(&s.a, &shanghai, "8800C0000001", 2)),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&on_a).code, ErrorCode::BadRequest);
    let mut a_vehicle = vehicle_card(
        &s.b,
        &s.account_of(&s.b, s.b.shanghai).await.id,
        "8800C0000002",
        0,
    );
    a_vehicle.vehicle_id = s.a.vehicles[2].0.to_string();
    let on_a_vehicle = c
        .create_charging_card(s.req(
            &s.b,
            pb::CreateChargingCardRequest {
                card: Some(a_vehicle),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&on_a_vehicle).fields[0].field, "vehicleId");
    let b_changes = c
        .list_card_amount_changes(s.req(
            &s.b,
            pb::ListCardAmountChangesRequest {
                card_id: card.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b_changes.page.unwrap().total, 0);
    let after = c
        .get_charging_card(s.req(
            &s.a,
            pb::GetChargingCardRequest {
                card_id: card.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .card
        .unwrap();
    assert_eq!(
        (after.status, after.balance_fen),
        (pb::ChargingCardStatus::Active as i32, 4_000)
    );
}
