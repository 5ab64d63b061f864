//! The stand-in over HTTP, signed the way the platform's documentation
//! describes (written here from that description, not from the stand-in's
//! code): signatures refused, issuing idempotent by request number, the
//! platform's checks with the field at fault, the PDF well formed and
//! showing the invoice, a red-letter reversal once only, failures on demand.

mod support;

use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::{APP_ID, SECRET, special, start};

fn sign(secret: &str, path: &str, timestamp: i64, nonce: &str, body: &[u8]) -> String {
    let text = format!(
        "POST\n{path}\n{APP_ID}\n{timestamp}\n{nonce}\n{}",
        hex::encode(Sha256::digest(body))
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

fn nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Sends `body` to `path` with the headers given (none: unsigned).
async fn send(
    base: &str,
    path: &str,
    body: &[u8],
    signed: Option<(i64, &str, String)>,
) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .header("content-type", "application/json")
        .body(body.to_vec());
    if let Some((timestamp, nonce, signature)) = signed {
        req = req
            .header("X-App-Id", APP_ID)
            .header("X-Timestamp", timestamp.to_string())
            .header("X-Nonce", nonce)
            .header("X-Signature", signature);
    }
    let answer = req.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap())
}

/// `body` signed correctly, now, with a fresh nonce.
async fn call(base: &str, path: &str, body: &Value) -> (u16, Value) {
    let bytes = serde_json::to_vec(body).unwrap();
    let now = chrono::Utc::now().timestamp();
    let n = nonce();
    let signature = sign(SECRET, path, now, &n, &bytes);
    send(base, path, &bytes, Some((now, &n, signature))).await
}

const ISSUE: &str = "/openapi/v1/invoices/issue";
const RED: &str = "/openapi/v1/invoices/red";
const QUERY: &str = "/openapi/v1/invoices/query";

#[tokio::test]
async fn unsigned_badly_signed_stale_and_replayed_calls_are_refused() {
    let (standin, base) = start(|_| {}).await;
    let body = serde_json::to_vec(&special("R-SIG-1")).unwrap();
    let now = chrono::Utc::now().timestamp();

    let (status, answer) = send(&base, ISSUE, &body, None).await;
    assert_eq!((status, answer["code"].as_i64()), (401, Some(40_101)));

    let n = nonce();
    let wrong = sign("another-secret", ISSUE, now, &n, &body);
    let (status, answer) = send(&base, ISSUE, &body, Some((now, &n, wrong))).await;
    assert_eq!((status, answer["code"].as_i64()), (401, Some(40_103)));

    // Signed for another body: the body's hash is part of what is signed.
    let n = nonce();
    let other = sign(SECRET, ISSUE, now, &n, b"{}");
    let (status, _) = send(&base, ISSUE, &body, Some((now, &n, other))).await;
    assert_eq!(status, 401);

    // Signed for another path.
    let n = nonce();
    let other = sign(SECRET, QUERY, now, &n, &body);
    let (status, _) = send(&base, ISSUE, &body, Some((now, &n, other))).await;
    assert_eq!(status, 401);

    let old = now - 600;
    let n = nonce();
    let stale = sign(SECRET, ISSUE, old, &n, &body);
    let (status, answer) = send(&base, ISSUE, &body, Some((old, &n, stale))).await;
    assert_eq!((status, answer["code"].as_i64()), (401, Some(40_104)));

    let n = nonce();
    let good = sign(SECRET, ISSUE, now, &n, &body);
    let (status, first) = send(&base, ISSUE, &body, Some((now, &n, good.clone()))).await;
    assert_eq!(status, 200, "{first}");
    let (status, replay) = send(&base, ISSUE, &body, Some((now, &n, good))).await;
    assert_eq!((status, replay["code"].as_i64()), (401, Some(40_105)));

    let counts = standin.counts();
    assert_eq!((counts.issued, counts.unauthorized), (1, 6));
}

