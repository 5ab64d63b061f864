//! A statement's workbook: a summary sheet, the organisation and card lines,
//! and every session, written with rust_xlsxwriter in constant memory (the
//! session sheet streams page by page, a new sheet at Excel's row limit).
//! Money is a number of yuan (two decimals) and energy of kWh (three), so
//! the sheet sums in Excel; the figures come from integer fen and Wh.

use std::path::Path;

use chrono::{DateTime, Utc};
use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};
use tokio::sync::mpsc::Receiver;

use super::domain::{Figures, StatementStatus};
use super::store::{CardLineRow, DetailRow, OrgLineRow};
use crate::calendar::{Month, shanghai};

/// Sheet names, in order.
pub const SUMMARY_SHEET: &str = "汇总";
pub const ORG_SHEET: &str = "按组织";
pub const CARD_SHEET: &str = "按充电卡";
pub const DETAIL_SHEET: &str = "充电明细";

/// The figure columns every sheet ends in.
const FIGURE_HEADER: [&str; 12] = [
    "充电次数",
    "充电量(kWh)",
    "电费(元)",
    "服务费(元)",
    "停车费(元)",
    "时长费(元)",
    "启动费(元)",
    "预约费(元)",
    "优惠(元)",
    "未收回(元)",
    "退款(元)",
    "金额(元)",
];

const ORG_HEADER: [&str; 2] = ["组织", "充电卡数"];
const CARD_HEADER: [&str; 4] = ["充电卡号", "组织", "车牌号", "司机"];
const DETAIL_HEADER: [&str; 11] = [
    "订单号",
    "组织",
    "充电卡号",
    "车牌号",
    "司机",
    "充电站",
    "城市",
    "桩号",
    "开始时间",
    "结束时间",
    "结算时间",
];

/// What the summary sheet states.
#[derive(Debug, Clone)]
pub struct Summary {
    pub statement_no: String,
    pub month: Month,
    pub status: StatementStatus,
    pub figures: Figures,
    pub card_count: i32,
    pub ledger_captured_fen: i64,
    pub generated_at: DateTime<Utc>,
}

struct Formats {
    bold: Format,
    money: Format,
    energy: Format,
}

/// Yuan from fen, for a number cell (exact to the cent for any amount a
/// statement holds).
fn yuan(fen: i64) -> f64 {
    fen as f64 / 100.0
}

fn kwh(wh: i64) -> f64 {
    wh as f64 / 1000.0
}

fn moment(at: Option<DateTime<Utc>>) -> String {
    at.map(|t| {
        t.with_timezone(&shanghai())
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    })
    .unwrap_or_default()
}

fn col(index: usize) -> u16 {
    u16::try_from(index).unwrap_or(u16::MAX)
}

fn header(sheet: &mut Worksheet, titles: &[&str], f: &Formats) -> Result<(), XlsxError> {
    for (i, title) in titles.iter().chain(FIGURE_HEADER.iter()).enumerate() {
        sheet.set_column_width(col(i), 14)?;
        sheet.write_string_with_format(0, col(i), *title, &f.bold)?;
    }
    Ok(())
}

/// Writes `figures` from column `first` on.
fn figures(
    sheet: &mut Worksheet,
    row: u32,
    first: usize,
    figures: &Figures,
    f: &Formats,
) -> Result<(), XlsxError> {
    sheet.write_number(row, col(first), figures.session_count as f64)?;
    sheet.write_number_with_format(row, col(first + 1), kwh(figures.energy_wh), &f.energy)?;
    // One amount per money column of FIGURE_HEADER (after count and energy).
    let money: [i64; FIGURE_HEADER.len() - 2] = [
        figures.electricity_fen,
        figures.service_fee_fen,
        figures.parking_fee_fen,
        figures.time_fee_fen,
        figures.fixed_fee_fen,
        figures.reservation_fee_fen,
        figures.discount_fen,
        figures.uncollected_fen,
        figures.refunded_fen,
        figures.total_fen,
    ];
    for (i, fen) in money.into_iter().enumerate() {
        sheet.write_number_with_format(row, col(first + 2 + i), yuan(fen), &f.money)?;
    }
    Ok(())
}

