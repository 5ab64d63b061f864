//! Bulk imports (docs/ARCHITECTURE.md §3): an xls or xlsx file is read into rows by
//! header title (any column order, extra columns ignored, cells trimmed),
//! every row is checked by the domain's parser, duplicates inside the file
//! are found by the domain's keys, and the problems are collected into the
//! spec's error table `{errorHeader, errorList: [{row, column, reason}]}`.
//! If the table is empty the domain writes every row in one transaction;
//! otherwise nothing is written and the import RPC answers the table.
//!
//! Also the template download: an xlsx with the header row and one example.

use std::collections::HashMap;
use std::io::Cursor;

use calamine::{Data, Reader as _};
use chrono::{Duration, NaiveDate, NaiveDateTime};
use fleetdesk_proto::common::v1 as pb;

use crate::error::ServiceError;

/// Rows one import may hold (the 10 MB limit allows roughly this many).
pub const MAX_ROWS: usize = 50_000;

/// Titles of the error table's columns (spec: errorHeader).
pub const ERROR_HEADER: [&str; 3] = ["行号", "列名", "错误原因"];

/// One column an import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The header title, e.g. 车牌号.
    pub title: &'static str,
    /// Whether a row must fill it (the parser still decides what is valid).
    pub required: bool,
    /// The template's example value.
    pub example: &'static str,
}

/// One problem of one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// The spreadsheet's row number (the header is row 1).
    pub row: i64,
    /// The column title; empty for the whole row.
    pub column: String,
    pub reason: String,
}

/// The error table: empty when every row is fine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorTable {
    pub errors: Vec<RowError>,
}

