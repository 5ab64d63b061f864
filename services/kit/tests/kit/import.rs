//! Imports against real PostgreSQL: a stand-in domain (`import_thing`, a
//! code unique per enterprise) through kit::import's read, row checks,
//! duplicate checks and all-or-nothing write.

use chrono::NaiveDate;
use fleetdesk_kit::import::{self, Column, ErrorTable, ImportSchema, Parsed, Problem, SheetRow};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_testkit::TestDb;
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const COLUMNS: &[Column] = &[
    Column {
        title: "编码",
        required: true,
        example: "A00001",
    },
    Column {
        title: "名称",
        required: true,
        example: "一号车",
    },
    Column {
        title: "登记日期",
        required: false,
        example: "2024-01-31",
    },
];

struct Thing {
    code: String,
    name: String,
    registered: Option<NaiveDate>,
}

struct Things;

impl ImportSchema for Things {
    type Row = Thing;

    fn columns(&self) -> &'static [Column] {
        COLUMNS
    }

    fn parse(&self, row: &SheetRow) -> Result<Thing, Vec<Problem>> {
        let mut problems = Vec::new();
        let code = row.text("编码").to_uppercase();
        if code.len() != 6 || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
            problems.push(Problem::new("编码", "编码须为6位字母或数字"));
        }
        let name = row.text("名称");
        if name.is_empty() {
            problems.push(Problem::new("名称", "请填写名称"));
        }
        let registered = row.date("登记日期").unwrap_or_else(|reason| {
            problems.push(Problem::new("登记日期", reason));
            None
        });
        if problems.is_empty() {
            Ok(Thing {
                code,
                name,
                registered,
            })
        } else {
            Err(problems)
        }
    }

    fn keys(&self, row: &Thing) -> Vec<(&'static str, String)> {
        vec![("编码", row.code.clone())]
    }

    async fn check_existing(
        &self,
        conn: &mut PgConnection,
        rows: &[Parsed<Thing>],
    ) -> Result<ErrorTable, ServiceError> {
        let codes: Vec<String> = rows.iter().map(|r| r.value.code.clone()).collect();
        let taken: Vec<String> =
            sqlx::query_scalar("select code from import_thing where code = any($1)")
                .bind(&codes)
                .fetch_all(&mut *conn)
                .await?;
        let mut table = ErrorTable::default();
        for row in rows.iter().filter(|r| taken.contains(&r.value.code)) {
            table.push(row.row, "编码", format!("编码{}已存在", row.value.code));
        }
        Ok(table)
    }

    async fn write(
        &self,
        conn: &mut PgConnection,
        rows: Vec<Parsed<Thing>>,
    ) -> Result<i64, ServiceError> {
        let (codes, names, days): (Vec<String>, Vec<String>, Vec<Option<NaiveDate>>) = rows
            .into_iter()
            .map(|r| (r.value.code, r.value.name, r.value.registered))
            .fold(
                (Vec::new(), Vec::new(), Vec::new()),
                |mut acc, (c, n, d)| {
                    acc.0.push(c);
                    acc.1.push(n);
                    acc.2.push(d);
                    acc
                },
            );
        let written = sqlx::query(
            "insert into import_thing (enterprise_id, code, name, registered) \
             select current_setting('app.enterprise_id')::uuid, c, n, d \
             from unnest($1::text[], $2::text[], $3::date[]) as t(c, n, d)",
        )
        .bind(&codes)
        .bind(&names)
        .bind(&days)
        .execute(&mut *conn)
        .await?;
        Ok(written.rows_affected() as i64)
    }
}

async fn setup(db: &TestDb) -> (PgPool, PgPool) {
    let owner = db::connect_owner(&db.url, "kit_import_test", 2)
        .await
        .unwrap();
    sqlx::raw_sql(
        "create table import_thing (enterprise_id uuid not null, code text not null, \
         name text not null, registered date, primary key (enterprise_id, code))",
    )
    .execute(&owner)
    .await
    .unwrap();
    db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
    sqlx::query("select enable_tenant_rls('import_thing')")
        .execute(&owner)
        .await
        .unwrap();
    let app = db::connect(&db.url, "kit_import_test", 4).await.unwrap();
    (owner, app)
}

