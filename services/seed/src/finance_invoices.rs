//! Demo data of finance's invoices: demo enterprise A's invoice titles (a
//! company, the default, and a public institution without a tax number),
//! two addresses, and for each month whose bills the finance seed marks
//! invoiced, an application of those bills. The applications wait in the
//! issuing queue, so the running stack's worker issues them through the
//! invoicing stand-in: real 20-digit numbers and downloadable PDFs on the
//! first look, as a real platform would have issued them.
//!
//! Runs after [`crate::finance`] (whose bills it invoices: their invoiced
//! amounts are already set, so nothing is taken twice). Deterministic ids
//! (`demo_id`); idempotent: an enterprise with demo titles is skipped whole,
//! and everything is one transaction.

use chrono::{DateTime, Utc};
use fleetdesk_finance::bills::domain::Channel;
use fleetdesk_finance::invoice_addresses::{self, domain::AddressSpec};
use fleetdesk_finance::invoice_titles::{
    self,
    domain::{InvoiceTitleType, TitleSpec},
};
use fleetdesk_finance::invoices::convert::snapshot;
use fleetdesk_finance::invoices::domain::{ApplicationStatus, InvoiceType};
use fleetdesk_finance::invoices::store::{self as invoices, NewApplication};
use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub titles: usize,
    pub addresses: usize,
    pub applications: usize,
}

fn titles() -> [(Uuid, TitleSpec); 2] {
    [
        (
            demo_id("invoice-title:a-company"),
            TitleSpec {
                title_type: InvoiceTitleType::Company,
                name: "深圳市星途示范物流有限公司".to_owned(),
                tax_number: "91440300MA5F00027Y".to_owned(),
                tax_number_unchecked: false,
                registered_address: "深圳市南山区粤海街道高新南七道 18 号".to_owned(),
                registered_phone: "0755-26608800".to_owned(),
                bank_name: "招商银行深圳高新园支行".to_owned(),
                bank_account: "755912345620801".to_owned(),
                is_default: true,
            },
        ),
        (
            demo_id("invoice-title:a-institution"),
            TitleSpec {
                title_type: InvoiceTitleType::Institution,
                name: "深圳市南山区城市管理服务中心".to_owned(),
                tax_number: String::new(),
                tax_number_unchecked: false,
                registered_address: String::new(),
                registered_phone: String::new(),
                bank_name: String::new(),
                bank_account: String::new(),
                is_default: false,
            },
        ),
    ]
}

fn addresses() -> [(Uuid, AddressSpec); 2] {
    let shenzhen = |district_code: &str, district_name: &str| AddressSpec {
        province_code: "440000".to_owned(),
        province_name: "广东省".to_owned(),
        city_code: "440300".to_owned(),
        city_name: "深圳市".to_owned(),
        district_code: district_code.to_owned(),
        district_name: district_name.to_owned(),
        ..AddressSpec::default()
    };
    [
        (
            demo_id("invoice-address:a-finance"),
            AddressSpec {
                recipient_name: "林晓".to_owned(),
                recipient_phone: "13800138021".to_owned(),
                detail_address: "高新南七道 18 号 6 楼财务部".to_owned(),
                postal_code: "518057".to_owned(),
                email: "finance@xingtu-demo.cn".to_owned(),
                is_default: true,
                ..shenzhen("440305", "南山区")
            },
        ),
        (
            demo_id("invoice-address:a-ops"),
            AddressSpec {
                recipient_name: "周航".to_owned(),
                recipient_phone: "13900139022".to_owned(),
                detail_address: "福田保税区桃花路 9 号车队办公室".to_owned(),
                postal_code: "518038".to_owned(),
                email: String::new(),
                is_default: false,
                ..shenzhen("440304", "福田区")
            },
        ),
    ]
}

/// Loads enterprise A's titles, addresses and applications into the
/// finance schema (`finance`).
pub async fn run(finance: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let enterprise = demo_id("enterprise:a");
    let mut tx = db::begin_service(finance).await?;
    db::enter_tenant(&mut tx, enterprise).await?;
    let (company, _) = &titles()[0];
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from invoice_title where id = $1)")
            .bind(company)
            .fetch_one(&mut *tx)
            .await?;
    if exists {
        return Ok(Report::default());
    }
    let actor = crate::demo_admin();
    let fail =
        |what: &str, e: fleetdesk_kit::ServiceError| anyhow::anyhow!("{what}: {}", e.message);
    let mut report = Report::default();
    for (id, spec) in titles() {
        invoice_titles::store::insert(&mut tx, &actor, id, &spec)
            .await
            .map_err(|e| fail("a demo invoice title", e))?;
        report.titles += 1;
    }
    for (id, spec) in addresses() {
        invoice_addresses::store::insert(&mut tx, &actor, id, &spec)
            .await
            .map_err(|e| fail("a demo invoice address", e))?;
        report.addresses += 1;
    }
    let title = invoice_titles::convert::title(
        invoice_titles::store::get(&mut tx, enterprise, *company, false)
            .await
            .map_err(|e| fail("the demo title", e))?,
    );
    let address = invoice_addresses::convert::address(
        invoice_addresses::store::get(&mut tx, enterprise, addresses()[0].0)
            .await
            .map_err(|e| fail("the demo address", e))?,
    );
    // The bills the finance seed left invoiced in full, by period.
    let invoiced: Vec<(i32, Vec<Uuid>)> = sqlx::query_as(
        "select period, array_agg(id order by bill_no) from bill \
         where enterprise_id = $1 and status = 4 and invoiced_fen > 0 \
         and invoiced_fen = paid_fen group by period order by period",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    for (period, ids) in invoiced {
        let bills = fleetdesk_finance::bills::store::some(&mut tx, &actor, &ids, false)
            .await
            .map_err(|e| fail("the invoiced demo bills", e))?;
        let id = demo_id(&format!("invoice-application:{period}"));
        let new = NewApplication {
            id,
            application_no: format!(
                "FP{period}-{}",
                &id.simple().to_string()[..8].to_uppercase()
            ),
            // Enterprise A is B2B: it applies on the B2B screens.
            channel: i16::from(Channel::B2b),
            invoice_type: i16::from(InvoiceType::DigitalSpecial),
            title: snapshot(&title),
            address: Some(snapshot(&address)),
            bills: bills
                .into_iter()
                .map(|b| {
                    let amount = b.invoiced_fen;
                    (b, amount)
                })
                .collect(),
            content: String::new(),
            contract_no: "HT-XT-2026-008".to_owned(),
            purchase_order_no: String::new(),
            invoice_remark: format!("{} 年 {} 月账单", period / 100, period % 100),
        };
        invoices::insert(&mut tx, &actor, &new, i16::from(ApplicationStatus::Issuing))
            .await
            .map_err(|e| fail("a demo invoice application", e))?;
        // Applied when the month's bills were paid: a week after the month.
        sqlx::query(
            "update invoice_application set apply_time = least($2, to_timestamp($3::text, 'YYYYMM') + interval '1 month 10 days'), \
             review_time = least($2, to_timestamp($3::text, 'YYYYMM') + interval '1 month 10 days') \
             where id = $1",
        )
        .bind(id)
        .bind(now)
        .bind(period)
        .execute(&mut *tx)
        .await?;
        report.applications += 1;
    }
    tx.commit().await?;
    Ok(report)
}
