//! Invoices through the real gRPC server and the real invoicing stand-in
//! over a socket: titles (the GB 32100 check and its second confirmation),
//! addresses, applications never taking more than was paid (also when ten
//! race for one bill), issuing by the worker with the number and a PDF kept
//! in the object store, a platform failing before it succeeds, red-letter
//! reversal once, and another tenant seeing nothing.

use crate::support;

use std::time::Duration;

use fleetdesk_invoice_standin::StandIn;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, db, grpc, idempotency};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use support::{Stack, Tenant, err, line, month, new_bill, stack_with};
use uuid::Uuid;

/// A published code passing GB 32100.
const TAX_ID: &str = "9144030071526726XG";

/// The stand-in on a free port and finance issuing through it.
async fn invoicing_stack() -> (Stack, StandIn) {
    let (standin, config) = support::invoicing::standin().await;
    let s = stack_with(|finance| finance.issue_invoices_through(config).unwrap()).await;
    (s, standin)
}

/// A user call of `t` holding the invoice permissions.
fn user<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    let claims = Claims {
        iss: "gateway".into(),
        sub: format!("user:{}", t.user),
        ent: Some(t.enterprise.to_string()),
        acc: None,
        perms: ["as:invoice", "as:invoice:company", "bill:biz:pageInfo"]
            .iter()
            .map(|p| (*p).to_owned())
            .collect(),
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

/// A bill of `t` for `amount_fen` with `paid_fen` of it paid (as payments
/// record it).
async fn paid_bill(s: &Stack, t: &Tenant, source: &str, amount_fen: i64, paid_fen: i64) -> String {
    let bill = s
        .create_bill(new_bill(
            t,
            t.east,
            pb::BillKind::Rent,
            month(2026, 11),
            source,
            vec![line("11 月租金", "粤B12345", amount_fen)],
        ))
        .await
        .unwrap();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query(
        "update bill set paid_fen = $2, paid_time = now(), \
         status = case when $2 >= payable_fen then 4 when $2 > 0 then 3 else 2 end \
         where id = $1",
    )
    .bind(Uuid::parse_str(&bill.id).unwrap())
    .bind(paid_fen)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    bill.id
}

fn title_input(tax_number: &str) -> pb::InvoiceTitleInput {
    pb::InvoiceTitleInput {
        title_type: pb::InvoiceTitleType::Company as i32,
        name: "深圳市腾讯计算机系统有限公司".to_owned(),
        tax_number: tax_number.to_owned(),
        registered_address: "深圳市南山区科技中一路腾讯大厦".to_owned(),
        registered_phone: "0755-86013388".to_owned(),
        bank_name: "招商银行深圳分行高新园支行".to_owned(),
        bank_account: "755903358110201".to_owned(),
        is_default: true,
    }
}

async fn create_title(
    s: &Stack,
    t: &Tenant,
    input: pb::InvoiceTitleInput,
    confirmed: bool,
) -> Result<pb::InvoiceTitle, tonic::Status> {
    s.client
        .clone()
        .create_invoice_title(user(
            s,
            t,
            pb::CreateInvoiceTitleRequest {
                title: Some(input),
                tax_number_confirmed: confirmed,
            },
        ))
        .await
        .map(|r| r.into_inner().title.unwrap())
}

fn application(
    invoice_type: pb::InvoiceType,
    title_id: &str,
    bills: &[(&str, i64)],
) -> pb::ApplyInvoiceRequest {
    pb::ApplyInvoiceRequest {
        channel: pb::Channel::Standard as i32,
        invoice_type: invoice_type as i32,
        title_id: title_id.to_owned(),
        address_id: String::new(),
        bills: bills
            .iter()
            .map(|(bill_id, amount_fen)| pb::InvoiceBillAmount {
                bill_id: (*bill_id).to_owned(),
                amount_fen: *amount_fen,
            })
            .collect(),
        expected_total_fen: 0,
        content: String::new(),
        contract_no: String::new(),
        purchase_order_no: String::new(),
        invoice_remark: String::new(),
        idempotency_key: String::new(),
    }
}

async fn apply(
    s: &Stack,
    t: &Tenant,
    request: pb::ApplyInvoiceRequest,
) -> Result<pb::InvoiceApplication, tonic::Status> {
    s.client
        .clone()
        .apply_invoice(user(s, t, request))
        .await
        .map(|r| r.into_inner().application.unwrap())
}

async fn get(s: &Stack, t: &Tenant, id: &str) -> Result<pb::InvoiceApplication, tonic::Status> {
    s.client
        .clone()
        .get_invoice_application(user(
            s,
            t,
            pb::GetInvoiceApplicationRequest {
                application_id: id.to_owned(),
            },
        ))
        .await
        .map(|r| r.into_inner().application.unwrap())
}

/// Waits (up to 20 s) for application `id` to leave ISSUING.
async fn settled(s: &Stack, t: &Tenant, id: &str) -> pb::InvoiceApplication {
    for _ in 0..200 {
        let a = get(s, t, id).await.unwrap();
        if a.status != pb::InvoiceApplicationStatus::Issuing as i32 {
            return a;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("application {id} still issuing");
}

async fn cancel(
    s: &Stack,
    t: &Tenant,
    id: &str,
    reason: &str,
) -> Result<pb::InvoiceApplication, tonic::Status> {
    s.client
        .clone()
        .cancel_invoice_application(user(
            s,
            t,
            pb::CancelInvoiceApplicationRequest {
                application_id: id.to_owned(),
                reason: reason.to_owned(),
            },
        ))
        .await
        .map(|r| r.into_inner().application.unwrap())
}

/// Paid, refunded and invoiced fen of bill `id`, straight from the table.
async fn amounts(s: &Stack, id: &str) -> (i64, i64, i64, i16) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query_as(
        "select paid_fen, refunded_fen, invoiced_fen, invoice_state from bill where id = $1",
    )
    .bind(Uuid::parse_str(id).unwrap())
    .fetch_one(&mut *tx)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_tax_number_failing_gb32100_is_kept_only_after_a_second_confirmation() {
    let (s, _) = invoicing_stack().await;
    let a = &s.a;
    // The check character of the published code changed: refused, naming the field.
    let e = err(
        &create_title(&s, a, title_input("9144030071526726XA"), false)
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert_eq!(e.fields[0].field, "taxNumber");
    assert!(e.fields[0].message.contains("校验位"), "{e:?}");
    // Confirmed a second time, it is kept.
    let kept = create_title(&s, a, title_input("9144030071526726XA"), true)
        .await
        .unwrap();
    assert_eq!(kept.tax_number, "9144030071526726XA");
    // Confirmation does not let through what is no taxpayer id at all.
    let mut other = title_input("91-4403");
    other.name = "另一家公司".to_owned();
    assert!(create_title(&s, a, other, true).await.is_err());
    // A company needs one; an institution does not.
    let mut none = title_input("");
    none.name = "无税号公司".to_owned();
    let e = err(&create_title(&s, a, none.clone(), true).await.unwrap_err());
    assert_eq!(e.fields[0].field, "taxNumber");
    none.title_type = pb::InvoiceTitleType::Institution as i32;
    none.is_default = false;
    create_title(&s, a, none, false).await.unwrap();
    // A valid code passes at once; the name is unique; the default moves.
    let mut valid = title_input(TAX_ID);
    valid.name = "深圳市腾讯计算机系统有限公司（二）".to_owned();
    let valid = create_title(&s, a, valid, false).await.unwrap();
    let taken = err(&create_title(&s, a, title_input(TAX_ID), false)
        .await
        .unwrap_err());
    assert_eq!(taken.code, ErrorCode::Conflict);
    let listed = s
        .client
        .clone()
        .list_invoice_titles(user(
            &s,
            a,
            pb::ListInvoiceTitlesRequest {
                page: None,
                keyword: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.page.unwrap().total, 3);
    assert_eq!(listed.titles[0].id, valid.id);
    assert_eq!(listed.titles.iter().filter(|t| t.is_default).count(), 1);
}

#[tokio::test]
async fn addresses_mask_the_phone_keep_it_when_left_empty_and_move_the_default() {
    let (s, _) = invoicing_stack().await;
    let a = &s.a;
    let input = |name: &str, phone: &str| pb::InvoiceAddressInput {
        recipient_name: name.to_owned(),
        recipient_phone: phone.to_owned(),
        area: Some(common::Area {
            province_code: "440000".to_owned(),
            province_name: "广东省".to_owned(),
            city_code: "440300".to_owned(),
            city_name: "深圳市".to_owned(),
            district_code: "440305".to_owned(),
            district_name: "南山区".to_owned(),
        }),
        detail_address: "科技中一路 1 号".to_owned(),
        postal_code: "518057".to_owned(),
        email: "finance@example.com".to_owned(),
        is_default: true,
    };
    let mut client = s.client.clone();
    let first = client
        .create_invoice_address(user(
            &s,
            a,
            pb::CreateInvoiceAddressRequest {
                address: Some(input("王敏", "13800138000")),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .address
        .unwrap();
    assert_ne!(first.recipient_masked_phone, "13800138000");
    assert!(first.recipient_masked_phone.starts_with("138"));
    let e = err(&client
        .create_invoice_address(user(
            &s,
            a,
            pb::CreateInvoiceAddressRequest {
                address: Some(input("李雷", "")),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.fields[0].field, "recipientPhone");
    let updated = client
        .update_invoice_address(user(
            &s,
            a,
            pb::UpdateInvoiceAddressRequest {
                address_id: first.id.clone(),
                address: Some(input("王敏敏", "")),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .address
        .unwrap();
    assert_eq!(updated.recipient_name, "王敏敏");
    assert_eq!(updated.recipient_masked_phone, first.recipient_masked_phone);
    client
        .create_invoice_address(user(
            &s,
            a,
            pb::CreateInvoiceAddressRequest {
                address: Some(input("李雷", "13900139000")),
            },
        ))
        .await
        .unwrap();
    let listed = client
        .list_invoice_addresses(user(&s, a, pb::ListInvoiceAddressesRequest { page: None }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.addresses.len(), 2);
    assert_eq!(listed.addresses[0].recipient_name, "李雷");
    assert!(listed.addresses[0].is_default && !listed.addresses[1].is_default);
}

#[tokio::test]
async fn a_special_invoice_needs_the_buyers_address_phone_bank_and_account() {
    let (s, _) = invoicing_stack().await;
    let a = &s.a;
    let mut bare = title_input(TAX_ID);
    bare.bank_name = String::new();
    bare.bank_account = String::new();
    let title = create_title(&s, a, bare, false).await.unwrap();
    let bill = paid_bill(&s, a, "special-1", 10_000, 10_000).await;
    let e = err(&apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalSpecial, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap_err());
    assert_eq!(e.fields[0].field, "titleId");
    assert!(e.fields[0].message.contains("开户银行"), "{e:?}");
    // Nothing was taken by the refusal; a general invoice needs none of them.
    assert_eq!(amounts(&s, &bill).await.2, 0);
    let ordinary = apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    assert_eq!(ordinary.amount_fen, 10_000);
    // A paper invoice needs an address.
    let other = paid_bill(&s, a, "special-2", 5_000, 5_000).await;
    let e = err(&apply(
        &s,
        a,
        application(pb::InvoiceType::PaperGeneral, &title.id, &[(&other, 0)]),
    )
    .await
    .unwrap_err());
    assert_eq!(e.fields[0].field, "addressId");
}

#[tokio::test]
async fn applications_never_take_more_than_was_paid_even_racing() {
    let (s, _) = invoicing_stack().await;
    let a = &s.a;
    let title = create_title(&s, a, title_input(TAX_ID), false)
        .await
        .unwrap();
    // 1000.00 billed, 600.00 paid.
    let bill = paid_bill(&s, a, "paid-part", 100_000, 60_000).await;
    let unpaid = paid_bill(&s, a, "unpaid", 10_000, 0).await;
    let e = err(&apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&unpaid, 0)]),
    )
    .await
    .unwrap_err());
    assert_eq!(e.code, ErrorCode::BadRequest);
    let over = application(
        pb::InvoiceType::DigitalGeneral,
        &title.id,
        &[(&bill, 60_001)],
    );
    assert_eq!(
        err(&apply(&s, a, over).await.unwrap_err()).code,
        ErrorCode::Conflict
    );
    let mut first = application(
        pb::InvoiceType::DigitalGeneral,
        &title.id,
        &[(&bill, 40_000)],
    );
    first.expected_total_fen = 40_000;
    apply(&s, a, first).await.unwrap();
    assert_eq!(amounts(&s, &bill).await, (60_000, 0, 40_000, 2));
    let again = application(
        pb::InvoiceType::DigitalGeneral,
        &title.id,
        &[(&bill, 20_001)],
    );
    assert_eq!(
        err(&apply(&s, a, again).await.unwrap_err()).code,
        ErrorCode::Conflict
    );
    // The total the user saw changed: refused.
    let mut stale = application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]);
    stale.expected_total_fen = 60_000;
    assert_eq!(
        err(&apply(&s, a, stale).await.unwrap_err()).code,
        ErrorCode::Conflict
    );
    // What is left of the bill is listed as invoiceable, then nothing.
    let invoiceable = |s: &Stack| {
        let mut client = s.client.clone();
        let req = user(
            s,
            a,
            pb::ListInvoiceableBillsRequest {
                page: None,
                channel: 0,
                kinds: Vec::new(),
                bill_nos: Vec::new(),
                start_month: None,
                end_month: None,
            },
        );
        async move {
            client
                .list_invoiceable_bills(req)
                .await
                .unwrap()
                .into_inner()
        }
    };
    let listed = invoiceable(&s).await;
    assert_eq!(listed.total_invoiceable_fen, 20_000);
    assert_eq!(listed.bills.len(), 1);
    assert_eq!(listed.bills[0].id, bill);
    apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    assert_eq!(amounts(&s, &bill).await, (60_000, 0, 60_000, 3));
    assert_eq!(invoiceable(&s).await.total_invoiceable_fen, 0);

    // Ten applications race for all of one bill: one wins.
    let raced = paid_bill(&s, a, "raced", 30_000, 30_000).await;
    let mut tries = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let request = user(
            &s,
            a,
            application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&raced, 0)]),
        );
        let mut client = s.client.clone();
        tries.spawn(async move { client.apply_invoice(request).await });
    }
    let answers = tries.join_all().await;
    let won = answers.iter().filter(|r| r.is_ok()).count();
    assert_eq!(won, 1, "{answers:?}");
    for lost in answers.iter().filter_map(|r| r.as_ref().err()) {
        let e = err(lost);
        assert!(
            matches!(e.code, ErrorCode::Conflict | ErrorCode::BadRequest),
            "{e:?}"
        );
    }
    assert_eq!(amounts(&s, &raced).await.2, 30_000);

    // One key, one application: the repeat answers the first.
    let keyed = paid_bill(&s, a, "keyed", 8_000, 8_000).await;
    let keyed_request = || {
        let mut req = user(
            &s,
            a,
            application(
                pb::InvoiceType::DigitalGeneral,
                &title.id,
                &[(&keyed, 3_000)],
            ),
        );
        req.metadata_mut()
            .insert(idempotency::METADATA_KEY, "apply-once-1".parse().unwrap());
        req
    };
    let one = s
        .client
        .clone()
        .apply_invoice(keyed_request())
        .await
        .unwrap()
        .into_inner();
    let two = s
        .client
        .clone()
        .apply_invoice(keyed_request())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(one, two);
    assert_eq!(amounts(&s, &keyed).await.2, 3_000);
}

#[tokio::test]
async fn issuing_keeps_the_number_and_the_pdf_and_a_red_reversal_happens_once() {
    let (s, standin) = invoicing_stack().await;
    let a = &s.a;
    let title = create_title(&s, a, title_input(TAX_ID), false)
        .await
        .unwrap();
    let bill = paid_bill(&s, a, "issued", 113_000, 113_000).await;
    let mut request = application(pb::InvoiceType::DigitalSpecial, &title.id, &[(&bill, 0)]);
    request.contract_no = "HT-2026-001".to_owned();
    let applied = apply(&s, a, request).await.unwrap();
    assert_eq!(applied.status, pb::InvoiceApplicationStatus::Issuing as i32);
    let issued = settled(&s, a, &applied.id).await;
    assert_eq!(
        issued.status,
        pb::InvoiceApplicationStatus::Issued as i32,
        "{issued:?}"
    );
    let invoice = &issued.invoices[0];
    assert_eq!(invoice.invoice_number.len(), 20);
    assert!(invoice.invoice_number.bytes().all(|b| b.is_ascii_digit()));
    // 1130.00 with tax at the bill line's 6%: 1066.04 and 63.96.
    assert_eq!(
        (
            invoice.amount_fen,
            invoice.tax_fen,
            invoice.total_fen,
            invoice.tax_rate_bp
        ),
        (106_604, 6_396, 113_000, 600)
    );
    assert!(invoice.issue_time.is_some());
    let file = invoice.file.clone().unwrap();
    assert!(file.key.starts_with(&a.enterprise.to_string()));
    let files = fleetdesk_kit::files::FileStore::local(&s.objects).unwrap();
    let pdf = files.get_bytes(&file.key).await.unwrap();
    assert!(pdf.starts_with(b"%PDF"));
    assert_eq!(file.size_bytes, i64::try_from(pdf.len()).unwrap());
    let platform = standin.invoice(&invoice.invoice_number).unwrap();
    assert_eq!(platform.buyer.tax_id, TAX_ID);
    // Found by its number.
    let found = s
        .client
        .clone()
        .list_invoice_applications(user(
            &s,
            a,
            pb::ListInvoiceApplicationsRequest {
                invoice_number: invoice.invoice_number.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(found.applications.len(), 1);

    // A reversal needs its reason, then happens once and frees the money.
    assert_eq!(
        err(&cancel(&s, a, &issued.id, " ").await.unwrap_err()).fields[0].field,
        "reason"
    );
    let reversed = cancel(&s, a, &issued.id, "开票有误").await.unwrap();
    assert_eq!(
        reversed.status,
        pb::InvoiceApplicationStatus::Cancelled as i32
    );
    assert!(reversed.invoices[0].reversed);
    assert_eq!(amounts(&s, &bill).await, (113_000, 0, 0, 1));
    let twice = err(&cancel(&s, a, &issued.id, "开票有误").await.unwrap_err());
    assert_eq!(twice.code, ErrorCode::Conflict);
    assert_eq!(standin.counts().reversed, 1);
    // The money can be invoiced again.
    let again = apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalSpecial, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    assert_eq!(again.amount_fen, 113_000);
}

#[tokio::test]
async fn a_platform_failing_three_times_then_succeeding_issues_once() {
    let (s, standin) = invoicing_stack().await;
    let a = &s.a;
    standin.fail_next_issues(3, 50_301, "税局接口繁忙");
    let title = create_title(&s, a, title_input(TAX_ID), false)
        .await
        .unwrap();
    let bill = paid_bill(&s, a, "flaky", 10_600, 10_600).await;
    let applied = apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    let issued = settled(&s, a, &applied.id).await;
    assert_eq!(
        issued.status,
        pb::InvoiceApplicationStatus::Issued as i32,
        "{issued:?}"
    );
    assert_eq!(issued.invoices.len(), 1);
    let counts = standin.counts();
    assert_eq!((counts.failed, counts.issued), (3, 1));
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let attempts: i32 =
        sqlx::query_scalar("select attempts from invoice_application where id = $1")
            .bind(Uuid::parse_str(&applied.id).unwrap())
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    assert_eq!(attempts, 4);
}

#[tokio::test]
async fn a_platform_refusal_rejects_the_application_and_frees_the_money() {
    let (s, _) = invoicing_stack().await;
    let a = &s.a;
    // Kept after the second confirmation, but the platform checks it too.
    let title = create_title(&s, a, title_input("9144030071526726XA"), true)
        .await
        .unwrap();
    let bill = paid_bill(&s, a, "refused", 10_600, 10_600).await;
    let applied = apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    let rejected = settled(&s, a, &applied.id).await;
    assert_eq!(
        rejected.status,
        pb::InvoiceApplicationStatus::Rejected as i32
    );
    assert!(
        rejected.reject_reason.contains("统一社会信用代码"),
        "{rejected:?}"
    );
    assert_eq!(amounts(&s, &bill).await.2, 0);
}

#[tokio::test]
async fn tenant_b_sees_nothing_of_a() {
    let (s, _) = invoicing_stack().await;
    let (a, b) = (&s.a, &s.b);
    let title = create_title(&s, a, title_input(TAX_ID), false)
        .await
        .unwrap();
    let bill = paid_bill(&s, a, "a-only", 10_000, 10_000).await;
    let applied = apply(
        &s,
        a,
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
    )
    .await
    .unwrap();
    let mut client = s.client.clone();
    let titles = client
        .list_invoice_titles(user(&s, b, pb::ListInvoiceTitlesRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(titles.titles.is_empty());
    let listed = client
        .list_invoice_applications(user(&s, b, pb::ListInvoiceApplicationsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.applications.is_empty());
    let invoiceable = client
        .list_invoiceable_bills(user(&s, b, pb::ListInvoiceableBillsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(invoiceable.bills.is_empty());
    assert_eq!(
        err(&get(&s, b, &applied.id).await.unwrap_err()).code,
        ErrorCode::NotFound
    );
    assert_eq!(
        err(&cancel(&s, b, &applied.id, "x").await.unwrap_err()).code,
        ErrorCode::NotFound
    );
    // A's title and A's bill are not B's to use.
    let own_title = create_title(&s, b, title_input(TAX_ID), false)
        .await
        .unwrap();
    for request in [
        application(pb::InvoiceType::DigitalGeneral, &title.id, &[(&bill, 0)]),
        application(
            pb::InvoiceType::DigitalGeneral,
            &own_title.id,
            &[(&bill, 0)],
        ),
    ] {
        assert_eq!(
            err(&apply(&s, b, request).await.unwrap_err()).code,
            ErrorCode::NotFound
        );
    }
    let e = err(&client
        .delete_invoice_title(user(
            &s,
            b,
            pb::DeleteInvoiceTitleRequest {
                title_id: title.id.clone(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);
}