/// A workbook of `rows` under the header (titles in another order than the
/// template, with an extra column), dates as Excel dates.
fn workbook(rows: &[(String, String, Option<NaiveDate>)]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let date = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
    for (col, title) in ["名称", "备注", "登记日期", "编码"].iter().enumerate() {
        sheet.write_string(0, col as u16, *title).unwrap();
    }
    for (i, (code, name, day)) in rows.iter().enumerate() {
        let r = i as u32 + 1;
        sheet.write_string(r, 0, format!(" {name} ")).unwrap();
        sheet.write_string(r, 1, "x").unwrap();
        if let Some(day) = day {
            let at = rust_xlsxwriter::ExcelDateTime::from_ymd(
                u16::try_from(chrono::Datelike::year(day)).unwrap(),
                chrono::Datelike::month(day) as u8,
                chrono::Datelike::day(day) as u8,
            )
            .unwrap();
            sheet.write_datetime_with_format(r, 2, &at, &date).unwrap();
        }
        sheet.write_string(r, 3, code).unwrap();
    }
    book.save_to_buffer().unwrap()
}

fn thousand() -> Vec<(String, String, Option<NaiveDate>)> {
    (1..=1000)
        .map(|i| {
            (
                format!("a{i:05}"),
                format!("{i}号车"),
                NaiveDate::from_ymd_opt(2024, 1, 1 + (i % 28) as u32),
            )
        })
        .collect()
}

async fn count(owner: &PgPool, tenant: Uuid) -> i64 {
    sqlx::query_scalar("select count(*) from import_thing where enterprise_id = $1")
        .bind(tenant)
        .fetch_one(owner)
        .await
        .unwrap()
}

#[tokio::test]
async fn one_bad_row_in_a_thousand_writes_nothing_and_the_corrected_file_writes_all() {
    let db = TestDb::new().await;
    let (owner, app) = setup(&db).await;
    let tenant = Uuid::new_v4();
    let mut rows = thousand();
    rows[499].0 = "A-1".into();
    let result = import::run(&app, tenant, &Things, &workbook(&rows))
        .await
        .unwrap();
    assert_eq!(result.imported, 0);
    assert_eq!(result.error_header, ["行号", "列名", "错误原因"]);
    let errors: Vec<(i64, &str, &str)> = result
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(errors, [(501, "编码", "编码须为6位字母或数字")]);
    assert_eq!(count(&owner, tenant).await, 0, "nothing written");

    rows[499].0 = "a00500".into();
    let result = import::run(&app, tenant, &Things, &workbook(&rows))
        .await
        .unwrap();
    assert!(result.error_list.is_empty(), "{:?}", result.error_list);
    assert_eq!(result.imported, 1000);
    assert_eq!(count(&owner, tenant).await, 1000);
    let (name, day): (String, Option<NaiveDate>) = sqlx::query_as(
        "select name, registered from import_thing where enterprise_id = $1 and code = 'A00028'",
    )
    .bind(tenant)
    .fetch_one(&owner)
    .await
    .unwrap();
    assert_eq!(name, "28号车", "trimmed");
    assert_eq!(day, NaiveDate::from_ymd_opt(2024, 1, 1), "an Excel date");
}

#[tokio::test]
async fn duplicates_in_the_file_and_against_stored_rows_are_reported() {
    let db = TestDb::new().await;
    let (owner, app) = setup(&db).await;
    let tenant = Uuid::new_v4();
    let first: Vec<_> = thousand().into_iter().take(3).collect();
    import::run(&app, tenant, &Things, &workbook(&first))
        .await
        .unwrap();
    assert_eq!(count(&owner, tenant).await, 3);

    // Row 2 repeats a stored code; rows 3 and 5 repeat each other.
    let rows = vec![
        ("A00002".to_owned(), "重复已有".to_owned(), None),
        ("B00001".to_owned(), "第一次".to_owned(), None),
        ("B00002".to_owned(), "正常".to_owned(), None),
        ("b00001".to_owned(), "文件内重复".to_owned(), None),
    ];
    let result = import::run(&app, tenant, &Things, &workbook(&rows))
        .await
        .unwrap();
    let errors: Vec<(i64, &str, &str)> = result
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(
        errors,
        [(5, "编码", "编码与第3行重复")],
        "checked in the file first"
    );

    let rows: Vec<_> = rows.into_iter().take(3).collect();
    let result = import::run(&app, tenant, &Things, &workbook(&rows))
        .await
        .unwrap();
    let errors: Vec<(i64, &str, &str)> = result
        .error_list
        .iter()
        .map(|e| (e.row, e.column.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(errors, [(2, "编码", "编码A00002已存在")]);
    assert_eq!(count(&owner, tenant).await, 3, "nothing more written");

    // The same codes in another enterprise are no clash.
    let other = Uuid::new_v4();
    let result = import::run(&app, other, &Things, &workbook(&first))
        .await
        .unwrap();
    assert_eq!(result.imported, 3);
}
