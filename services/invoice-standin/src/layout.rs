//! The invoice as the platform's PDF lays it out (240 × 140 mm, landscape):
//! the title and its double rule, number and date at the top right; a
//! frame with the buyer and the seller side by side, the lines table, the
//! totals, the total with tax in capitals and figures, the remarks; the
//! drawer below. Lines that do not fit on one page continue on the next,
//! each page repeating the frame and the totals.

use crate::capitals::capitals;
use crate::invoice::{Colour as InvoiceColour, Invoice, Line, Party};
use crate::pdf::{self, BLACK, Colour, Page};

/// 240 × 140 mm in points.
const SIZE: (f32, f32) = (680.3, 396.9);
const LEFT: f32 = 28.0;
const RIGHT: f32 = SIZE.0 - 28.0;
/// The frame's brown, as printed on real invoices.
const FRAME: Colour = Colour(0.60, 0.30, 0.15);
const RED: Colour = Colour(0.80, 0.10, 0.10);

const FRAME_TOP: f32 = SIZE.1 - 78.0;
const PARTY_HEIGHT: f32 = 62.0;
const HEADER_HEIGHT: f32 = 14.0;
const TOTALS_HEIGHT: f32 = 16.0;
const CAPITALS_HEIGHT: f32 = 18.0;
const REMARKS_HEIGHT: f32 = 40.0;
const FRAME_BOTTOM: f32 = 40.0;
/// Room for the lines between the header and the totals.
const TABLE_HEIGHT: f32 = FRAME_TOP
    - PARTY_HEIGHT
    - HEADER_HEIGHT
    - TOTALS_HEIGHT
    - CAPITALS_HEIGHT
    - REMARKS_HEIGHT
    - FRAME_BOTTOM;

const ROW: f32 = 13.0;
const TEXT: f32 = 8.0;

/// The columns: header, left edge, right edge, right-aligned.
const COLUMNS: [(&str, f32, f32, bool); 8] = [
    ("项目名称", LEFT, 218.0, false),
    ("规格型号", 218.0, 290.0, false),
    ("单位", 290.0, 325.0, false),
    ("数量", 325.0, 385.0, true),
    ("单价", 385.0, 455.0, true),
    ("金额", 455.0, 535.0, true),
    ("税率/征收率", 535.0, 585.0, true),
    ("税额", 585.0, RIGHT, true),
];

/// Fen as yuan with two decimals.
pub fn yuan(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let fen = fen.unsigned_abs();
    format!("{sign}{}.{:02}", fen / 100, fen % 100)
}

/// A rate's text ("0.06") as a percentage ("6%").
fn percent(rate: &str) -> String {
    let (_, fraction) = rate.split_once('.').unwrap_or((rate, ""));
    let padded = format!("{fraction:0<4}");
    let (whole, rest) = padded.split_at(2);
    let whole = whole.trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let rest = rest.trim_end_matches('0');
    if rest.is_empty() {
        format!("{whole}%")
    } else {
        format!("{whole}.{rest}%")
    }
}

/// A line's cells, in column order.
fn cells(line: &Line) -> [String; 8] {
    [
        line.name.clone(),
        line.specification.clone(),
        line.unit.clone(),
        line.quantity.clone(),
        line.unit_price.clone(),
        yuan(line.amount),
        percent(&line.tax_rate),
        yuan(line.tax),
    ]
}

/// The name wrapped to its column: a line's height is its tallest cell.
fn name_lines(line: &Line) -> Vec<String> {
    let (_, left, right, _) = COLUMNS[0];
    pdf::wrap(&line.name, TEXT, right - left - 6.0)
}

/// Lines split into pages by the room the table has.
fn paginate(lines: &[Line]) -> Vec<&[Line]> {
    let mut pages = Vec::new();
    let mut start = 0;
    let mut used = 0.0;
    for (i, line) in lines.iter().enumerate() {
        let height = name_lines(line).len().max(1) as f32 * ROW;
        if used + height > TABLE_HEIGHT && i > start {
            pages.push(&lines[start..i]);
            start = i;
            used = 0.0;
        }
        used += height;
    }
    pages.push(&lines[start..]);
    pages
}

