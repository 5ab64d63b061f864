//! Demo insurance policies (carGuaranteeSlip): two years of compulsory (交强险)
//! and commercial (商业险) policies for every vehicle of enterprise A, the
//! last year's expired and this year's spread so that most are valid, some
//! end within 30 days and a few have run out unrenewed. Each carries a small
//! generated PDF (a real, valid document) stored in the object store under
//! the enterprise like the console's uploads (purpose `document`), and the
//! operation-log row recording it.
//!
//! Deterministic (ids and keys from `kit::demo_id`, periods from the plate's
//! position) and idempotent: the policies are written once per enterprise,
//! and a document that exists is not written again.

use chrono::{DateTime, Days, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_maintenance::insurance::domain::{Coverage, Document, Kind};
use fleetdesk_maintenance::insurance::store::BUSINESS_TYPE;
use fleetdesk_maintenance::odometer::beijing_day;
use sqlx::types::Json;
use sqlx_postgres::PgPool;
use uuid::Uuid;

const INSURERS: [&str; 4] = [
    "中国人民财产保险股份有限公司",
    "中国平安财产保险股份有限公司",
    "中国太平洋财产保险股份有限公司",
    "中华联合财产保险股份有限公司",
];

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub policies: usize,
    pub documents: usize,
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// 00:00 of `first` to 23:59:59 of the day before its anniversary (Beijing).
fn period(first: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let at = |d: NaiveDate, h, m, s| {
        beijing()
            .from_local_datetime(&d.and_hms_opt(h, m, s).expect("a valid time"))
            .single()
            .expect("a fixed offset has no gaps")
            .with_timezone(&Utc)
    };
    let last = first
        .checked_add_months(chrono::Months::new(12))
        .and_then(|d| d.pred_opt())
        .expect("a date a year on");
    (at(first, 0, 0, 0), at(last, 23, 59, 59))
}

/// A one-page PDF naming the policy (ASCII: the standard fonts have no CJK),
/// with a correct cross-reference table.
pub fn policy_pdf(lines: &[String]) -> Vec<u8> {
    let escape = |s: &str| {
        s.chars()
            .filter(char::is_ascii)
            .map(|c| match c {
                '(' | ')' | '\\' => format!("\\{c}"),
                c => c.to_string(),
            })
            .collect::<String>()
    };
    let mut text =
        String::from("BT /F1 14 Tf 56 780 Td (FLEETDESK DEMO INSURANCE POLICY) Tj\n/F1 11 Tf");
    for line in lines {
        text.push_str(&format!(" 0 -22 Td ({}) Tj\n", escape(line)));
    }
    text.push_str("ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] \
         /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
            .to_owned(),
        format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn coverages(kind: Kind, i: usize) -> Vec<Coverage> {
    let item = |name: &str, sum_yuan: i64, premium_yuan: i64| Coverage {
        name: name.to_owned(),
        sum_insured_fen: sum_yuan * 100,
        premium_fen: premium_yuan * 100,
        deductible_fen: 0,
    };
    match kind {
        // The statutory limits of 交强险.
        Kind::Compulsory => vec![
            item("死亡伤残赔偿限额", 180_000, 0),
            item("医疗费用赔偿限额", 18_000, 0),
            item("财产损失赔偿限额", 2_000, 0),
        ],
        _ => vec![
            item(
                "机动车损失保险",
                120_000 + 10_000 * (i % 8) as i64,
                1_800 + 40 * (i % 8) as i64,
            ),
            item(
                "第三者责任保险",
                [1_000_000, 1_500_000, 2_000_000][i % 3],
                [1_100, 1_300, 1_500][i % 3],
            ),
            item("车上人员责任保险（司机）", 50_000, 160),
        ],
    }
}

/// One policy as written, with its document's bytes.
struct Row {
    id: Uuid,
    vehicle: Uuid,
    org: Uuid,
    plate: String,
    kind: Kind,
    insurer: &'static str,
    policy_no: String,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    premium_fen: i64,
    coverages: Vec<Coverage>,
    document: Document,
    pdf: Vec<u8>,
}

pub async fn run(pool: &PgPool, store: &FileStore, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let actor = crate::demo_admin();
    let eid = actor.enterprise_id;
    let mut tx = db::begin_tenant(pool, eid).await?;
    let exists: bool = sqlx::query_scalar(
        "select exists(select 1 from insurance_policy where enterprise_id = $1)",
    )
    .bind(eid)
    .fetch_one(&mut *tx)
    .await?;
    let vehicles: Vec<(Uuid, String, Uuid)> = sqlx::query_as(
        "select id, plate_number, org_id from vehicle where enterprise_id = $1 \
         order by plate_number",
    )
    .bind(eid)
    .fetch_all(&mut *tx)
    .await?;
    let today = beijing_day(now);
    let mut rows = Vec::new();
    for (i, (vehicle, plate, org)) in vehicles.into_iter().enumerate() {
        // This year's policies started 0..385 days ago: past 365 they ran
        // out unrenewed, past 335 they end within 30 days.
        let days_ago = (i as u64 * 37 + 11) % 385;
        let first = today - Days::new(days_ago);
        for (cycle, start_day) in [
            (
                0,
                first
                    .checked_sub_months(chrono::Months::new(12))
                    .unwrap_or(first),
            ),
            (1, first),
        ] {
            let (start, end) = period(start_day);
            for kind in [Kind::Compulsory, Kind::Commercial] {
                let insurer = INSURERS[(i + cycle) % INSURERS.len()];
                let prefix = if kind == Kind::Compulsory {
                    "PDZA"
                } else {
                    "PDAA"
                };
                let policy_no = format!("{prefix}{}44{i:06}", start_day.format("%Y"));
                let items = coverages(kind, i);
                let premium_fen = match kind {
                    Kind::Compulsory => 95_000 + 5_000 * (i % 4) as i64,
                    _ => items.iter().map(|c| c.premium_fen).sum(),
                };
                let id = demo_id(&format!("insurance:{eid}:{policy_no}"));
                let name = format!("保单-{policy_no}.pdf");
                let pdf = policy_pdf(&[
                    format!("Policy No: {policy_no}"),
                    format!(
                        "Kind: {}",
                        if kind == Kind::Compulsory {
                            "Compulsory (JQX)"
                        } else {
                            "Commercial"
                        }
                    ),
                    format!("Vehicle: {}", plate.chars().skip(1).collect::<String>()),
                    format!(
                        "Period: {} 00:00 to {} 24:00 (Beijing)",
                        start_day,
                        beijing_day(end)
                    ),
                    format!(
                        "Premium: CNY {}.{:02}",
                        premium_fen / 100,
                        premium_fen % 100
                    ),
                ]);
                let document = Document {
                    key: files::key(eid, "document", &id.to_string(), &name),
                    name,
                    content_type: "application/pdf".to_owned(),
                    size_bytes: i64::try_from(pdf.len())?,
                };
                rows.push(Row {
                    id,
                    vehicle,
                    org,
                    plate: plate.clone(),
                    kind,
                    insurer,
                    policy_no,
                    start,
                    end,
                    premium_fen,
                    coverages: items,
                    document,
                    pdf,
                });
            }
        }
    }
    let mut report = Report::default();
    for row in &rows {
        if !store.exists(&row.document.key).await? {
            store
                .put(&row.document.key, bytes::Bytes::from(row.pdf.clone()))
                .await?;
            report.documents += 1;
        }
    }
    if exists {
        return Ok(report);
    }
    let column = |f: fn(&Row) -> String| rows.iter().map(f).collect::<Vec<_>>();
    sqlx::query(
        "with r as (select * from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], \
           $6::int2[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[], \
           $11::int8[], $12::jsonb[], $13::jsonb[], $14::text[]) as r(id, vehicle_id, org_id, \
           plate, kind, insurer, policy_no, start_time, end_time, premium_fen, coverages, \
           documents, remark)), \
         ins as (insert into insurance_policy (id, enterprise_id, org_id, vehicle_id, \
           plate_number, kind, insurer, policy_no, insured_name, start_time, end_time, \
           premium_fen, coverages, documents, created_by, created_by_name, updated_by_name, \
           created_at, updated_at) \
           select r.id, $1, r.org_id, r.vehicle_id, r.plate, r.kind, r.insurer, r.policy_no, \
             $15, r.start_time, r.end_time, r.premium_fen, r.coverages, r.documents, $16, $17, \
             $17, r.start_time - interval '7 days', r.start_time - interval '7 days' from r \
           on conflict on constraint insurance_policy_no_key do nothing \
           returning id, created_at) \
         insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
           operator_id, operator_name, created_at) \
         select gen_random_uuid(), $1, $18, ins.id, r.remark, $16, $17, ins.created_at \
         from ins join r on r.id = ins.id",
    )
    .bind(eid)
    .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.vehicle).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.org).collect::<Vec<_>>())
    .bind(column(|r| r.plate.clone()))
    .bind(rows.iter().map(|r| i16::from(r.kind)).collect::<Vec<_>>())
    .bind(column(|r| r.insurer.to_owned()))
    .bind(column(|r| r.policy_no.clone()))
    .bind(rows.iter().map(|r| r.start).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.end).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.premium_fen).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| Json(r.coverages.clone()))
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|r| Json(vec![r.document.clone()]))
            .collect::<Vec<_>>(),
    )
    .bind(column(|r| {
        format!(
            "录入保单：{} {}（保单号{}）",
            r.insurer,
            r.kind.label(),
            r.policy_no
        )
    }))
    .bind(crate::org::DEMO_ENTERPRISE)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(BUSINESS_TYPE)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    report.policies = rows.len();
    tracing::info!(
        policies = report.policies,
        documents = report.documents,
        "Demo insurance policies loaded."
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_pdf_is_a_pdf_whose_cross_references_point_at_its_objects() {
        let pdf = policy_pdf(&["Policy No: PDAA2026".to_owned(), "a (b) c".to_owned()]);
        let text = String::from_utf8(pdf.clone()).unwrap();
        assert!(text.starts_with("%PDF-1.4\n") && text.ends_with("%%EOF\n"));
        let xref: usize = text
            .rsplit("startxref\n")
            .next()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(text[xref..].starts_with("xref\n"));
        for (n, line) in text[xref..].lines().skip(3).take(5).enumerate() {
            let offset: usize = line[..10].parse().unwrap();
            assert!(
                text[offset..].starts_with(&format!("{} 0 obj", n + 1)),
                "{line}"
            );
        }
    }

    #[test]
    fn a_period_runs_from_midnight_to_the_last_second_of_the_year() {
        let (start, end) = period(NaiveDate::from_ymd_opt(2026, 1, 1).unwrap());
        assert_eq!(start.to_rfc3339(), "2025-12-31T16:00:00+00:00");
        assert_eq!(end.to_rfc3339(), "2026-12-31T15:59:59+00:00");
    }
}
