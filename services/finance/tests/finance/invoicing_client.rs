//! Finance's client of the invoicing platform (`src/invoicing/client.rs`)
//! against the stand-in over a real socket: issuing, querying, reversing
//! and downloading; refusals as field errors, failures as retryable.
//! (Moved here from the stand-in's tests once finance registered the module.)

use fleetdesk_finance::invoicing::client::{
    Buyer, Colour, InvoiceLine, InvoiceStatus, InvoiceType, Invoicing, InvoicingConfig,
    InvoicingError, IssueInvoice, RedReason,
};
use fleetdesk_invoice_standin::{Settings, StandIn};

const APP_ID: &str = "fleetdesk-finance-test";
const SECRET: &str = "s3cret-for-tests";
/// A Tencent subsidiary's published code: passes GB 32100.
const BUYER_TAX_ID: &str = "9144030071526726XG";

/// The stand-in serving on a free port, and its base URL.
async fn start() -> (StandIn, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let standin = StandIn::new(Settings::single(APP_ID, SECRET, &base));
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_invoice_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    (standin, base)
}

fn client(base: &str, secret: &str) -> Invoicing {
    Invoicing::new(InvoicingConfig {
        url: base.to_owned(),
        app_id: APP_ID.to_owned(),
        secret: secret.to_owned(),
    })
    .unwrap()
}

/// Two lines whose taxes the client computes: 800.00 at 13% and 333.33 at 6%.
fn invoice(request_no: &str) -> IssueInvoice {
    let line = |name: &str, tax_code: &str, amount_fen, rate_bp| InvoiceLine {
        name: name.to_owned(),
        tax_code: tax_code.to_owned(),
        specification: String::new(),
        unit: "次".to_owned(),
        quantity: "1".to_owned(),
        unit_price: format!("{}.{:02}", amount_fen / 100, amount_fen % 100),
        amount_fen,
        rate_bp,
    };
    IssueInvoice {
        request_no: request_no.to_owned(),
        invoice_type: InvoiceType::Special,
        buyer: Buyer {
            name: "深圳市腾讯计算机系统有限公司".to_owned(),
            tax_id: BUYER_TAX_ID.to_owned(),
            address: "深圳市南山区科技中一路腾讯大厦".to_owned(),
            phone: "0755-86013388".to_owned(),
            bank: "招商银行深圳分行高新园支行".to_owned(),
            account: "755903358110201".to_owned(),
        },
        lines: vec![
            line(
                "*汽车*电动物流车充电桩",
                "1090305990000000000",
                80_000,
                1300,
            ),
            line("*现代服务*充电服务费", "3040502029900000000", 33_333, 600),
        ],
        remarks: String::new(),
    }
}

#[tokio::test]
async fn issues_queries_reverses_and_downloads() {
    let (standin, base) = start().await;
    let platform = client(&base, SECRET);
    let issued = platform.issue(&invoice("F-1")).await.unwrap();
    assert_eq!(issued.invoice_no.len(), 20);
    assert_eq!(issued.colour, Colour::Blue);
    assert_eq!(issued.status, InvoiceStatus::Issued);
    // 104.00 + 20.00 (19.9998 rounded) tax.
    assert_eq!(
        (issued.total_amount, issued.total_tax, issued.total_with_tax),
        (113_333, 12_400, 125_733)
    );
    let again = platform.issue(&invoice("F-1")).await.unwrap();
    assert_eq!(again.invoice_no, issued.invoice_no);
    assert_eq!(standin.counts().issued, 1);

    let by_request = platform.by_request("F-1").await.unwrap().unwrap();
    assert_eq!(by_request.invoice_no, issued.invoice_no);
    assert_eq!(platform.by_request("F-none").await.unwrap(), None);
    assert_eq!(
        platform.by_number("26441000000000000009").await.unwrap(),
        None
    );

    let pdf = platform.download(&issued.download_url).await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    let red = platform
        .reverse("F-1-RED", &issued.invoice_no, RedReason::ServiceStopped)
        .await
        .unwrap();
    assert_eq!(red.colour, Colour::Red);
    assert_eq!(red.total_with_tax, -125_733);
    assert_eq!(
        red.original_invoice_no.as_deref(),
        Some(issued.invoice_no.as_str())
    );
    let reversed = platform
        .by_number(&issued.invoice_no)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reversed.status, InvoiceStatus::Reversed);
    assert_eq!(reversed.red_invoice_no, Some(red.invoice_no.clone()));
    let twice = platform
        .reverse("F-1-RED-2", &issued.invoice_no, RedReason::IssuedInError)
        .await
        .unwrap_err();
    assert!(
        matches!(
            twice,
            InvoicingError::Refused {
                status: 409,
                code: 40_902,
                ..
            }
        ),
        "{twice:?}"
    );
}

#[tokio::test]
async fn refusals_arrive_as_field_errors_and_failures_as_retryable() {
    let (standin, base) = start().await;
    let platform = client(&base, SECRET);

    // Checked before sending: nothing reaches the platform.
    let mut mistyped = invoice("F-2");
    mistyped.buyer.tax_id = "9144030071526726XH".to_owned();
    let err = platform.issue(&mistyped).await.unwrap_err();
    assert!(
        matches!(&err, InvoicingError::Invalid { field, message }
            if field == "buyer.taxId" && message.contains("校验位")),
        "{err:?}"
    );

    // The platform's own check, its field passed on.
    let mut no_bank = invoice("F-3");
    no_bank.buyer.bank.clear();
    let err = platform.issue(&no_bank).await.unwrap_err();
    assert!(
        matches!(&err, InvoicingError::Invalid { field, message }
            if field == "buyer.bank" && message == "增值税专用发票须填写购买方开户银行"),
        "{err:?}"
    );
    assert!(!err.retryable());

    standin.fail_next_issues(1, 70_001, "税务数字账户服务繁忙，请稍后重试");
    let err = platform.issue(&invoice("F-4")).await.unwrap_err();
    assert!(err.retryable(), "{err:?}");
    assert!(matches!(
        err,
        InvoicingError::Unavailable { code: 70_001, .. }
    ));
    let issued = platform.issue(&invoice("F-4")).await.unwrap();
    assert_eq!(issued.request_no, "F-4");

    let stranger = client(&base, "not-the-secret");
    let err = stranger.issue(&invoice("F-5")).await.unwrap_err();
    assert!(
        matches!(err, InvoicingError::Refused { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(standin.counts().issued, 1);
}