#[tokio::test]
async fn the_same_request_number_answers_the_same_invoice_and_other_content_is_refused() {
    let (standin, base) = start(|_| {}).await;
    let (status, first) = call(&base, ISSUE, &special("R-IDEM-1")).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["code"], 0);
    let invoice = &first["data"];
    let number = invoice["invoiceNo"].as_str().unwrap();
    // Year, region 44, channel 1, a 15-digit sequence.
    assert_eq!(number.len(), 20);
    assert!(number.bytes().all(|b| b.is_ascii_digit()));
    let year = chrono::Utc::now()
        .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
        .format("%y")
        .to_string();
    assert_eq!(&number[..5], format!("{year}441"));
    assert_eq!(invoice["status"], "ISSUED");
    assert_eq!(invoice["colour"], "BLUE");
    assert_eq!(invoice["totalWithTax"], 123_456);
    assert_eq!(invoice["seller"]["taxId"], "91440300MA5F000080");
    assert!(invoice["issuedAt"].as_str().unwrap().ends_with("+08:00"));

    // A retry (new nonce, keys in another order) answers the same invoice.
    let reordered: Value =
        serde_json::from_str(&serde_json::to_string_pretty(&special("R-IDEM-1")).unwrap()).unwrap();
    let (status, again) = call(&base, ISSUE, &reordered).await;
    assert_eq!(status, 200);
    assert_eq!(again["data"]["invoiceNo"], number);

    let mut changed = special("R-IDEM-1");
    changed["remarks"] = json!("另一个备注");
    let (status, refused) = call(&base, ISSUE, &changed).await;
    assert_eq!(status, 409);
    assert_eq!(refused["code"], 40_901);
    assert_eq!(refused["field"], "requestNo");

    let (_, second) = call(&base, ISSUE, &special("R-IDEM-2")).await;
    let second_no = second["data"]["invoiceNo"].as_str().unwrap();
    assert_ne!(second_no, number);
    assert_eq!(standin.counts().issued, 2);

    for by in [
        json!({ "invoiceNo": number }),
        json!({ "requestNo": "R-IDEM-1" }),
    ] {
        let (status, found) = call(&base, QUERY, &by).await;
        assert_eq!(status, 200, "{by}");
        assert_eq!(found["data"]["invoiceNo"], number);
        assert_eq!(found["data"]["lines"][0]["taxCode"], "3040502020200000000");
    }
    let (status, missing) = call(
        &base,
        QUERY,
        &json!({ "invoiceNo": "26441000000000000000" }),
    )
    .await;
    assert_eq!((status, missing["code"].as_i64()), (404, Some(40_401)));
}

#[tokio::test]
async fn the_platform_checks_refuse_with_the_field_and_a_clear_message() {
    let (standin, base) = start(|_| {}).await;
    type Change = fn(&mut Value);
    let cases: [(Change, &str, &str); 12] = [
        (
            |r| r["lines"][0]["tax"] = json!(6_990),
            "lines[0].tax",
            "6988 分",
        ),
        (
            |r| r["totalAmount"] = json!(116_467),
            "totalAmount",
            "116468 分",
        ),
        (
            |r| r["totalWithTax"] = json!(123_457),
            "totalWithTax",
            "123456 分",
        ),
        (
            |r| r["buyer"]["taxId"] = json!("9144030071526726XH"),
            "buyer.taxId",
            "校验位",
        ),
        (
            |r| r["buyer"]["taxId"] = json!("91440300715267"),
            "buyer.taxId",
            "18 位",
        ),
        (|r| r["buyer"]["bank"] = json!(""), "buyer.bank", "开户银行"),
        (
            |r| r["buyer"]["account"] = json!(" "),
            "buyer.account",
            "银行账号",
        ),
        (
            |r| r["lines"][0]["taxCode"] = json!("304050202020000000"),
            "lines[0].taxCode",
            "19 位",
        ),
        (
            |r| r["lines"][0]["taxRate"] = json!("0.07"),
            "lines[0].taxRate",
            "税率",
        ),
        (
            |r| r["lines"][0]["quantity"] = json!("3"),
            "lines[0].amount",
            "数量×单价",
        ),
        (
            |r| r["invoiceType"] = json!("VAT"),
            "invoiceType",
            "SPECIAL",
        ),
        (|r| r["lines"] = json!([]), "lines", "至少 1 行"),
    ];
    for (i, (change, field, words)) in cases.iter().enumerate() {
        let mut request = special(&format!("R-CHECK-{i}"));
        change(&mut request);
        let (status, answer) = call(&base, ISSUE, &request).await;
        assert_eq!(status, 400, "{field}: {answer}");
        assert_eq!(answer["code"], 40_010);
        assert_eq!(answer["field"], *field);
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains(words), "{field}: {message}");
    }
    assert_eq!(standin.counts().issued, 0);

    // Within a fen is the platform's tolerance; an ordinary invoice to a
    // person needs neither a tax id nor bank details.
    let mut one_fen_off = special("R-CHECK-OK-1");
    one_fen_off["lines"][0]["tax"] = json!(6_989);
    one_fen_off["totalTax"] = json!(6_989);
    one_fen_off["totalWithTax"] = json!(123_457);
    let (status, answer) = call(&base, ISSUE, &one_fen_off).await;
    assert_eq!(status, 200, "{answer}");
    let mut person = special("R-CHECK-OK-2");
    person["invoiceType"] = json!("ORDINARY");
    person["buyer"] = json!({ "name": "张三" });
    let (status, answer) = call(&base, ISSUE, &person).await;
    assert_eq!(status, 200, "{answer}");
}

