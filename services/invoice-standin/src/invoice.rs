//! What the platform accepts and keeps: the issue request, its checks as
//! the platform makes them, and issued invoices (blue, and red-letter
//! reversals of them). Pure: no I/O, no clock, no state.

use chrono::{DateTime, Datelike, FixedOffset};
use serde::{Deserialize, Serialize};

use crate::credit_code;

/// The invoice kinds the platform issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InvoiceType {
    /// 增值税专用发票: the buyer may deduct its input tax.
    Special,
    /// 普通发票.
    Ordinary,
}

impl InvoiceType {
    fn parse(code: &str) -> Option<InvoiceType> {
        match code {
            "SPECIAL" => Some(InvoiceType::Special),
            "ORDINARY" => Some(InvoiceType::Ordinary),
            _ => None,
        }
    }

    /// The title printed on the document.
    pub fn title(self) -> &'static str {
        match self {
            InvoiceType::Special => "电子发票（增值税专用发票）",
            InvoiceType::Ordinary => "电子发票（普通发票）",
        }
    }
}

/// Blue invoices are issued; red ones reverse a blue one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Colour {
    Blue,
    Red,
}

/// Where an invoice stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Issued,
    /// A red-letter invoice reverses it.
    Reversed,
}

/// Buyer or seller as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Party {
    pub name: String,
    /// Unified social credit code (统一社会信用代码/纳税人识别号).
    pub tax_id: String,
    pub address: String,
    pub phone: String,
    /// Bank of the account (开户银行).
    pub bank: String,
    pub account: String,
}

/// One line of goods or services.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Line {
    pub name: String,
    /// Tax classification code (税收分类编码), 19 digits.
    pub tax_code: String,
    pub specification: String,
    pub unit: String,
    /// Decimal text, optional (with `unit_price`).
    pub quantity: String,
    /// Decimal text in yuan excluding tax, optional (with `quantity`).
    pub unit_price: String,
    /// Fen, excluding tax.
    pub amount: i64,
    /// Decimal text: "0.06", "0.09", "0.13", …
    pub tax_rate: String,
    /// Fen.
    pub tax: i64,
}

/// `POST /openapi/v1/invoices/issue`'s body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IssueRequest {
    pub request_no: String,
    /// `SPECIAL` or `ORDINARY`.
    pub invoice_type: String,
    pub buyer: Party,
    pub lines: Vec<Line>,
    pub total_amount: i64,
    pub total_tax: i64,
    pub total_with_tax: i64,
    pub remarks: String,
}

/// `POST /openapi/v1/invoices/red`'s body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RedRequest {
    pub request_no: String,
    /// The blue invoice reversed.
    pub invoice_no: String,
    /// One of [`RED_REASONS`].
    pub reason: String,
}

/// The reasons the platform accepts for a reversal (冲红原因).
pub const RED_REASONS: [&str; 4] = ["开票有误", "销货退回", "服务中止", "销售折让"];

/// Tax rates the platform knows, in basis points.
const RATES_BP: [i64; 8] = [0, 100, 150, 300, 500, 600, 900, 1300];
/// Most lines one invoice carries here.
pub const MAX_LINES: usize = 100;
const MAX_REMARKS: usize = 200;
const MAX_NAME: usize = 100;

/// A refused request: the field (as in the JSON) and why, in Chinese.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// A request number: 1 to 64 of letters, digits, `-` and `_`.
pub fn check_request_no(request_no: &str) -> Result<(), Invalid> {
    let ok = (1..=64).contains(&request_no.len())
        && request_no
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "requestNo",
            "请求流水号必填，1 至 64 位字母、数字、-或_",
        ))
    }
}

/// A positive decimal with at most 9 integer and 8 fraction digits, as
/// (digits without the point, fraction digits).
fn decimal(text: &str) -> Option<(i128, u32)> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || whole.len() > 9 || fraction.len() > 8 {
        return None;
    }
    if !digits_ok(whole) || !digits_ok(fraction) || (text.contains('.') && fraction.is_empty()) {
        return None;
    }
    let value: i128 = format!("{whole}{fraction}").parse().ok()?;
    (value > 0).then_some((value, fraction.len() as u32))
}