fn party(page: &mut Page, label: &str, p: &Party, (left, right): (f32, f32), top: f32) {
    // The label stacked vertically in its own narrow column.
    let label_right = left + 16.0;
    page.line(
        (label_right, top),
        (label_right, top - PARTY_HEIGHT),
        0.6,
        FRAME,
    );
    let chars: Vec<char> = label.chars().collect();
    let step = PARTY_HEIGHT / (chars.len() as f32 + 1.0);
    for (i, c) in chars.iter().enumerate() {
        page.text_centred(
            left + 8.0,
            top - step * (i as f32 + 1.0) - 3.0,
            TEXT,
            FRAME,
            &c.to_string(),
        );
    }
    let x = label_right + 5.0;
    let width = right - x - 4.0;
    let rows = [
        ("名称：", p.name.as_str()),
        ("统一社会信用代码/纳税人识别号：", p.tax_id.as_str()),
        ("地址、电话：", &format!("{} {}", p.address, p.phone)),
        ("开户行及账号：", &format!("{} {}", p.bank, p.account)),
    ];
    for (i, (caption, value)) in rows.iter().enumerate() {
        let y = top - 13.0 - i as f32 * 13.5;
        page.text(x, y, 7.0, FRAME, caption);
        let value_x = x + pdf::text_width(caption, 7.0);
        let size = fit(value, TEXT, width - (value_x - x));
        page.text(value_x, y, size, BLACK, value.trim());
    }
}

/// `size`, or smaller so that `text` fits `width` (not below 4 points).
fn fit(text: &str, size: f32, width: f32) -> f32 {
    let at_one = pdf::text_width(text, 1.0);
    if at_one <= 0.0 {
        size
    } else {
        size.min(width / at_one).max(4.0)
    }
}