fn summary_sheet(book: &mut Workbook, s: &Summary, f: &Formats) -> Result<(), XlsxError> {
    let sheet = book.add_worksheet_with_constant_memory()?;
    sheet.set_name(SUMMARY_SHEET)?;
    sheet.set_column_width(0, 16)?;
    sheet.set_column_width(1, 24)?;
    let texts = [
        ("对账单号", s.statement_no.clone()),
        ("账期", s.month.label()),
        ("状态", s.status.label().to_owned()),
        ("生成时间", moment(Some(s.generated_at))),
    ];
    sheet.write_string_with_format(0, 0, "项目", &f.bold)?;
    sheet.write_string_with_format(0, 1, "数值", &f.bold)?;
    let mut row = 1;
    for (label, value) in texts {
        sheet.write_string(row, 0, label)?;
        sheet.write_string(row, 1, value)?;
        row += 1;
    }
    let counts = [
        ("充电次数", s.figures.session_count as f64),
        ("充电卡数", f64::from(s.card_count)),
    ];
    for (label, value) in counts {
        sheet.write_string(row, 0, label)?;
        sheet.write_number(row, 1, value)?;
        row += 1;
    }
    sheet.write_string(row, 0, "充电量(kWh)")?;
    sheet.write_number_with_format(row, 1, kwh(s.figures.energy_wh), &f.energy)?;
    row += 1;
    let money = [
        ("电费(元)", s.figures.electricity_fen),
        ("服务费(元)", s.figures.service_fee_fen),
        ("停车费(元)", s.figures.parking_fee_fen),
        ("时长费(元)", s.figures.time_fee_fen),
        ("启动费(元)", s.figures.fixed_fee_fen),
        ("预约费(元)", s.figures.reservation_fee_fen),
        ("优惠(元)", s.figures.discount_fen),
        ("未收回(元)", s.figures.uncollected_fen),
        ("退款(元)", s.figures.refunded_fen),
        ("应付金额(元)", s.figures.total_fen),
        ("账本扣款(元)", s.ledger_captured_fen),
    ];
    for (label, fen) in money {
        sheet.write_string(row, 0, label)?;
        sheet.write_number_with_format(row, 1, yuan(fen), &f.money)?;
        row += 1;
    }
    Ok(())
}

fn org_sheet(book: &mut Workbook, orgs: &[OrgLineRow], f: &Formats) -> Result<(), XlsxError> {
    let sheet = book.add_worksheet_with_constant_memory()?;
    sheet.set_name(ORG_SHEET)?;
    header(sheet, &ORG_HEADER, f)?;
    for (i, line) in orgs.iter().enumerate() {
        let row = u32::try_from(i + 1).unwrap_or(u32::MAX);
        sheet.write_string(row, 0, &line.org_name)?;
        sheet.write_number(row, 1, f64::from(line.card_count))?;
        figures(sheet, row, ORG_HEADER.len(), &line.figures, f)?;
    }
    Ok(())
}

fn card_sheet(book: &mut Workbook, cards: &[CardLineRow], f: &Formats) -> Result<(), XlsxError> {
    let sheet = book.add_worksheet_with_constant_memory()?;
    sheet.set_name(CARD_SHEET)?;
    header(sheet, &CARD_HEADER, f)?;
    for (i, line) in cards.iter().enumerate() {
        let row = u32::try_from(i + 1).unwrap_or(u32::MAX);
        for (c, text) in [
            &line.card_no,
            &line.org_name,
            &line.plate_number,
            &line.driver_name,
        ]
        .into_iter()
        .enumerate()
        {
            sheet.write_string(row, col(c), text)?;
        }
        figures(sheet, row, CARD_HEADER.len(), &line.figures, f)?;
    }
    Ok(())
}

/// Writes the workbook to `target` (temporary files in `temp`): the summary,
/// organisation and card sheets, then every session `details` sends until
/// the sender closes, a new sheet after `sheet_rows` sessions. (A sender
/// that failed half-way closes too: its caller then keeps nothing.)
pub fn write(
    target: &Path,
    temp: &Path,
    summary: &Summary,
    orgs: &[OrgLineRow],
    cards: &[CardLineRow],
    details: &mut Receiver<Vec<DetailRow>>,
    sheet_rows: u32,
) -> Result<(), XlsxError> {
    let mut book = Workbook::new();
    book.set_tempdir(temp)?;
    let f = Formats {
        bold: Format::new().set_bold(),
        money: Format::new().set_num_format("0.00"),
        energy: Format::new().set_num_format("0.000"),
    };
    summary_sheet(&mut book, summary, &f)?;
    org_sheet(&mut book, orgs, &f)?;
    card_sheet(&mut book, cards, &f)?;
    let mut sheets = 0;
    let mut row_in_sheet = 0u32;
    let mut sheet: Option<&mut Worksheet> = None;
    let mut started = false;
    while let Some(page) = details.blocking_recv() {
        for d in page {
            if !started || row_in_sheet >= sheet_rows {
                sheets += 1;
                let next = book.add_worksheet_with_constant_memory()?;
                next.set_name(if sheets == 1 {
                    DETAIL_SHEET.to_owned()
                } else {
                    format!("{DETAIL_SHEET}{sheets}")
                })?;
                header(next, &DETAIL_HEADER, &f)?;
                sheet = Some(next);
                row_in_sheet = 0;
                started = true;
            }
            let target = sheet.as_deref_mut().expect("a sheet was just added");
            row_in_sheet += 1;
            let texts = [
                d.session_no,
                d.org_name,
                d.card_no,
                d.plate_number,
                d.driver_name,
                d.station_name,
                d.city_name,
                d.pile_no,
                moment(Some(d.start_time)),
                moment(d.end_time),
                moment(d.settle_time),
            ];
            for (c, text) in texts.into_iter().enumerate() {
                target.write_string(row_in_sheet, col(c), text)?;
            }
            figures(target, row_in_sheet, DETAIL_HEADER.len(), &d.figures, &f)?;
        }
    }
    if !started {
        // A month without sessions still has its (empty) detail sheet.
        let only = book.add_worksheet_with_constant_memory()?;
        only.set_name(DETAIL_SHEET)?;
        header(only, &DETAIL_HEADER, &f)?;
    }
    book.save(target)
}

