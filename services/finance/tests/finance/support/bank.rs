//! The bank in the payment and refund tests: the bank stand-in on a real
//! socket (settling only when told), finance told of it with its notify
//! endpoint on another, and the money helpers the tests share.

use fleetdesk_bank_standin::{Outcome, Settings, StandIn};
use fleetdesk_finance::bank::BankConfig;
use fleetdesk_kit::db;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use super::{Stack, Tenant, line, month, new_bill, stack_with};

const MERCHANT: &str = "M-finance-test";
const SECRET: &str = "finance-test-secret";

pub struct Banked {
    pub s: Stack,
    pub bank: StandIn,
}

/// The answers of `call` made 100 times at once.
pub async fn a_hundred_at_once<T, Fut>(call: impl Fn() -> Fut) -> Vec<T>
where
    Fut: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..100 {
        calls.spawn(call());
    }
    calls.join_all().await
}

impl Banked {
    /// A bill of `fen` for `t` (source `source`) with a pending bank
    /// payment of it by `method`.
    pub async fn bank_payment(
        &self,
        t: &Tenant,
        source: &str,
        fen: i64,
        method: pb::PaymentMethod,
    ) -> (pb::Bill, pb::BillPayment) {
        let bill = self.s.unpaid_bill(t, source, fen).await;
        let pending = self
            .s
            .pay(t, self.s.pay_request(&[&bill], method, source))
            .await
            .unwrap();
        assert_eq!(pending.status, pb::PaymentStatus::Pending as i32);
        (bill, pending)
    }

    /// [`Banked::bank_payment`] settled by the bank with `outcome` (and
    /// `reason`), once its callback has reached finance.
    pub async fn settled_bank_payment(
        &self,
        t: &Tenant,
        source: &str,
        fen: i64,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> (pb::Bill, pb::BillPayment) {
        let (bill, pending) = self
            .bank_payment(t, source, fen, pb::PaymentMethod::OnlineBanking)
            .await;
        self.bank
            .settle_order(&pending.transaction_no, outcome, reason)
            .unwrap();
        let settled = self.s.settled_payment(t, &pending.id).await;
        (self.s.bill(t, &bill.id).await, settled)
    }
}

/// A stack whose finance pays through a bank stand-in.
pub async fn banked() -> Banked {
    banked_with(|_| {}).await
}

/// [`banked`] with `configure` applied to finance as well (an invoicing
/// platform).
pub async fn banked_with(configure: impl FnOnce(&mut fleetdesk_finance::Application)) -> Banked {
    let bank_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let bank_url = format!("http://{}", bank_listener.local_addr().unwrap());
    let mut settings = Settings::single(MERCHANT, SECRET, &bank_url);
    settings.auto_settle_after = None;
    let bank = StandIn::new(settings);
    let serving = bank.clone();
    tokio::spawn(async move {
        fleetdesk_bank_standin::serve(bank_listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    let notify = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = BankConfig {
        url: bank_url,
        merchant_id: MERCHANT.to_owned(),
        secret: SECRET.to_owned(),
        notify_url: format!(
            "http://{}/finance/bank/notify",
            notify.local_addr().unwrap()
        ),
    };
    let s = stack_with(move |app| {
        app.use_bank(config, notify).unwrap();
        configure(app);
    })
    .await;
    Banked { s, bank }
}

impl Stack {
    /// Raises an unpaid bill of `fen` for `t` (source `source`).
    pub async fn unpaid_bill(&self, t: &Tenant, source: &str, fen: i64) -> pb::Bill {
        self.create_bill(new_bill(
            t,
            t.shanghai,
            pb::BillKind::Rent,
            month(2026, 10),
            source,
            vec![line("租金", "粤B10001", fen)],
        ))
        .await
        .unwrap()
    }

    /// Puts `fen` on `t`'s prepaid balance (BANK → MAIN).
    pub async fn top_up(&self, t: &Tenant, fen: i64) {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        fleetdesk_finance::ledger::top_up(
            &mut tx,
            t.enterprise,
            fen,
            &Uuid::new_v4().to_string(),
            "测试充值",
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }

    /// `t`'s prepaid balance through GetLedgerBalances.
    pub async fn balance(&self, t: &Tenant) -> i64 {
        self.client
            .clone()
            .get_ledger_balances(self.req(t, pb::GetLedgerBalancesRequest {}))
            .await
            .unwrap()
            .into_inner()
            .balances[0]
            .balance_fen
    }

    /// A PayBill of `bills` in full by `method` under `key`.
    pub fn pay_request(
        &self,
        bills: &[&pb::Bill],
        method: pb::PaymentMethod,
        key: &str,
    ) -> pb::PayBillRequest {
        pb::PayBillRequest {
            bill_ids: bills.iter().map(|b| b.id.clone()).collect(),
            amount_fen: 0,
            expected_total_fen: bills.iter().map(|b| b.outstanding_fen).sum(),
            method: method as i32,
            coupon_id: String::new(),
            voucher: None,
            payer_name: "测试企业".to_owned(),
            payer_bank_name: "招商银行".to_owned(),
            payer_account: "6222021234567890".to_owned(),
            return_url: String::new(),
            idempotency_key: key.to_owned(),
        }
    }

    pub async fn pay(
        &self,
        t: &Tenant,
        req: pb::PayBillRequest,
    ) -> Result<pb::BillPayment, tonic::Status> {
        self.client
            .clone()
            .pay_bill(self.req(t, req))
            .await
            .map(|r| r.into_inner().payment.unwrap())
    }

    pub async fn payment(&self, t: &Tenant, id: &str) -> pb::BillPayment {
        self.client
            .clone()
            .get_bill_payment(self.req(
                t,
                pb::GetBillPaymentRequest {
                    payment_id: id.to_owned(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .payment
            .unwrap()
    }

    pub async fn bill(&self, t: &Tenant, id: &str) -> pb::Bill {
        self.client
            .clone()
            .get_bill(self.req(
                t,
                pb::GetBillRequest {
                    bill_id: id.to_owned(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .bill
            .unwrap()
    }

    /// Waits (up to 10 s) for payment `id` to leave PENDING.
    pub async fn settled_payment(&self, t: &Tenant, id: &str) -> pb::BillPayment {
        for _ in 0..100 {
            let p = self.payment(t, id).await;
            if p.status != pb::PaymentStatus::Pending as i32 {
                return p;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("payment {id} still pending");
    }

    /// How many rows of `table` belong to `t`, straight from the table.
    pub async fn count(&self, t: &Tenant, table: &str) -> i64 {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_scalar(&format!(
            "select count(*) from {table} where enterprise_id = $1"
        ))
        .bind(t.enterprise)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    }

    /// How many ledger transfers of stored kind `kind` `t` has.
    pub async fn transfers(&self, t: &Tenant, kind: i16) -> i64 {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        sqlx::query_scalar(
            "select count(*) from ledger_transfer where enterprise_id = $1 and kind = $2",
        )
        .bind(t.enterprise)
        .bind(kind)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    }

    /// The ledger's invariants over every tenant: no difference at all.
    pub async fn books_hold(&self) {
        let mut tx = db::begin_service(&self.owner).await.unwrap();
        let found = fleetdesk_ledger::verify(&mut tx).await.unwrap();
        assert!(found.is_empty(), "{found:?}");
        let broken: i64 = sqlx::query_scalar(
            "select count(*) from bill where refunded_fen > paid_fen or paid_fen > payable_fen",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        assert_eq!(broken, 0);
    }
}