/// The text shown by every `<hex> Tj` of the document, decoded from UCS-2.
fn shown_text(pdf: &[u8]) -> String {
    let text = String::from_utf8_lossy(pdf);
    let mut out = String::new();
    let parts: Vec<&str> = text.split(" Tj").collect();
    for chunk in &parts[..parts.len() - 1] {
        let Some(start) = chunk.rfind('<') else {
            continue;
        };
        let hex = &chunk[start + 1..chunk.len() - 1];
        let units: Vec<u16> = (0..hex.len() / 4)
            .map(|i| u16::from_str_radix(&hex[i * 4..i * 4 + 4], 16).unwrap())
            .collect();
        out.push_str(&String::from_utf16(&units).unwrap());
        out.push('\n');
    }
    out
}

/// The file behind a download link.
async fn download(url: &str) -> Vec<u8> {
    let answer = reqwest::get(url).await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/pdf");
    answer.bytes().await.unwrap().to_vec()
}

/// Checks the file's structure: header, every xref entry at its object,
/// the trailer's root, the end marker.
fn assert_well_formed(pdf: &[u8]) {
    assert!(pdf.starts_with(b"%PDF-1."), "header");
    assert!(pdf.ends_with(b"%%EOF\n"), "end marker");
    let tail = String::from_utf8_lossy(&pdf[pdf.len() - 40..]).into_owned();
    let start: usize = tail
        .split("startxref\n")
        .nth(1)
        .and_then(|t| t.lines().next())
        .and_then(|n| n.trim().parse().ok())
        .expect("startxref");
    let table = std::str::from_utf8(&pdf[start..]).expect("the xref is ASCII");
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("xref"));
    let (first, count) = lines.next().unwrap().split_once(' ').unwrap();
    assert_eq!(first, "0");
    let count: usize = count.parse().unwrap();
    assert_eq!(lines.next(), Some("0000000000 65535 f "));
    for id in 1..count {
        let entry = lines.next().unwrap();
        assert_eq!(entry.len(), 19, "entry {id} is 20 bytes with its newline");
        assert!(entry.ends_with(" 00000 n "));
        let offset: usize = entry[..10].parse().unwrap();
        assert!(
            pdf[offset..].starts_with(format!("{id} 0 obj").as_bytes()),
            "object {id} at {offset}"
        );
    }
    let trailer: String = lines.collect::<Vec<_>>().join("\n");
    assert!(trailer.contains(&format!("/Size {count}")));
    assert!(trailer.contains("/Root 1 0 R"));
    // Each stream's /Length is its length.
    let text = String::from_utf8_lossy(pdf);
    for part in text.split("/Length ").skip(1) {
        let length: usize = part.split(' ').next().unwrap().parse().unwrap();
        let body = part.split_once("stream\n").unwrap().1;
        assert!(body[length..].starts_with("\nendstream"));
    }
}

#[tokio::test]
async fn the_pdf_is_well_formed_and_shows_the_invoice() {
    let (_standin, base) = start(|_| {}).await;
    let (_, issued) = call(&base, ISSUE, &special("R-PDF-1")).await;
    let number = issued["data"]["invoiceNo"].as_str().unwrap();
    let url = issued["data"]["downloadUrl"].as_str().unwrap();
    assert!(url.starts_with(&base));
    let pdf = download(url).await;
    assert_well_formed(&pdf);
    let shown = shown_text(&pdf);
    for words in [
        "电子发票（增值税专用发票）",
        number,
        "深圳市腾讯计算机系统有限公司",
        "9144030071526726XG",
        "深圳市星途新能源运营服务有限公司",
        "*现代服务*车辆租赁服务费",
        "1164.68",
        "6%",
        "69.88",
        "壹仟贰佰叁拾肆元伍角陆分",
        "￥1234.56",
        "2026年11月车辆租赁费",
    ] {
        assert!(shown.contains(words), "{words} not in\n{shown}");
    }

    // An ordinary invoice has its own title.
    let mut ordinary = special("R-PDF-2");
    ordinary["invoiceType"] = json!("ORDINARY");
    let (_, issued) = call(&base, ISSUE, &ordinary).await;
    let pdf = download(issued["data"]["downloadUrl"].as_str().unwrap()).await;
    assert_well_formed(&pdf);
    assert!(shown_text(&pdf).contains("电子发票（普通发票）"));

    // A link altered or for another invoice is refused.
    let tampered = url.replace("expires=", "expires=9");
    assert_eq!(reqwest::get(&tampered).await.unwrap().status(), 403);
    let other = url.replace(number, issued["data"]["invoiceNo"].as_str().unwrap());
    assert_eq!(reqwest::get(&other).await.unwrap().status(), 403);
}