#[cfg(test)]
mod tests {
    use calamine::{Data, Reader as _};
    use chrono::TimeZone;
    use uuid::Uuid;

    use super::*;

    fn parts() -> Figures {
        Figures {
            session_count: 1,
            energy_wh: 20_000,
            electricity_fen: 1_000,
            service_fee_fen: 300,
            parking_fee_fen: 100,
            time_fee_fen: 200,
            fixed_fee_fen: 50,
            reservation_fee_fen: 25,
            total_fen: 1_675,
            ..Figures::default()
        }
    }

    fn rows(path: &Path, sheet: &str) -> Vec<Vec<Data>> {
        let mut book = calamine::open_workbook_auto(path).unwrap();
        let range = book.worksheet_range(sheet).unwrap();
        range.rows().map(<[Data]>::to_vec).collect()
    }

    #[test]
    fn every_sheet_shows_each_part_of_the_cost_beside_parking() {
        let dir = std::env::temp_dir().join(format!("workbook-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("statement.xlsx");
        let at = Utc.with_ymd_and_hms(2026, 11, 2, 1, 0, 0).unwrap();
        let summary = Summary {
            statement_no: "CS202611-00000000".into(),
            month: Month::new(2026, 11).unwrap(),
            status: StatementStatus::PendingConfirmation,
            figures: parts(),
            card_count: 1,
            ledger_captured_fen: 1_675,
            generated_at: at,
        };
        let org = OrgLineRow {
            statement_id: Uuid::from_u128(1),
            org_id: Uuid::from_u128(2),
            org_name: "华东".into(),
            figures: parts(),
            card_count: 1,
        };
        let (sender, mut details) = tokio::sync::mpsc::channel(1);
        sender
            .try_send(vec![DetailRow {
                id: Uuid::from_u128(3),
                session_no: "S1".into(),
                org_name: "华东".into(),
                card_no: "AB12345678".into(),
                plate_number: String::new(),
                driver_name: String::new(),
                station_name: String::new(),
                city_name: String::new(),
                pile_no: String::new(),
                start_time: at,
                end_time: None,
                settle_time: None,
                start_soc: None,
                end_soc: None,
                figures: parts(),
            }])
            .unwrap();
        drop(sender);
        write(&target, &dir, &summary, &[org], &[], &mut details, 100).unwrap();

        let value = |title: &str, row: &[Data]| match row {
            [Data::String(label), Data::Float(yuan), ..] if label == title => Some(*yuan),
            _ => None,
        };
        let summary = rows(&target, SUMMARY_SHEET);
        let stated = |title: &str| summary.iter().find_map(|r| value(title, r)).unwrap();
        assert_eq!(
            ["停车费(元)", "时长费(元)", "启动费(元)", "预约费(元)"].map(stated),
            [1.0, 2.0, 0.5, 0.25]
        );
        for (sheet, first) in [
            (ORG_SHEET, ORG_HEADER.len()),
            (DETAIL_SHEET, DETAIL_HEADER.len()),
        ] {
            let rows = rows(&target, sheet);
            let column =
                |title: &str| first + FIGURE_HEADER.iter().position(|h| *h == title).unwrap();
            assert_eq!(
                rows[0][column("时长费(元)")],
                Data::String("时长费(元)".into())
            );
            assert_eq!(
                [
                    "电费(元)",
                    "停车费(元)",
                    "时长费(元)",
                    "启动费(元)",
                    "预约费(元)",
                    "金额(元)"
                ]
                .map(|t| rows[1][column(t)].clone()),
                [10.0, 1.0, 2.0, 0.5, 0.25, 16.75].map(Data::Float),
                "{sheet}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