/// A tax rate's basis points, if the platform knows it.
fn rate_bp(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole != "0" || fraction.len() > 4 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let bp: i64 = format!("{fraction:0<4}").parse().ok()?;
    RATES_BP.contains(&bp).then_some(bp)
}

/// The tax on `amount` fen at `bp`, rounded half away from zero.
pub fn tax_of(amount: i64, bp: i64) -> i64 {
    let exact = i128::from(amount) * i128::from(bp);
    let rounded = (exact.abs() + 5_000) / 10_000;
    let rounded = i64::try_from(rounded).unwrap_or(i64::MAX);
    if exact < 0 { -rounded } else { rounded }
}

fn check_party(buyer: &Party, kind: InvoiceType) -> Result<(), Invalid> {
    let name = buyer.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(invalid("buyer.name", "购买方名称必填，不超过 100 字"));
    }
    if kind == InvoiceType::Special && buyer.tax_id.is_empty() {
        return Err(invalid(
            "buyer.taxId",
            "增值税专用发票须填写购买方统一社会信用代码/纳税人识别号",
        ));
    }
    if !buyer.tax_id.is_empty()
        && let Some(problem) = credit_code::problem(&buyer.tax_id)
    {
        return Err(invalid("buyer.taxId", problem));
    }
    if kind == InvoiceType::Special {
        for (field, value, label) in [
            ("buyer.address", &buyer.address, "地址"),
            ("buyer.phone", &buyer.phone, "电话"),
            ("buyer.bank", &buyer.bank, "开户银行"),
            ("buyer.account", &buyer.account, "银行账号"),
        ] {
            if value.trim().is_empty() {
                return Err(invalid(field, format!("增值税专用发票须填写购买方{label}")));
            }
        }
    }
    Ok(())
}

fn check_line(i: usize, line: &Line, kind: InvoiceType) -> Result<(), Invalid> {
    let field = |name: &str| format!("lines[{i}].{name}");
    let row = i + 1;
    let name = line.name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(invalid(
            field("name"),
            format!("第 {row} 行项目名称必填，不超过 100 字"),
        ));
    }
    if line.tax_code.len() != 19 || !line.tax_code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(
            field("taxCode"),
            format!("第 {row} 行税收分类编码须为 19 位数字"),
        ));
    }
    if line.amount <= 0 {
        return Err(invalid(
            field("amount"),
            format!("第 {row} 行金额须大于 0（单位：分）"),
        ));
    }
    let Some(bp) = rate_bp(&line.tax_rate) else {
        return Err(invalid(
            field("taxRate"),
            format!("第 {row} 行税率须为 0、0.01、0.015、0.03、0.05、0.06、0.09、0.13 之一"),
        ));
    };
    if kind == InvoiceType::Special && bp == 0 {
        return Err(invalid(
            field("taxRate"),
            format!("第 {row} 行：增值税专用发票不能开具免税或零税率项目"),
        ));
    }
    let expected = tax_of(line.amount, bp);
    if (line.tax - expected).abs() > 1 {
        return Err(invalid(
            field("tax"),
            format!(
                "第 {row} 行税额应为金额×税率四舍五入（{expected} 分），误差不得超过 1 分，实为 {} 分",
                line.tax
            ),
        ));
    }
    match (line.quantity.is_empty(), line.unit_price.is_empty()) {
        (true, true) => {}
        (false, false) => {
            let Some((q, q_scale)) = decimal(&line.quantity) else {
                return Err(invalid(
                    field("quantity"),
                    format!("第 {row} 行数量须为正数，至多 8 位小数"),
                ));
            };
            let Some((p, p_scale)) = decimal(&line.unit_price) else {
                return Err(invalid(
                    field("unitPrice"),
                    format!("第 {row} 行单价须为正数（元），至多 8 位小数"),
                ));
            };
            // In units of 10^-scale yuan, times 100: one fen is 10^scale.
            let scale = 10i128.pow(q_scale + p_scale);
            if (q * p * 100 - i128::from(line.amount) * scale).abs() > scale {
                return Err(invalid(
                    field("amount"),
                    format!("第 {row} 行数量×单价与金额相差超过 1 分"),
                ));
            }
        }
        _ => {
            return Err(invalid(
                field("quantity"),
                format!("第 {row} 行数量与单价须同时填写或同时不填"),
            ));
        }
    }
    Ok(())
}

