//! Monthly reconciliation statements over the real stack: sessions charged
//! on the platform stand-in and settled by energy (holds and captures in
//! the ledger), a draft of the current month, the month-end job issuing the
//! closed month, the statement against its sessions and the ledger's
//! captures, its workbook read back with calamine, partial reach, and
//! confirmation — once, after which nothing about it changes.

use crate::support;

use calamine::Reader as _;
use chrono::{DateTime, Datelike, Duration, FixedOffset, TimeZone, Utc};
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use support::platform::{Charging, charging};
use support::{Tenant, err, sheet_rows};

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).unwrap()
}

/// The current month (Asia/Shanghai) and its first instant.
fn this_month() -> (common::YearMonth, DateTime<Utc>) {
    let now = Utc::now().with_timezone(&shanghai());
    let start = shanghai()
        .with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0)
        .unwrap()
        .with_timezone(&Utc);
    let month = common::YearMonth {
        year: now.year(),
        month: now.month() as i32,
    };
    (month, start)
}

fn previous(m: &common::YearMonth) -> common::YearMonth {
    if m.month == 1 {
        common::YearMonth {
            year: m.year - 1,
            month: 12,
        }
    } else {
        common::YearMonth {
            year: m.year,
            month: m.month - 1,
        }
    }
}

fn code(m: &common::YearMonth) -> i32 {
    m.year * 100 + m.month
}

/// (sessions, energy, total) of `t`'s settled sessions, straight from the table.
async fn settled(c: &Charging, t: &Tenant) -> (i64, i64, i64) {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    let sums = sqlx::query_as(
        "select count(*), coalesce(sum(energy_wh), 0)::bigint, coalesce(sum(total_fen), 0)::bigint \
         from charging_session where enterprise_id = $1 and status = 2",
    )
    .bind(t.enterprise)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    sums
}

/// What the ledger's CAPTURE transfers of `t` since `from` credited the
/// platform's revenue.
async fn captured_since(c: &Charging, t: &Tenant, from: DateTime<Utc>) -> i64 {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    let fen = sqlx::query_scalar(
        "select coalesce(sum(e.amount_fen), 0)::bigint from ledger_transfer t \
         join ledger_entry e on e.transfer_id = t.id \
         join ledger_account a on a.id = e.account_id and a.kind between 6 and 11 \
         where t.enterprise_id = $1 and t.kind = 6 and t.created_at >= $2",
    )
    .bind(t.enterprise)
    .bind(from)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    fen
}

/// Runs `sql` on `t`'s rows as the service would (tenant scope).
async fn execute(c: &Charging, t: &Tenant, sql: &str) -> Result<u64, sqlx::Error> {
    let mut tx = db::begin_tenant(&c.stack.owner, t.enterprise).await?;
    let done = sqlx::query(sql)
        .bind(t.enterprise)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    tx.commit().await?;
    Ok(done)
}

