//! The invoicing platform's API, as its documentation describes it: JSON
//! `POST`s to `{url}/openapi/v1/invoices/{issue,red,query}` answering
//! `{"code":0,"message","data"}` (a refusal: a non-zero `code`, a
//! `message`, and `field` when one field is at fault); each signed with the
//! app id and secret (`X-App-Id`, `X-Timestamp`, `X-Nonce`, `X-Signature`:
//! the hex HMAC-SHA256 of `METHOD\nPATH\nAPP_ID\nTIMESTAMP\nNONCE\n
//! SHA256_HEX(BODY)`), a fresh nonce each time. An answer carries a
//! download link for the PDF that expires: keep the file, not the link.
//!
//! A request number makes issuing and reversing idempotent at the platform:
//! retrying with the same number and content answers the same invoice, so
//! a caller retries a [`InvoicingError::retryable`] failure with the same
//! [`IssueInvoice`].

use std::time::Duration;

use chrono::{DateTime, FixedOffset, Utc};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::credit_code;

const ISSUE: &str = "/openapi/v1/invoices/issue";
const RED: &str = "/openapi/v1/invoices/red";
const QUERY: &str = "/openapi/v1/invoices/query";
/// The platform's code for an invoice it does not have.
const NOT_FOUND: i64 = 40_401;

/// Where the platform is and the app's credentials
/// (`FLEETDESK_INVOICING_URL`, `_APP_ID`, `_SECRET`).
#[derive(Clone)]
pub struct InvoicingConfig {
    pub url: String,
    pub app_id: String,
    pub secret: String,
}

impl std::fmt::Debug for InvoicingConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InvoicingConfig")
            .field("url", &self.url)
            .field("app_id", &self.app_id)
            .finish_non_exhaustive()
    }
}

impl InvoicingConfig {
    /// From the environment; `None` when no URL is set (no invoicing).
    pub fn from_env() -> Option<InvoicingConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Some(InvoicingConfig {
            url: var("FLEETDESK_INVOICING_URL")?,
            app_id: var("FLEETDESK_INVOICING_APP_ID").unwrap_or_default(),
            secret: var("FLEETDESK_INVOICING_SECRET").unwrap_or_default(),
        })
    }
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum InvoicingError {
    #[error("invoicing platform unreachable: {0}")]
    Http(#[from] reqwest::Error),
    /// One field is at fault (ours or the platform's check): show it to the user.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// Refused for another reason (signature, conflict, unknown invoice…).
    #[error("invoicing platform refused ({status}, {code}): {message}")]
    Refused {
        status: u16,
        code: i64,
        message: String,
    },
    /// The platform failed (5xx): worth retrying with the same request number.
    #[error("invoicing platform failed ({status}, {code}): {message}")]
    Unavailable {
        status: u16,
        code: i64,
        message: String,
    },
    #[error("invoicing platform answered something unreadable: {0}")]
    Unreadable(String),
}

impl InvoicingError {
    /// Whether the same call may succeed later.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            InvoicingError::Http(_) | InvoicingError::Unavailable { .. }
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InvoiceType {
    /// 增值税专用发票: the buyer's address, phone, bank and account are required.
    Special,
    /// 普通发票.
    Ordinary,
}

/// The invoice title (抬头).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Buyer {
    pub name: String,
    /// Unified social credit code; may be empty on an ordinary invoice.
    pub tax_id: String,
    pub address: String,
    pub phone: String,
    pub bank: String,
    pub account: String,
}

/// One line, its tax computed as the platform checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvoiceLine {
    pub name: String,
    /// Tax classification code, 19 digits.
    pub tax_code: String,
    pub specification: String,
    pub unit: String,
    /// Quantity and unit price (yuan, excluding tax) as decimal text, or
    /// both empty.
    pub quantity: String,
    pub unit_price: String,
    /// Fen, excluding tax.
    pub amount_fen: i64,
    /// 600 = 6%.
    pub rate_bp: u32,
}

impl InvoiceLine {
    /// Fen of tax: amount × rate rounded half away from zero.
    pub fn tax_fen(&self) -> i64 {
        let exact = i128::from(self.amount_fen) * i128::from(self.rate_bp);
        let rounded = i64::try_from((exact.abs() + 5_000) / 10_000).unwrap_or(i64::MAX);
        if exact < 0 { -rounded } else { rounded }
    }
}

/// The rate as the platform writes it: 600 → "0.06", 0 → "0".
fn rate_text(bp: u32) -> String {
    if bp == 0 {
        return "0".to_owned();
    }
    let text = format!("{}.{:04}", bp / 10_000, bp % 10_000);
    text.trim_end_matches('0').to_owned()
}