/// Sums of the lines' amounts and taxes.
fn sums(lines: &[Line]) -> (i64, i64) {
    lines.iter().fold((0i64, 0i64), |(a, t), l| {
        (a.saturating_add(l.amount), t.saturating_add(l.tax))
    })
}

/// Checks `request` as the platform does, answering its kind.
pub fn check_issue(request: &IssueRequest) -> Result<InvoiceType, Invalid> {
    check_request_no(&request.request_no)?;
    let Some(kind) = InvoiceType::parse(&request.invoice_type) else {
        return Err(invalid(
            "invoiceType",
            "发票类型须为 SPECIAL（增值税专用发票）或 ORDINARY（普通发票）",
        ));
    };
    check_party(&request.buyer, kind)?;
    if request.lines.is_empty() || request.lines.len() > MAX_LINES {
        return Err(invalid("lines", "发票明细至少 1 行，至多 100 行"));
    }
    for (i, line) in request.lines.iter().enumerate() {
        check_line(i, line, kind)?;
    }
    let (amount, tax) = sums(&request.lines);
    if request.total_amount != amount {
        return Err(invalid(
            "totalAmount",
            format!("合计金额应为各行金额之和 {amount} 分"),
        ));
    }
    if request.total_tax != tax {
        return Err(invalid(
            "totalTax",
            format!("合计税额应为各行税额之和 {tax} 分"),
        ));
    }
    if request.total_with_tax != amount.saturating_add(tax) {
        return Err(invalid(
            "totalWithTax",
            format!(
                "价税合计应为合计金额加合计税额 {} 分",
                amount.saturating_add(tax)
            ),
        ));
    }
    if request.remarks.chars().count() > MAX_REMARKS {
        return Err(invalid("remarks", "备注不超过 200 字"));
    }
    Ok(kind)
}

/// Checks a reversal request's own fields (whether the invoice may be
/// reversed is the book's question).
pub fn check_red(request: &RedRequest) -> Result<(), Invalid> {
    check_request_no(&request.request_no)?;
    if request.invoice_no.is_empty() {
        return Err(invalid("invoiceNo", "被红冲的发票号码必填"));
    }
    if !RED_REASONS.contains(&request.reason.as_str()) {
        return Err(invalid(
            "reason",
            format!("冲红原因须为{}之一", RED_REASONS.join("、")),
        ));
    }
    Ok(())
}

/// A fully digital invoice number (数电票号码): 20 digits, the year's last
/// two, the two-digit region code of the tax bureau, `1` for an invoice
/// issued on the electronic invoice service platform, and a 15-digit
/// sequence.
pub fn number(issued_at: DateTime<FixedOffset>, region: &str, sequence: u64) -> String {
    format!(
        "{:02}{region}1{:015}",
        issued_at.year().rem_euclid(100),
        sequence % 1_000_000_000_000_000
    )
}

/// An invoice the platform issued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invoice {
    pub invoice_no: String,
    pub request_no: String,
    pub invoice_type: InvoiceType,
    pub colour: Colour,
    pub status: Status,
    /// RFC 3339, Beijing time.
    pub issued_at: DateTime<FixedOffset>,
    pub seller: Party,
    pub buyer: Party,
    pub lines: Vec<Line>,
    pub total_amount: i64,
    pub total_tax: i64,
    pub total_with_tax: i64,
    pub remarks: String,
    /// The person who issued it (开票人).
    pub drawer: String,
    /// On a red invoice: the blue one it reverses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_invoice_no: Option<String>,
    /// On a reversed blue invoice: the red one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_invoice_no: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reversal_reason: Option<String>,
    /// Which app asked for it (not answered: only that app sees it).
    #[serde(skip)]
    pub app_id: String,
}