#[tokio::test]
async fn expired_links_are_refused() {
    let (_standin, base) = start(|s| s.link_ttl = Duration::ZERO).await;
    let (_, issued) = call(&base, ISSUE, &special("R-LINK-1")).await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let url = issued["data"]["downloadUrl"].as_str().unwrap();
    assert_eq!(reqwest::get(url).await.unwrap().status(), 403);
}

#[tokio::test]
async fn a_blue_invoice_is_reversed_once() {
    let (standin, base) = start(|_| {}).await;
    let (_, issued) = call(&base, ISSUE, &special("R-RED-BLUE")).await;
    let blue = issued["data"]["invoiceNo"].as_str().unwrap().to_owned();
    let reverse = json!({ "requestNo": "R-RED-1", "invoiceNo": blue, "reason": "开票有误" });
    let (status, red) = call(&base, RED, &reverse).await;
    assert_eq!(status, 200, "{red}");
    let red = &red["data"];
    let red_no = red["invoiceNo"].as_str().unwrap().to_owned();
    assert_eq!(red_no.len(), 20);
    assert_ne!(red_no, blue);
    assert_eq!(red["colour"], "RED");
    assert_eq!(red["originalInvoiceNo"], blue.as_str());
    assert_eq!(red["totalWithTax"], -123_456);
    assert_eq!(red["lines"][0]["amount"], -116_468);
    assert_eq!(red["lines"][0]["quantity"], "-2");

    let (_, original) = call(&base, QUERY, &json!({ "invoiceNo": blue })).await;
    assert_eq!(original["data"]["status"], "REVERSED");
    assert_eq!(original["data"]["redInvoiceNo"], red_no.as_str());

    // A retry of the same reversal answers the same red invoice.
    let (status, again) = call(&base, RED, &reverse).await;
    assert_eq!(status, 200);
    assert_eq!(again["data"]["invoiceNo"], red_no.as_str());

    let twice = json!({ "requestNo": "R-RED-2", "invoiceNo": blue, "reason": "销货退回" });
    let (status, refused) = call(&base, RED, &twice).await;
    assert_eq!((status, refused["code"].as_i64()), (409, Some(40_902)));
    assert!(refused["message"].as_str().unwrap().contains(&red_no));

    let of_red = json!({ "requestNo": "R-RED-3", "invoiceNo": red_no, "reason": "开票有误" });
    let (status, refused) = call(&base, RED, &of_red).await;
    assert_eq!((status, refused["code"].as_i64()), (409, Some(40_903)));

    let no_reason = json!({ "requestNo": "R-RED-4", "invoiceNo": blue, "reason": "不想要了" });
    let (status, refused) = call(&base, RED, &no_reason).await;
    assert_eq!((status, refused["field"].as_str()), (400, Some("reason")));

    let unknown = json!({ "requestNo": "R-RED-5", "invoiceNo": "26441000000000000001", "reason": "开票有误" });
    assert_eq!(call(&base, RED, &unknown).await.0, 404);
    assert_eq!(standin.counts().reversed, 1);

    let pdf = download(red["downloadUrl"].as_str().unwrap()).await;
    assert_well_formed(&pdf);
    let shown = shown_text(&pdf);
    assert!(shown.contains("负壹仟贰佰叁拾肆元伍角陆分"), "{shown}");
    assert!(shown.contains(&format!("被红冲蓝字数电发票号码：{blue}")));
}

#[tokio::test]
async fn failures_and_delays_on_demand() {
    let (standin, base) = start(|s| s.admin = true).await;
    let client = reqwest::Client::new();
    let asked = client
        .post(format!("{base}/admin/faults"))
        .json(&json!({ "failIssues": 2, "code": 70_002, "message": "税局系统维护中" }))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);
    for _ in 0..2 {
        let (status, failed) = call(&base, ISSUE, &special("R-FAIL-1")).await;
        assert_eq!(status, 503);
        assert_eq!(failed["code"], 70_002);
        assert_eq!(failed["message"], "税局系统维护中");
    }
    let (status, issued) = call(&base, ISSUE, &special("R-FAIL-1")).await;
    assert_eq!(status, 200, "{issued}");
    assert_eq!((standin.counts().failed, standin.counts().issued), (2, 1));

    client
        .post(format!("{base}/admin/faults"))
        .json(&json!({ "delayMs": 400 }))
        .send()
        .await
        .unwrap();
    let started = Instant::now();
    let (status, _) = call(&base, QUERY, &json!({ "requestNo": "R-FAIL-1" })).await;
    assert_eq!(status, 200);
    assert!(started.elapsed() >= Duration::from_millis(400));

    // Without the setting there is no control endpoint.
    let (_plain, plain_base) = start(|_| {}).await;
    let answer = client
        .post(format!("{plain_base}/admin/faults"))
        .json(&json!({ "failIssues": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 404);
}
