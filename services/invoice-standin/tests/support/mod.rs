//! Starting the stand-in on a free port, and a request both test files send.

#![allow(dead_code)]

use fleetdesk_invoice_standin::{Settings, StandIn};
use serde_json::{Value, json};

pub const APP_ID: &str = "fleetdesk-finance-test";
pub const SECRET: &str = "s3cret-for-tests";

/// A Tencent subsidiary's published code: passes GB 32100.
pub const BUYER_TAX_ID: &str = "9144030071526726XG";

/// The stand-in serving on a free port with `change` applied to its
/// settings, and its base URL.
pub async fn start(change: impl FnOnce(&mut Settings)) -> (StandIn, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut settings = Settings::single(APP_ID, SECRET, &base);
    change(&mut settings);
    let standin = StandIn::new(settings);
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_invoice_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    (standin, base)
}

/// A special invoice of one line: 1164.68 yuan at 6% (69.88 tax), 1234.56
/// yuan with tax.
pub fn special(request_no: &str) -> Value {
    json!({
        "requestNo": request_no,
        "invoiceType": "SPECIAL",
        "buyer": {
            "name": "深圳市腾讯计算机系统有限公司",
            "taxId": BUYER_TAX_ID,
            "address": "深圳市南山区粤海街道麻岭社区科技中一路腾讯大厦35层",
            "phone": "0755-86013388",
            "bank": "招商银行深圳分行高新园支行",
            "account": "755903358110201"
        },
        "lines": [{
            "name": "*现代服务*车辆租赁服务费",
            "taxCode": "3040502020200000000",
            "specification": "粤B·D12345",
            "unit": "月",
            "quantity": "2",
            "unitPrice": "582.34",
            "amount": 116_468,
            "taxRate": "0.06",
            "tax": 6_988
        }],
        "totalAmount": 116_468,
        "totalTax": 6_988,
        "totalWithTax": 123_456,
        "remarks": "2026年11月车辆租赁费"
    })
}