/// Who issues, as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer {
    pub seller: Party,
    pub drawer: String,
}

/// The blue invoice `request` (already checked, of `kind`) becomes.
pub fn blue(
    request: &IssueRequest,
    kind: InvoiceType,
    (invoice_no, issued_at): (String, DateTime<FixedOffset>),
    issuer: &Issuer,
    app_id: &str,
) -> Invoice {
    Invoice {
        invoice_no,
        request_no: request.request_no.clone(),
        invoice_type: kind,
        colour: Colour::Blue,
        status: Status::Issued,
        issued_at,
        seller: issuer.seller.clone(),
        buyer: request.buyer.clone(),
        lines: request.lines.clone(),
        total_amount: request.total_amount,
        total_tax: request.total_tax,
        total_with_tax: request.total_with_tax,
        remarks: request.remarks.clone(),
        drawer: issuer.drawer.clone(),
        original_invoice_no: None,
        red_invoice_no: None,
        reversal_reason: None,
        app_id: app_id.to_owned(),
    }
}

/// The red invoice reversing all of `original`: every amount, tax and
/// quantity negated, the original named in the remarks as the platform
/// prints it.
pub fn red(
    original: &Invoice,
    request: &RedRequest,
    (invoice_no, issued_at): (String, DateTime<FixedOffset>),
) -> Invoice {
    let negate = |text: &str| {
        if text.is_empty() {
            String::new()
        } else {
            format!("-{text}")
        }
    };
    let lines = original
        .lines
        .iter()
        .map(|l| Line {
            quantity: negate(&l.quantity),
            amount: -l.amount,
            tax: -l.tax,
            ..l.clone()
        })
        .collect();
    Invoice {
        invoice_no,
        request_no: request.request_no.clone(),
        colour: Colour::Red,
        status: Status::Issued,
        issued_at,
        lines,
        total_amount: -original.total_amount,
        total_tax: -original.total_tax,
        total_with_tax: -original.total_with_tax,
        remarks: format!(
            "被红冲蓝字数电发票号码：{} 冲红原因：{}",
            original.invoice_no, request.reason
        ),
        original_invoice_no: Some(original.invoice_no.clone()),
        red_invoice_no: None,
        reversal_reason: Some(request.reason.clone()),
        ..original.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tax_rounds_half_away_from_zero() {
        assert_eq!(tax_of(10_000, 600), 600);
        assert_eq!(tax_of(1_250, 600), 75);
        assert_eq!(tax_of(1_225, 1300), 159); // 159.25
        assert_eq!(tax_of(50, 900), 5); // 4.5
        assert_eq!(tax_of(-50, 900), -5);
        assert_eq!(tax_of(1_000, 150), 15);
    }

    #[test]
    fn rates_and_decimals_parse_as_the_platform_writes_them() {
        assert_eq!(rate_bp("0.06"), Some(600));
        assert_eq!(rate_bp("0.13"), Some(1300));
        assert_eq!(rate_bp("0.015"), Some(150));
        assert_eq!(rate_bp("0"), Some(0));
        assert_eq!(rate_bp("0.07"), None);
        assert_eq!(rate_bp("6%"), None);
        assert_eq!(rate_bp("0.1300"), Some(1300));
        assert_eq!(decimal("12.5"), Some((125, 1)));
        assert_eq!(decimal("3"), Some((3, 0)));
        assert_eq!(decimal("0"), None);
        assert_eq!(decimal("1."), None);
        assert_eq!(decimal("-1"), None);
        assert_eq!(decimal("1.123456789"), None);
    }

    #[test]
    fn the_number_is_20_digits_year_region_channel_sequence() {
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05+08:00").unwrap();
        let n = number(at, "44", 123);
        assert_eq!(n, "26441000000000000123");
        assert_eq!(n.len(), 20);
    }
}