impl ErrorTable {
    pub fn push(&mut self, row: i64, column: &str, reason: impl Into<String>) {
        self.errors.push(RowError {
            row,
            column: column.to_owned(),
            reason: reason.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The answer of an import that wrote nothing.
    pub fn into_result(mut self) -> pb::ImportResult {
        self.errors.sort_by_key(|e| e.row);
        pb::ImportResult {
            imported: 0,
            error_header: ERROR_HEADER.iter().map(|s| (*s).to_owned()).collect(),
            error_list: self
                .errors
                .into_iter()
                .map(|e| pb::ImportRowError {
                    row: e.row,
                    column: e.column,
                    reason: e.reason,
                })
                .collect(),
        }
    }
}

/// The answer of an import that wrote `imported` rows.
pub fn imported(imported: i64) -> pb::ImportResult {
    pb::ImportResult {
        imported,
        error_header: Vec::new(),
        error_list: Vec::new(),
    }
}

/// One cell as read.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Text(String),
    Number(f64),
    /// An Excel date or date-time serial (days since 1899-12-30).
    Date(f64),
    Empty,
}

/// One data row of the file, its cells in the import's column order.
#[derive(Debug, Clone)]
pub struct SheetRow {
    /// The spreadsheet's row number (the header is row 1).
    pub number: i64,
    values: Vec<Value>,
    titles: &'static [Column],
}

/// A problem a parser found in one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub column: &'static str,
    pub reason: String,
}

impl Problem {
    pub fn new(column: &'static str, reason: impl Into<String>) -> Problem {
        Problem {
            column,
            reason: reason.into(),
        }
    }
}

/// A number as the text a person typed: integers without a decimal point
/// (phone numbers and IDs typed into number cells stay intact).
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// The date of an Excel serial (1900 system; days since 1899-12-30).
fn serial_date(serial: f64) -> Option<NaiveDateTime> {
    if !(1.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let epoch = NaiveDate::from_ymd_opt(1899, 12, 30)?.and_hms_opt(0, 0, 0)?;
    let millis = (serial * 86_400_000.0).round() as i64;
    epoch.checked_add_signed(Duration::milliseconds(millis))
}

/// A date typed as text: 2024-03-01, 2024/3/1, 2024.03.01 or 20240301,
/// optionally followed by a time.
fn text_date(text: &str) -> Option<NaiveDate> {
    let day = text.split([' ', 'T']).next()?.trim();
    for format in ["%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d", "%Y%m%d", "%Y年%m月%d日"] {
        if let Ok(date) = NaiveDate::parse_from_str(day, format) {
            return Some(date);
        }
    }
    None
}

impl SheetRow {
    fn value(&self, column: &str) -> &Value {
        self.titles
            .iter()
            .position(|c| c.title == column)
            .and_then(|i| self.values.get(i))
            .unwrap_or(&Value::Empty)
    }

    /// The cell of `column` as trimmed text; dates as `YYYY-MM-DD`.
    pub fn text(&self, column: &str) -> String {
        match self.value(column) {
            Value::Text(text) => text.clone(),
            Value::Number(n) => number_text(*n),
            Value::Date(serial) => serial_date(*serial)
                .map(|d| d.date().format("%Y-%m-%d").to_string())
                .unwrap_or_else(|| number_text(*serial)),
            Value::Empty => String::new(),
        }
    }

    /// The cell of `column` as a date: an Excel date or serial, or text.
    /// `Ok(None)` when empty; `Err` with the reason when unreadable.
    pub fn date(&self, column: &str) -> Result<Option<NaiveDate>, String> {
        let bad = || format!("{column}格式不正确，请填写如 2024-01-31 的日期");
        match self.value(column) {
            Value::Empty => Ok(None),
            Value::Date(serial) | Value::Number(serial) => {
                serial_date(*serial).map(|d| Some(d.date())).ok_or_else(bad)
            }
            Value::Text(text) => text_date(text).map(Some).ok_or_else(bad),
        }
    }

    fn is_blank(&self) -> bool {
        self.values.iter().all(|v| match v {
            Value::Text(t) => t.is_empty(),
            Value::Empty => true,
            Value::Number(_) | Value::Date(_) => false,
        })
    }
}

fn value_of(cell: &Data) -> Value {
    match cell {
        Data::String(text) | Data::DateTimeIso(text) | Data::DurationIso(text) => {
            let text = text.trim();
            if text.is_empty() {
                Value::Empty
            } else {
                Value::Text(text.to_owned())
            }
        }
        Data::Float(n) => Value::Number(*n),
        Data::Int(n) => Value::Number(*n as f64),
        Data::Bool(b) => Value::Text(if *b { "是" } else { "否" }.to_owned()),
        Data::DateTime(at) => Value::Date(at.as_f64()),
        Data::Error(_) | Data::Empty => Value::Empty,
    }
}

fn unreadable() -> ServiceError {
    ServiceError::invalid("file", "文件无法读取，请使用导入模板（xls/xlsx）")
}

/// Reads the first sheet of an xls/xlsx file into rows of `columns`.
/// Header problems (a missing column) come back as the error table.
pub fn read(
    bytes: &[u8],
    columns: &'static [Column],
) -> Result<Result<Vec<SheetRow>, ErrorTable>, ServiceError> {
    let mut workbook =
        calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|_| unreadable())?;
    let range = workbook
        .worksheet_range_at(0)
        .ok_or_else(unreadable)?
        .map_err(|_| unreadable())?;
    let (first_row, _) = range.start().unwrap_or((0, 0));
    let mut rows = range.rows().enumerate();
    // The header is the first row with any text in it.
    let mut header_at = None;
    for (offset, row) in rows.by_ref() {
        if row.iter().any(|c| !matches!(value_of(c), Value::Empty)) {
            header_at = Some((offset, row));
            break;
        }
    }
    let Some((header_offset, header)) = header_at else {
        return Err(ServiceError::invalid("file", "文件中没有数据"));
    };
    let titles: Vec<String> = header
        .iter()
        .map(|c| match value_of(c) {
            Value::Text(t) => t.replace(['*', '＊'], "").trim().to_owned(),
            _ => String::new(),
        })
        .collect();
    let header_number = i64::from(first_row) + header_offset as i64 + 1;
    let mut missing = ErrorTable::default();
    let mut index = Vec::with_capacity(columns.len());
    for column in columns {
        match titles.iter().position(|t| t == column.title) {
            Some(i) => index.push(Some(i)),
            None if column.required => {
                missing.push(
                    header_number,
                    column.title,
                    format!("缺少“{}”列", column.title),
                );
                index.push(None);
            }
            None => index.push(None),
        }
    }
    if !missing.is_empty() {
        return Ok(Err(missing));
    }
    let mut out = Vec::new();
    for (offset, row) in rows {
        let values = index
            .iter()
            .map(|i| i.and_then(|i| row.get(i)).map_or(Value::Empty, value_of))
            .collect();
        let parsed = SheetRow {
            number: i64::from(first_row) + offset as i64 + 1,
            values,
            titles: columns,
        };
        if parsed.is_blank() {
            continue;
        }
        if out.len() == MAX_ROWS {
            return Err(ServiceError::invalid(
                "file",
                format!("单次导入最多{MAX_ROWS}行"),
            ));
        }
        out.push(parsed);
    }
    if out.is_empty() {
        return Err(ServiceError::invalid("file", "文件中没有数据"));
    }
    Ok(Ok(out))
}

/// A row that passed its parser.
#[derive(Debug, Clone)]
pub struct Parsed<R> {
    /// The spreadsheet's row number.
    pub row: i64,
    pub value: R,
}

/// Checks every row with `parse` and finds rows whose `keys` repeat an
/// earlier row's (each key is a column title and its normalised value).
/// Answers the parsed rows, or the error table when any row failed.
pub fn validate<R>(
    rows: &[SheetRow],
    parse: impl Fn(&SheetRow) -> Result<R, Vec<Problem>>,
    keys: impl Fn(&R) -> Vec<(&'static str, String)>,
) -> Result<Vec<Parsed<R>>, ErrorTable> {
    let mut table = ErrorTable::default();
    let mut parsed = Vec::with_capacity(rows.len());
    let mut seen: HashMap<(&'static str, String), i64> = HashMap::new();
    for row in rows {
        match parse(row) {
            Ok(value) => {
                for (column, key) in keys(&value) {
                    if key.is_empty() {
                        continue;
                    }
                    match seen.get(&(column, key.clone())) {
                        Some(first) => {
                            table.push(row.number, column, format!("{column}与第{first}行重复"))
                        }
                        None => {
                            seen.insert((column, key), row.number);
                        }
                    }
                }
                parsed.push(Parsed {
                    row: row.number,
                    value,
                });
            }
            Err(problems) => {
                for problem in problems {
                    table.push(row.number, problem.column, problem.reason);
                }
            }
        }
    }
    if table.is_empty() {
        Ok(parsed)
    } else {
        Err(table)
    }
}

/// One domain's import: its columns, its row parser and the checks and
/// write that need the database.
pub trait ImportSchema: Sync {
    /// A row ready to write.
    type Row: Send + Sync;

    /// The columns the file must (or may) have, in template order.
    fn columns(&self) -> &'static [Column];

    /// Checks one row; every problem found, not just the first.
    fn parse(&self, row: &SheetRow) -> Result<Self::Row, Vec<Problem>>;

    /// Values that must be unique within the file, by column title
    /// (normalised, e.g. upper-case plates); empty values are not compared.
    fn keys(&self, row: &Self::Row) -> Vec<(&'static str, String)>;

    /// Rows that clash with data already stored (a duplicate plate, an
    /// unknown organisation), in the transaction that will write them.
    fn check_existing(
        &self,
        conn: &mut sqlx_postgres::PgConnection,
        rows: &[Parsed<Self::Row>],
    ) -> impl std::future::Future<Output = Result<ErrorTable, ServiceError>> + Send;

    /// Writes every row; returns how many were written.
    fn write(
        &self,
        conn: &mut sqlx_postgres::PgConnection,
        rows: Vec<Parsed<Self::Row>>,
    ) -> impl std::future::Future<Output = Result<i64, ServiceError>> + Send;
}

/// Reads, checks and writes an import of `enterprise_id`, all or nothing:
/// the answer is the row count, or the error table with nothing written.
pub async fn run<S: ImportSchema>(
    pool: &sqlx_postgres::PgPool,
    enterprise_id: uuid::Uuid,
    schema: &S,
    file: &[u8],
) -> Result<pb::ImportResult, ServiceError> {
    let rows = match read(file, schema.columns())? {
        Ok(rows) => rows,
        Err(table) => return Ok(table.into_result()),
    };
    let parsed = match validate(&rows, |row| schema.parse(row), |row| schema.keys(row)) {
        Ok(parsed) => parsed,
        Err(table) => return Ok(table.into_result()),
    };
    drop(rows);
    let mut tx = crate::db::begin_tenant(pool, enterprise_id).await?;
    let clashes = schema.check_existing(&mut tx, &parsed).await?;
    if !clashes.is_empty() {
        tx.rollback().await?;
        return Ok(clashes.into_result());
    }
    let written = schema.write(&mut tx, parsed).await?;
    tx.commit().await?;
    Ok(imported(written))
}

/// The import template: the header row (required titles in bold) and one
/// example row, every cell text so long digits stay as typed.
pub fn template(columns: &[Column]) -> Result<Vec<u8>, ServiceError> {
    let build = || -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        let sheet = workbook.add_worksheet();
        let text = rust_xlsxwriter::Format::new().set_num_format("@");
        let required = rust_xlsxwriter::Format::new()
            .set_bold()
            .set_num_format("@");
        for (col, column) in columns.iter().enumerate() {
            let col = u16::try_from(col).unwrap_or(u16::MAX);
            sheet.set_column_width(col, 20)?;
            sheet.set_column_format(col, &text)?;
            let format = if column.required { &required } else { &text };
            sheet.write_string_with_format(0, col, column.title, format)?;
            sheet.write_string_with_format(1, col, column.example, &text)?;
        }
        workbook.save_to_buffer()
    };
    build().map_err(|e| ServiceError::internal(&e))
}

/// Yuan as a sheet types it (at most two decimals, thousands separators
/// allowed, never negative), in fen; `None` when it is not such an amount.
pub fn fen_of_yuan(text: &str) -> Option<i64> {
    let text = text.trim().replace(',', "");
    let (whole, cents) = text.split_once('.').unwrap_or((&text, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || cents.len() > 2 || !digits(cents) {
        return None;
    }
    let cents: i64 = format!("{cents:0<2}").parse().ok()?;
    whole
        .parse::<i64>()
        .ok()?
        .checked_mul(100)?
        .checked_add(cents)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: &[Column] = &[
        Column {
            title: "名称",
            required: true,
            example: "甲",
        },
        Column {
            title: "电话",
            required: false,
            example: "13800000001",
        },
        Column {
            title: "日期",
            required: false,
            example: "2024-01-31",
        },
    ];

    fn sheet(rows: &[&[&str]]) -> Vec<u8> {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        let ws = workbook.add_worksheet();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                if let Some(n) = cell.strip_prefix('#') {
                    ws.write_number(r, c, n.parse::<f64>().unwrap()).unwrap();
                } else {
                    ws.write_string(r, c, *cell).unwrap();
                }
            }
        }
        workbook.save_to_buffer().unwrap()
    }

    #[test]
    fn columns_are_found_by_title_in_any_order_and_cells_trimmed() {
        let file = sheet(&[
            &["其他", "日期", " 名称* ", "电话"],
            &["x", "#45322", "  甲  ", "#13800000001"],
            &["", "", "", ""],
            &["y", "2024/3/5", "乙", " 139 "],
        ]);
        let rows = read(&file, COLUMNS).unwrap().unwrap();
        assert_eq!(rows.len(), 2, "the blank row is skipped");
        assert_eq!(rows[0].number, 2);
        assert_eq!(rows[0].text("名称"), "甲");
        assert_eq!(rows[0].text("电话"), "13800000001");
        assert_eq!(
            rows[0].date("日期").unwrap(),
            NaiveDate::from_ymd_opt(2024, 1, 31)
        );
        assert_eq!(rows[1].number, 4);
        assert_eq!(rows[1].text("电话"), "139");
        assert_eq!(
            rows[1].date("日期").unwrap(),
            NaiveDate::from_ymd_opt(2024, 3, 5)
        );
    }

    #[test]
    fn a_missing_required_column_is_reported_on_the_header_row() {
        let file = sheet(&[&["电话"], &["1"]]);
        let table = read(&file, COLUMNS).unwrap().unwrap_err();
        assert_eq!(
            table.errors,
            vec![RowError {
                row: 1,
                column: "名称".into(),
                reason: "缺少“名称”列".into()
            }]
        );
        assert!(read(b"not a spreadsheet", COLUMNS).is_err());
    }

    #[test]
    fn problems_and_in_file_duplicates_fill_the_table() {
        let file = sheet(&[
            &["名称", "日期"],
            &["甲", "2024-01-01"],
            &["", "2024-01-02"],
            &["甲", "bad"],
            &["乙", ""],
        ]);
        let rows = read(&file, COLUMNS).unwrap().unwrap();
        let parse = |row: &SheetRow| {
            let mut problems = Vec::new();
            let name = row.text("名称");
            if name.is_empty() {
                problems.push(Problem::new("名称", "请填写名称"));
            }
            if let Err(reason) = row.date("日期") {
                problems.push(Problem::new("日期", reason));
            }
            if problems.is_empty() {
                Ok(name)
            } else {
                Err(problems)
            }
        };
        let table = validate(&rows, parse, |name| vec![("名称", name.clone())]).unwrap_err();
        let result = table.into_result();
        assert_eq!(result.error_header, ERROR_HEADER);
        let listed: Vec<(i64, &str, &str)> = result
            .error_list
            .iter()
            .map(|e| (e.row, e.column.as_str(), e.reason.as_str()))
            .collect();
        assert_eq!(
            listed,
            vec![
                (3, "名称", "请填写名称"),
                (4, "日期", "日期格式不正确，请填写如 2024-01-31 的日期"),
            ]
        );
        let fine = sheet(&[&["名称"], &["甲"], &["乙"], &["甲"]]);
        let rows = read(&fine, COLUMNS).unwrap().unwrap();
        let table =
            validate(&rows, |r| Ok(r.text("名称")), |n| vec![("名称", n.clone())]).unwrap_err();
        assert_eq!(
            table.errors,
            vec![RowError {
                row: 4,
                column: "名称".into(),
                reason: "名称与第2行重复".into()
            }]
        );
    }

    #[test]
    fn the_template_reads_back_as_one_example_row() {
        let file = template(COLUMNS).unwrap();
        let rows = read(&file, COLUMNS).unwrap().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].text("名称"), "甲");
        assert_eq!(rows[0].text("电话"), "13800000001");
        assert_eq!(
            rows[0].date("日期").unwrap(),
            NaiveDate::from_ymd_opt(2024, 1, 31)
        );
    }

    #[test]
    fn yuan_cells_are_read_as_fen() {
        assert_eq!(fen_of_yuan("200"), Some(20_000));
        assert_eq!(fen_of_yuan(" 1,200.5 "), Some(120_050));
        assert_eq!(fen_of_yuan("0.05"), Some(5));
        assert_eq!(fen_of_yuan("200.505"), None);
        assert_eq!(fen_of_yuan("-1"), None);
        assert_eq!(fen_of_yuan(""), None);
        assert_eq!(fen_of_yuan("99999999999999999999"), None);
    }
}