/// What finance asks to be issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueInvoice {
    /// Finance's id of the request: retries reuse it.
    pub request_no: String,
    pub invoice_type: InvoiceType,
    pub buyer: Buyer,
    pub lines: Vec<InvoiceLine>,
    pub remarks: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WireLine<'a> {
    name: &'a str,
    tax_code: &'a str,
    specification: &'a str,
    unit: &'a str,
    quantity: &'a str,
    unit_price: &'a str,
    amount: i64,
    tax_rate: String,
    tax: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WireIssue<'a> {
    request_no: &'a str,
    invoice_type: InvoiceType,
    buyer: &'a Buyer,
    lines: Vec<WireLine<'a>>,
    total_amount: i64,
    total_tax: i64,
    total_with_tax: i64,
    remarks: &'a str,
}

impl IssueInvoice {
    fn wire(&self) -> WireIssue<'_> {
        let lines: Vec<WireLine<'_>> = self
            .lines
            .iter()
            .map(|l| WireLine {
                name: &l.name,
                tax_code: &l.tax_code,
                specification: &l.specification,
                unit: &l.unit,
                quantity: &l.quantity,
                unit_price: &l.unit_price,
                amount: l.amount_fen,
                tax_rate: rate_text(l.rate_bp),
                tax: l.tax_fen(),
            })
            .collect();
        let total_amount = lines.iter().map(|l| l.amount).sum::<i64>();
        let total_tax = lines.iter().map(|l| l.tax).sum::<i64>();
        WireIssue {
            request_no: &self.request_no,
            invoice_type: self.invoice_type,
            buyer: &self.buyer,
            lines,
            total_amount,
            total_tax,
            total_with_tax: total_amount + total_tax,
            remarks: &self.remarks,
        }
    }
}

/// Why an invoice is reversed, as the platform names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedReason {
    /// 开票有误
    IssuedInError,
    /// 销货退回
    GoodsReturned,
    /// 服务中止
    ServiceStopped,
    /// 销售折让
    SalesAllowance,
}