fn draw_page(invoice: &Invoice, lines: &[Line], (n, of): (usize, usize)) -> Page {
    let mut page = Page::new();
    let (width, height) = SIZE;
    let title = invoice.invoice_type.title();
    page.text_centred(width / 2.0, height - 46.0, 18.0, FRAME, title);
    let rule = pdf::text_width(title, 18.0) / 2.0 + 6.0;
    for y in [height - 52.0, height - 55.0] {
        page.line((width / 2.0 - rule, y), (width / 2.0 + rule, y), 0.8, FRAME);
    }
    if invoice.colour == InvoiceColour::Red {
        page.text(LEFT, height - 46.0, 14.0, RED, "红字");
    }
    let date = invoice.issued_at.format("%Y年%m月%d日").to_string();
    for (i, (caption, value)) in [
        ("发票号码：", invoice.invoice_no.as_str()),
        ("开票日期：", &date),
    ]
    .iter()
    .enumerate()
    {
        let y = height - 36.0 - i as f32 * 14.0;
        page.text(RIGHT - 150.0, y, TEXT, FRAME, caption);
        page.text(RIGHT - 110.0, y, TEXT, BLACK, value);
    }

    // The frame and its rows.
    page.rect(
        (LEFT, FRAME_BOTTOM),
        (RIGHT - LEFT, FRAME_TOP - FRAME_BOTTOM),
        1.0,
        FRAME,
    );
    let middle = (LEFT + RIGHT) / 2.0;
    let party_bottom = FRAME_TOP - PARTY_HEIGHT;
    page.line((middle, FRAME_TOP), (middle, party_bottom), 0.6, FRAME);
    party(
        &mut page,
        "购买方信息",
        &invoice.buyer,
        (LEFT, middle),
        FRAME_TOP,
    );
    party(
        &mut page,
        "销售方信息",
        &invoice.seller,
        (middle, RIGHT),
        FRAME_TOP,
    );
    page.line((LEFT, party_bottom), (RIGHT, party_bottom), 0.6, FRAME);

    let header_y = party_bottom - 10.0;
    for (caption, left, right, numeric) in COLUMNS {
        if numeric {
            page.text_right(right - 3.0, header_y, TEXT, FRAME, caption);
        } else {
            page.text_centred((left + right) / 2.0, header_y, TEXT, FRAME, caption);
        }
    }
    let mut y = party_bottom - HEADER_HEIGHT - 10.0;
    for line in lines {
        let names = name_lines(line);
        for (cell, (_, left, right, numeric)) in cells(line).iter().zip(COLUMNS).skip(1) {
            let size = fit(cell, TEXT, right - left - 6.0);
            if numeric {
                page.text_right(right - 3.0, y, size, BLACK, cell);
            } else {
                page.text(left + 3.0, y, size, BLACK, cell);
            }
        }
        for name in &names {
            page.text(LEFT + 3.0, y, TEXT, BLACK, name);
            y -= ROW;
        }
        if names.is_empty() {
            y -= ROW;
        }
    }

    let totals_top = FRAME_BOTTOM + REMARKS_HEIGHT + CAPITALS_HEIGHT + TOTALS_HEIGHT;
    let totals_y = totals_top - 11.0;
    page.text_centred((LEFT + 218.0) / 2.0, totals_y, TEXT, FRAME, "合　　计");
    let (_, _, amount_right, _) = COLUMNS[5];
    let (_, _, tax_right, _) = COLUMNS[7];
    page.text_right(
        amount_right - 3.0,
        totals_y,
        TEXT,
        BLACK,
        &format!("￥{}", yuan(invoice.total_amount)),
    );
    page.text_right(
        tax_right - 3.0,
        totals_y,
        TEXT,
        BLACK,
        &format!("￥{}", yuan(invoice.total_tax)),
    );

    let capitals_top = totals_top - TOTALS_HEIGHT;
    page.line((LEFT, capitals_top), (RIGHT, capitals_top), 0.6, FRAME);
    let capitals_y = capitals_top - 12.0;
    page.text(LEFT + 6.0, capitals_y, TEXT, FRAME, "价税合计（大写）");
    page.text(
        LEFT + 90.0,
        capitals_y,
        TEXT,
        BLACK,
        &capitals(invoice.total_with_tax),
    );
    page.text(455.0, capitals_y, TEXT, FRAME, "（小写）");
    page.text(
        490.0,
        capitals_y,
        TEXT,
        BLACK,
        &format!("￥{}", yuan(invoice.total_with_tax)),
    );

    let remarks_top = FRAME_BOTTOM + REMARKS_HEIGHT;
    page.line((LEFT, remarks_top), (RIGHT, remarks_top), 0.6, FRAME);
    page.line(
        (LEFT + 16.0, remarks_top),
        (LEFT + 16.0, FRAME_BOTTOM),
        0.6,
        FRAME,
    );
    page.text_centred(LEFT + 8.0, remarks_top - 16.0, TEXT, FRAME, "备");
    page.text_centred(LEFT + 8.0, remarks_top - 30.0, TEXT, FRAME, "注");
    for (i, text) in pdf::wrap(&invoice.remarks, 7.0, RIGHT - LEFT - 30.0)
        .iter()
        .take(4)
        .enumerate()
    {
        page.text(
            LEFT + 22.0,
            remarks_top - 10.0 - i as f32 * 9.0,
            7.0,
            BLACK,
            text,
        );
    }

    page.text(LEFT, FRAME_BOTTOM - 16.0, TEXT, FRAME, "开票人：");
    page.text(
        LEFT + 34.0,
        FRAME_BOTTOM - 16.0,
        TEXT,
        BLACK,
        &invoice.drawer,
    );
    page.text_right(
        RIGHT,
        FRAME_BOTTOM - 16.0,
        TEXT,
        FRAME,
        &format!("第 {n} 页 / 共 {of} 页"),
    );
    page
}

/// The invoice's PDF.
pub fn render(invoice: &Invoice) -> Vec<u8> {
    let pages = paginate(&invoice.lines);
    let count = pages.len();
    let drawn: Vec<Page> = pages
        .into_iter()
        .enumerate()
        .map(|(i, lines)| draw_page(invoice, lines, (i + 1, count)))
        .collect();
    let title = format!("{} {}", invoice.invoice_type.title(), invoice.invoice_no);
    pdf::document(SIZE, &title, &drawn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_rates_read_as_printed() {
        assert_eq!(yuan(123_456), "1234.56");
        assert_eq!(yuan(5), "0.05");
        assert_eq!(yuan(-10_000), "-100.00");
        assert_eq!(percent("0.06"), "6%");
        assert_eq!(percent("0.13"), "13%");
        assert_eq!(percent("0.015"), "1.5%");
        assert_eq!(percent("0"), "0%");
    }

    #[test]
    fn many_lines_continue_on_further_pages() {
        let line = Line {
            name: "货物运输服务".to_owned(),
            ..Line::default()
        };
        let lines = vec![line; 30];
        let pages = paginate(&lines);
        assert!(pages.len() > 1);
        assert_eq!(pages.iter().map(|p| p.len()).sum::<usize>(), 30);
        assert_eq!(paginate(&[]).len(), 1);
    }
}