async fn generate(
    c: &Charging,
    t: &Tenant,
    month: &common::YearMonth,
) -> pb::ReconciliationStatement {
    c.stack
        .client
        .clone()
        .generate_reconciliation_statement(c.stack.req(
            t,
            pb::GenerateReconciliationStatementRequest {
                month: Some(*month),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap()
}

async fn get(c: &Charging, t: &Tenant, month: &common::YearMonth) -> pb::ReconciliationStatement {
    c.stack
        .client
        .clone()
        .get_reconciliation_statement(c.stack.req(
            t,
            pb::GetReconciliationStatementRequest {
                statement_id: String::new(),
                month: Some(*month),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap()
}

fn confirm_request(
    s: &pb::ReconciliationStatement,
    expected: i64,
) -> pb::ConfirmReconciliationStatementRequest {
    pb::ConfirmReconciliationStatementRequest {
        statement_id: s.id.clone(),
        accepted: true,
        expected_total_fen: expected,
        dispute_reason: String::new(),
    }
}

/// Yuan as the workbook holds them, back to fen.
fn fen(cell: &str) -> i64 {
    (cell.parse::<f64>().unwrap() * 100.0).round() as i64
}

#[tokio::test]
async fn a_statement_equals_its_sessions_and_the_ledger_captures_and_confirming_freezes_it() {
    let c = charging().await;
    let (a, b) = (c.stack.a.clone(), c.stack.b.clone());
    let (month, month_start) = this_month();
    let closed = previous(&month);

    // A charges on three cards of two organisations; B charges too.
    let shanghai = [a.east, a.shanghai];
    let van = c.card(&a, &shanghai, Some(0), 30_000).await;
    let truck = c.card(&a, &shanghai, Some(1), 30_000).await;
    let driver = c.card(&a, &[a.south], None, 30_000).await;
    let mut numbers = Vec::new();
    for (card, minutes) in [(&van, 40), (&van, 25), (&truck, 15), (&driver, 30)] {
        numbers.push(c.session(&card.card_no, minutes, 60, 20).await.id);
    }
    let theirs = c.card(&b, &[b.south], None, 30_000).await;
    c.session(&theirs.card_no, 20, 60, 20).await;

    let (sessions, energy_wh, total_fen) = settled(&c, &a).await;
    assert_eq!(sessions, 4);
    assert!(total_fen > 0 && energy_wh > 0);
    assert_eq!(captured_since(&c, &a, month_start).await, total_fen);

    // The current month: a draft of the sessions so far, never confirmed.
    let draft = generate(&c, &a, &month).await;
    assert_eq!(draft.status, pb::ReconciliationStatus::Draft as i32);
    assert_eq!(
        (draft.session_count, draft.energy_wh, draft.total_fen),
        (sessions, energy_wh, total_fen)
    );
    assert_eq!(draft.ledger_captured_fen, total_fen);
    let refused = c
        .stack
        .client
        .clone()
        .confirm_reconciliation_statement(c.stack.req(&a, confirm_request(&draft, total_fen)))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);

    // These sessions ended last month (as if the month had just closed);
    // the month-end job issues last month's statement of A. B opened this
    // month and charged only in it: it has none for last month.
    execute(
        &c,
        &a,
        &format!(
            "update charging_session set statement_month = {} where enterprise_id = $1",
            code(&closed)
        ),
    )
    .await
    .unwrap();
    let files = FileStore::local(&c.stack.objects).unwrap();
    let after_close = month_start + Duration::hours(3);
    let issued = fleetdesk_energy::statements::job::round(&c.stack.owner, &files, after_close)
        .await
        .unwrap();
    assert_eq!(issued, 1);
    let none = c
        .stack
        .client
        .clone()
        .get_reconciliation_statement(c.stack.req(
            &b,
            pb::GetReconciliationStatementRequest {
                statement_id: String::new(),
                month: Some(closed),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&none).code, ErrorCode::NotFound);
    // A second round (another replica, or the next tick) issues nothing again.
    let again = fleetdesk_energy::statements::job::round(&c.stack.owner, &files, after_close)
        .await
        .unwrap();
    assert_eq!(again, 0);
    let statement = get(&c, &a, &closed).await;
    assert_eq!(
        statement.status,
        pb::ReconciliationStatus::PendingConfirmation as i32
    );
    // Statement = sum of its sessions = the ledger's captures, fen for fen.
    assert_eq!(
        (
            statement.session_count,
            statement.energy_wh,
            statement.total_fen
        ),
        (sessions, energy_wh, total_fen)
    );
    assert_eq!(statement.ledger_captured_fen, total_fen);
    assert_eq!(statement.card_count, 3);
    assert!(!statement.partial);
    let by_org: Vec<(String, i64, i64)> = statement
        .org_lines
        .iter()
        .map(|l| (l.org_id.clone(), l.session_count, l.total_fen))
        .collect();
    assert_eq!(by_org.len(), 2);
    assert_eq!(by_org.iter().map(|l| l.2).sum::<i64>(), total_fen);
    let south_line = statement
        .org_lines
        .iter()
        .find(|l| l.org_id == a.south.to_string())
        .unwrap()
        .clone();
    assert_eq!((south_line.session_count, south_line.card_count), (1, 1));
    let lines = c
        .stack
        .client
        .clone()
        .list_reconciliation_card_lines(c.stack.req(
            &a,
            pb::ListReconciliationCardLinesRequest {
                page: Some(common::PageRequest { page: 1, size: 100 }),
                statement_id: statement.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(lines.page.unwrap().total, 3);
    assert_eq!(
        lines.lines.iter().map(|l| l.total_fen).sum::<i64>(),
        total_fen
    );
    let van_line = lines
        .lines
        .iter()
        .find(|l| l.card_no == van.card_no)
        .unwrap();
    assert_eq!(
        (van_line.session_count, van_line.plate_number.as_str()),
        (2, a.vehicles[0].1.as_str())
    );
    // The sessions went to the closed month: the current draft is empty now.
    assert_eq!(generate(&c, &a, &month).await.session_count, 0);

    // The workbook: the figures by organisation and card and every session.
    let file = statement.file.clone().unwrap();
    assert!(
        file.key
            .starts_with(&format!("{}/statement/", a.enterprise))
    );
    let bytes = files.get_bytes(&file.key).await.unwrap();
    let book = calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    assert_eq!(
        book.sheet_names(),
        ["汇总", "按组织", "按充电卡", "充电明细"]
    );
    let rows = |name: &str| sheet_rows(&bytes, name);
    let summary = rows("汇总");
    let owed = summary.iter().find(|r| r[0] == "应付金额(元)").unwrap();
    assert_eq!(fen(&owed[1]), total_fen);
    assert!(
        summary
            .iter()
            .any(|r| r[0] == "对账单号" && r[1] == statement.statement_no)
    );
    // A sheet's column by its header, as a reader finds it.
    let column = |sheet: &[Vec<String>], title: &str| {
        sheet[0]
            .iter()
            .position(|h| h == title)
            .unwrap_or_else(|| panic!("{title}"))
    };
    let orgs = rows("按组织");
    assert_eq!(orgs.len(), 3);
    let owed_column = column(&orgs, "金额(元)");
    assert_eq!(
        orgs[1..].iter().map(|r| fen(&r[owed_column])).sum::<i64>(),
        total_fen
    );
    let cards = rows("按充电卡");
    assert_eq!(cards.len(), 4);
    assert_eq!(cards[0][0], "充电卡号");
    let mut card_nos: Vec<&str> = cards[1..].iter().map(|r| r[0].as_str()).collect();
    card_nos.sort_unstable();
    let mut expected = vec![
        van.card_no.as_str(),
        truck.card_no.as_str(),
        driver.card_no.as_str(),
    ];
    expected.sort_unstable();
    assert_eq!(card_nos, expected);
    let details = rows("充电明细");
    assert_eq!(details.len(), 5);
    let mut listed: Vec<String> = details[1..].iter().map(|r| r[0].clone()).collect();
    listed.sort();
    numbers.sort();
    assert_eq!(listed, numbers);
    let owed_column = column(&details, "金额(元)");
    assert_eq!(
        details[1..]
            .iter()
            .map(|r| fen(&r[owed_column]))
            .sum::<i64>(),
        total_fen
    );

    // A user reaching only the south sees its line, no workbook.
    let south_only = ReachClaim {
        all: false,
        subtrees: vec![a.south],
        orgs: Vec::new(),
    };
    let part = c
        .stack
        .client
        .clone()
        .get_reconciliation_statement(c.stack.req_reaching(
            &a,
            south_only.clone(),
            pb::GetReconciliationStatementRequest {
                statement_id: statement.id.clone(),
                month: None,
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert!(part.partial && part.file.is_none());
    assert_eq!(
        (part.session_count, part.total_fen),
        (1, south_line.total_fen)
    );
    assert_eq!(part.org_lines.len(), 1);
    let refused = c
        .stack
        .client
        .clone()
        .confirm_reconciliation_statement(c.stack.req_reaching(
            &a,
            south_only,
            confirm_request(&statement, statement.total_fen),
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Forbidden);

    // Confirm: the total seen must be the statement's, and it happens once.
    let mut client = c.stack.client.clone();
    let stale = client
        .confirm_reconciliation_statement(
            c.stack.req(&a, confirm_request(&statement, total_fen - 1)),
        )
        .await
        .unwrap_err();
    assert_eq!(err(&stale).code, ErrorCode::Conflict);
    let confirmed = client
        .confirm_reconciliation_statement(c.stack.req(&a, confirm_request(&statement, total_fen)))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert_eq!(confirmed.status, pb::ReconciliationStatus::Confirmed as i32);
    assert!(confirmed.confirm_time.is_some());
    let again = client
        .confirm_reconciliation_statement(c.stack.req(&a, confirm_request(&statement, total_fen)))
        .await
        .unwrap_err();
    assert_eq!(err(&again).code, ErrorCode::Conflict);
    let announced: i64 = {
        let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
        sqlx::query_scalar(
            "select count(*) from outbox where subject = 'fleetdesk.energy.statement.confirmed'",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    };
    assert_eq!(announced, 1);

    // The statement list's export: both months as the list shows them.
    let job = client
        .export_reconciliation_statements(c.stack.req(
            &a,
            pb::ExportReconciliationStatementsRequest {
                filter: Some(pb::ListReconciliationStatementsRequest::default()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let exported = c.stack.exported_rows(&job.id).await;
    assert_eq!(exported.len(), 3);
    assert_eq!(exported[0][0], "对账单号");
    let closed_row = exported
        .iter()
        .find(|r| r[0] == statement.statement_no)
        .unwrap();
    assert_eq!(
        (closed_row[2].as_str(), closed_row[3].as_str()),
        ("已确认", "4")
    );

    // A session settling late for the closed month changes nothing on the
    // confirmed statement: it waits for the next one.
    c.session(&van.card_no, 10, 60, 50).await;
    execute(
        &c,
        &a,
        &format!(
            "update charging_session set statement_month = {} where enterprise_id = $1 \
             and statement_month <> {}",
            code(&closed),
            code(&closed)
        ),
    )
    .await
    .unwrap();
    let kept = generate(&c, &a, &closed).await;
    assert_eq!(kept, confirmed);
    assert_eq!(get(&c, &a, &closed).await, confirmed);
    assert_eq!(generate(&c, &a, &month).await.session_count, 1);
    // And the database refuses any change to it.
    for sql in [
        "update reconciliation_statement set total_fen = total_fen + 1 where enterprise_id = $1 and status = 3",
        "delete from reconciliation_card_line where enterprise_id = $1 and statement_id in \
         (select id from reconciliation_statement where status = 3)",
        "delete from reconciliation_statement_session where enterprise_id = $1",
    ] {
        assert!(execute(&c, &a, sql).await.is_err(), "{sql}");
    }

    // B's closed month, issued on demand: disputed, then reissued by the
    // operator (a user asking again gets it as it stands).
    execute(
        &c,
        &b,
        &format!(
            "update charging_session set statement_month = {} where enterprise_id = $1",
            code(&closed)
        ),
    )
    .await
    .unwrap();
    let issued = generate(&c, &b, &closed).await;
    assert_eq!(
        (issued.status, issued.session_count),
        (pb::ReconciliationStatus::PendingConfirmation as i32, 1)
    );
    let disputed = client
        .confirm_reconciliation_statement(c.stack.req(
            &b,
            pb::ConfirmReconciliationStatementRequest {
                statement_id: issued.id.clone(),
                accepted: false,
                expected_total_fen: issued.total_fen,
                dispute_reason: "金额与站点小票不符".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert_eq!(disputed.status, pb::ReconciliationStatus::Disputed as i32);
    assert_eq!(generate(&c, &b, &closed).await, disputed);
    let mut operator = fleetdesk_kit::internal_token::Claims::service("operator");
    operator.ent = Some(b.enterprise.to_string());
    let reissued = client
        .generate_reconciliation_statement(fleetdesk_kit::grpc::outgoing(
            pb::GenerateReconciliationStatementRequest {
                month: Some(closed),
            },
            &c.stack.signer,
            &operator,
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert_eq!(
        reissued.status,
        pb::ReconciliationStatus::PendingConfirmation as i32
    );
    assert_eq!(
        (
            reissued.session_count,
            reissued.total_fen,
            reissued.dispute_reason.as_str()
        ),
        (issued.session_count, issued.total_fen, "")
    );
    assert_ne!(reissued.file.unwrap().key, issued.file.unwrap().key);
}

/// The parts of `t`'s issued statement of `month`, as stored, and what the
/// ledger's revenue accounts of each part hold: (electricity, service,
/// time, parking, fixed, reservation).
async fn parts(c: &Charging, t: &Tenant, month: &common::YearMonth) -> ([i64; 6], [i64; 6]) {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    let stated: (i64, i64, i64, i64, i64, i64) = sqlx::query_as(
        "select electricity_fen, service_fee_fen, time_fee_fen, parking_fee_fen, fixed_fee_fen, \
         reservation_fee_fen from reconciliation_statement where enterprise_id = $1 and month = $2",
    )
    .bind(t.enterprise)
    .bind(code(month))
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    let mut booked = [0; 6];
    for (i, kind) in (6..=11).enumerate() {
        booked[i] = sqlx::query_scalar(
            "select coalesce(sum(balance_fen), 0)::bigint from ledger_account \
             where enterprise_id = $1 and kind = $2",
        )
        .bind(t.enterprise)
        .bind(kind as i16)
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    let (e, s, ti, p, f, r) = stated;
    ([e, s, ti, p, f, r], booked)
}

#[tokio::test]
async fn a_month_of_time_and_fixed_priced_cdrs_is_stated_part_by_part_as_the_ledger_booked_it() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let (month, month_start) = this_month();
    let closed = previous(&month);
    let card = c.card(&a, &[a.east, a.shanghai], Some(0), 30_000).await;
    let vat = |fen: i64| fleetdesk_ocpi::Price::fen_with_vat(fen, 13);
    // As the platform sends them: electricity and service only; plus time
    // and a start fee; time only, as OCPI's own example CDR (no energy cost).
    c.session(&card.card_no, 20, 60, 20).await;
    c.session_billed(&card.card_no, 15, 60, 30, |cdr| {
        cdr.total_cost = cdr
            .total_cost
            .plus(&vat(450))
            .unwrap()
            .plus(&vat(200))
            .unwrap();
        cdr.total_time_cost = Some(vat(450));
        cdr.total_fixed_cost = Some(vat(200));
    })
    .await;
    c.session_billed(&card.card_no, 10, 60, 40, |cdr| {
        cdr.total_cost = vat(880);
        cdr.total_energy_cost = None;
        cdr.x_total_service_fee = None;
        cdr.total_time_cost = Some(vat(880));
    })
    .await;
    let (sessions, _, total_fen) = settled(&c, &a).await;
    assert_eq!(sessions, 3);
    assert_eq!(captured_since(&c, &a, month_start).await, total_fen);

    execute(
        &c,
        &a,
        &format!(
            "update charging_session set statement_month = {} where enterprise_id = $1",
            code(&closed)
        ),
    )
    .await
    .unwrap();
    let files = FileStore::local(&c.stack.objects).unwrap();
    let issued = fleetdesk_energy::statements::job::round(
        &c.stack.owner,
        &files,
        month_start + Duration::hours(3),
    )
    .await
    .unwrap();
    assert_eq!(
        issued, 1,
        "the statement reconciles part by part, so it is issued"
    );
    let statement = get(&c, &a, &closed).await;
    assert_eq!(statement.total_fen, total_fen);
    let (stated, booked) = parts(&c, &a, &closed).await;
    assert_eq!(
        stated, booked,
        "statement parts = the ledger's revenue by part"
    );
    assert_eq!(stated[2], 450 + 880, "time");
    assert_eq!(stated[4], 200, "fixed");
    assert_eq!(stated.iter().sum::<i64>(), total_fen);
}