impl RedReason {
    fn text(self) -> &'static str {
        match self {
            RedReason::IssuedInError => "开票有误",
            RedReason::GoodsReturned => "销货退回",
            RedReason::ServiceStopped => "服务中止",
            RedReason::SalesAllowance => "销售折让",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Colour {
    Blue,
    Red,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InvoiceStatus {
    Issued,
    Reversed,
}

/// An invoice as the platform answers it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuedInvoice {
    /// 20 digits.
    pub invoice_no: String,
    pub request_no: String,
    pub invoice_type: InvoiceType,
    pub colour: Colour,
    pub status: InvoiceStatus,
    pub issued_at: DateTime<FixedOffset>,
    pub total_amount: i64,
    pub total_tax: i64,
    pub total_with_tax: i64,
    /// Expires; fetch with [`Invoicing::download`] and keep the file.
    pub download_url: String,
    #[serde(default)]
    pub original_invoice_no: Option<String>,
    #[serde(default)]
    pub red_invoice_no: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Envelope {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    field: Option<String>,
    data: Option<IssuedInvoice>,
}

/// A client of the platform.
#[derive(Debug, Clone)]
pub struct Invoicing {
    config: InvoicingConfig,
    http: reqwest::Client,
}

impl Invoicing {
    pub fn new(config: InvoicingConfig) -> Result<Invoicing, InvoicingError> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?;
        Ok(Invoicing { config, http })
    }

    /// Issues `invoice` (or answers the one its request number already has).
    pub async fn issue(&self, invoice: &IssueInvoice) -> Result<IssuedInvoice, InvoicingError> {
        if !invoice.buyer.tax_id.is_empty()
            && let Err(err) = credit_code::check(&invoice.buyer.tax_id)
        {
            return Err(InvoicingError::Invalid {
                field: "buyer.taxId".to_owned(),
                message: err.to_string(),
            });
        }
        self.call(ISSUE, &invoice.wire()).await
    }

    /// Reverses all of `invoice_no` with a red-letter invoice, answered.
    pub async fn reverse(
        &self,
        request_no: &str,
        invoice_no: &str,
        reason: RedReason,
    ) -> Result<IssuedInvoice, InvoicingError> {
        let body = serde_json::json!({
            "requestNo": request_no,
            "invoiceNo": invoice_no,
            "reason": reason.text(),
        });
        self.call(RED, &body).await
    }

    /// The invoice numbered `invoice_no`, if the platform has it.
    pub async fn by_number(
        &self,
        invoice_no: &str,
    ) -> Result<Option<IssuedInvoice>, InvoicingError> {
        found(
            self.call(QUERY, &serde_json::json!({ "invoiceNo": invoice_no }))
                .await,
        )
    }

    /// The invoice issued for `request_no`, if any: after a timeout, whether
    /// the platform issued it.
    pub async fn by_request(
        &self,
        request_no: &str,
    ) -> Result<Option<IssuedInvoice>, InvoicingError> {
        found(
            self.call(QUERY, &serde_json::json!({ "requestNo": request_no }))
                .await,
        )
    }

    /// The PDF behind a download link.
    pub async fn download(&self, download_url: &str) -> Result<Vec<u8>, InvoicingError> {
        let answer = self.http.get(download_url).send().await?;
        let status = answer.status();
        let bytes = answer.bytes().await?;
        if !status.is_success() {
            return Err(InvoicingError::Refused {
                status: status.as_u16(),
                code: 0,
                message: String::from_utf8_lossy(&bytes).into_owned(),
            });
        }
        if !bytes.starts_with(b"%PDF-") {
            return Err(InvoicingError::Unreadable(
                "download is not a PDF".to_owned(),
            ));
        }
        Ok(bytes.to_vec())
    }

    /// One signed call answering an invoice.
    async fn call(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Result<IssuedInvoice, InvoicingError> {
        let body =
            serde_json::to_vec(body).map_err(|e| InvoicingError::Unreadable(e.to_string()))?;
        let url = reqwest::Url::parse(&format!("{}{path}", self.config.url.trim_end_matches('/')))
            .map_err(|e| InvoicingError::Unreadable(format!("invoicing URL: {e}")))?;
        let timestamp = Utc::now().timestamp().to_string();
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let text = format!(
            "POST\n{}\n{}\n{timestamp}\n{nonce}\n{}",
            url.path(),
            self.config.app_id,
            hex::encode(Sha256::digest(&body))
        );
        let mut mac = Hmac::<Sha256>::new_from_slice(self.config.secret.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(text.as_bytes());
        let answer = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("X-App-Id", &self.config.app_id)
            .header("X-Timestamp", &timestamp)
            .header("X-Nonce", &nonce)
            .header("X-Signature", hex::encode(mac.finalize().into_bytes()))
            .body(body)
            .send()
            .await?;
        let status = answer.status();
        let bytes = answer.bytes().await?;
        let envelope: Envelope = serde_json::from_slice(&bytes)
            .map_err(|e| InvoicingError::Unreadable(format!("{status}: {e}")))?;
        match envelope {
            Envelope {
                code: 0,
                data: Some(invoice),
                ..
            } if status.is_success() => Ok(invoice),
            Envelope {
                field: Some(field),
                message,
                ..
            } if status.is_client_error() => Err(InvoicingError::Invalid {
                message: message
                    .strip_prefix(&format!("{field}："))
                    .unwrap_or(&message)
                    .to_owned(),
                field,
            }),
            Envelope { code, message, .. } if status.is_server_error() => {
                Err(InvoicingError::Unavailable {
                    status: status.as_u16(),
                    code,
                    message,
                })
            }
            Envelope { code, message, .. } => Err(InvoicingError::Refused {
                status: status.as_u16(),
                code,
                message,
            }),
        }
    }
}

/// A query's answer with "no such invoice" as `None`.
fn found(
    answer: Result<IssuedInvoice, InvoicingError>,
) -> Result<Option<IssuedInvoice>, InvoicingError> {
    match answer {
        Ok(invoice) => Ok(Some(invoice)),
        Err(InvoicingError::Refused {
            code: NOT_FOUND, ..
        }) => Ok(None),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_written_as_decimals_and_tax_rounds_half_away_from_zero() {
        assert_eq!(rate_text(600), "0.06");
        assert_eq!(rate_text(1300), "0.13");
        assert_eq!(rate_text(150), "0.015");
        assert_eq!(rate_text(0), "0");
        let line = |amount_fen, rate_bp| InvoiceLine {
            name: String::new(),
            tax_code: String::new(),
            specification: String::new(),
            unit: String::new(),
            quantity: String::new(),
            unit_price: String::new(),
            amount_fen,
            rate_bp,
        };
        assert_eq!(line(1_250, 600).tax_fen(), 75);
        assert_eq!(line(50, 900).tax_fen(), 5);
        assert_eq!(line(1_225, 1300).tax_fen(), 159);
    }
}
