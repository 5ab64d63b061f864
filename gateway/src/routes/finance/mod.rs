//! Finance (financialManagement, myCoupons): the order centre, bills and
//! their payments, monthly bills and the dashboard, invoice titles,
//! addresses and applications, refunds, coupons and the ledger, all over
//! the finance service. Money moves (pay, apply for an invoice, refund)
//! need an `Idempotency-Key`. The B2B screens' routes carry their
//! enterprise rule (`x-enterprise`), enforced with the permissions by the
//! access guard; a B2B variant of a write fixes the channel by its path.

pub mod bills;
pub mod bodies;
pub mod coupons;
pub mod invoice_settings;
pub mod invoices;
pub mod ledger;
pub mod orders;
pub mod payments;
pub mod refunds;

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::Value;

    /// (METHOD path) → x-enterprise of every finance operation.
    fn rules() -> BTreeMap<String, Option<String>> {
        let doc: Value =
            serde_json::from_str(&crate::openapi_json()).expect("the document is JSON");
        let mut rules = BTreeMap::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            if !path.starts_with("/api/v1/finance/") {
                continue;
            }
            for (method, op) in item.as_object().expect("path item") {
                let rule = op["x-enterprise"].as_str().map(str::to_owned);
                rules.insert(format!("{} {path}", method.to_uppercase()), rule);
            }
        }
        rules
    }

    #[test]
    fn b2b_screens_are_b2b_only_and_their_standard_twins_never_b2b() {
        let rules = rules();
        let rule = |op: &str| rules.get(op).cloned().flatten();
        for op in [
            "POST /api/v1/finance/payments",
            "POST /api/v1/finance/bills/confirm",
            "GET /api/v1/finance/monthly-bills",
            "GET /api/v1/finance/monthly-bills/{monthlyBillId}",
            "POST /api/v1/finance/monthly-bills/export",
            "POST /api/v1/finance/b2b/invoice-applications",
            "GET /api/v1/finance/b2b/invoice-applications/{applicationId}",
            "POST /api/v1/finance/b2b/refunds/{refundId}/confirm",
        ] {
            assert_eq!(rule(op).as_deref(), Some("mustB2B"), "{op}");
        }
        for op in [
            "POST /api/v1/finance/invoice-applications",
            "GET /api/v1/finance/invoice-applications/{applicationId}",
            "POST /api/v1/finance/refunds/{refundId}/confirm",
        ] {
            assert_eq!(rule(op).as_deref(), Some("noB2B"), "{op}");
        }
        for op in [
            "GET /api/v1/finance/orders",
            "POST /api/v1/finance/orders",
            "POST /api/v1/finance/orders/export",
        ] {
            assert_eq!(rule(op).as_deref(), Some("orderCenter"), "{op}");
        }
        // Lists both kinds of enterprise see carry no rule.
        assert_eq!(rule("GET /api/v1/finance/bills"), None);
        assert_eq!(rule("GET /api/v1/finance/invoice-applications"), None);
    }

    #[test]
    fn every_money_move_documents_a_required_idempotency_key() {
        let doc: Value =
            serde_json::from_str(&crate::openapi_json()).expect("the document is JSON");
        for (path, method) in [
            ("/api/v1/finance/payments", "post"),
            ("/api/v1/finance/invoice-applications", "post"),
            ("/api/v1/finance/b2b/invoice-applications", "post"),
            ("/api/v1/finance/refunds", "post"),
            ("/api/v1/finance/refunds/{refundId}/confirm", "post"),
            ("/api/v1/finance/b2b/refunds/{refundId}/confirm", "post"),
        ] {
            let params = doc["paths"][path][method]["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let key = params
                .iter()
                .find(|p| p["name"] == "Idempotency-Key" && p["in"] == "header");
            assert_eq!(
                key.map(|k| k["required"].clone()),
                Some(Value::Bool(true)),
                "{method} {path}"
            );
        }
    }
}
