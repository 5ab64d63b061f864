//! Which enterprises may make which calls (console spec §6), checked again
//! here so that a caller reaching the service without the gateway is held to
//! the gateway's `x-enterprise` rules: page pay and reconciliation (paying
//! bills, confirming them, the monthly bills) and the B2B invoice and refund
//! screens only for B2B enterprises, the standard invoice screens never for
//! them, the order centre only for its list or the SF group. The gateway
//! signs the enterprise's markers into the internal token
//! ([`Claims::flags`]); a refusal is 9999 as at the gateway. Service callers
//! (seed, energy, vehicle) act for the platform and pass.
//!
//! [`Call`] is the whole table. Where the gateway has two routes for one RPC
//! (a screen and its B2B twin), the channel of the request or of the stored
//! record decides: a B2B refund is asked for and confirmed by B2B
//! enterprises only, while a standard one is open to both (refunds stored
//! before the channel followed the screen were standard). An invoice
//! application's channel is its screen's too; any paid bill of the
//! enterprise may be invoiced on it, whatever the bill's settlement
//! channel.

use fleetdesk_kit::internal_token::{Claims, enterprise_flag};
use fleetdesk_kit::{ErrorCode, ServiceError, grpc};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;

/// Which enterprises a [`Call`] is open to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Every enterprise.
    Open,
    MustB2b,
    NoB2b,
    /// The order-centre list or the SF group.
    OrderCenter,
}

/// The calls open to only some enterprises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    ListOrders,
    GetOrder,
    CreateOrder,
    CancelOrder,
    ExportOrders,
    PayBill,
    ConfirmBills,
    ListMonthlyBills,
    GetMonthlyBill,
    ExportMonthlyBills,
    /// Of the request's channel.
    ApplyInvoice(pb::Channel),
    /// Of the stored application's channel.
    GetInvoiceApplication(pb::Channel),
    /// Of the request's channel (the bill's when unset).
    CreateRefund(pb::Channel),
    /// Of the stored refund's channel.
    ConfirmRefund(pb::Channel),
}

impl Call {
    pub fn rule(self) -> Rule {
        match self {
            Call::ListOrders
            | Call::GetOrder
            | Call::CreateOrder
            | Call::CancelOrder
            | Call::ExportOrders => Rule::OrderCenter,
            Call::PayBill
            | Call::ConfirmBills
            | Call::ListMonthlyBills
            | Call::GetMonthlyBill
            | Call::ExportMonthlyBills => Rule::MustB2b,
            Call::ApplyInvoice(channel) | Call::GetInvoiceApplication(channel) => match channel {
                pb::Channel::B2b => Rule::MustB2b,
                pb::Channel::Standard | pb::Channel::Unspecified => Rule::NoB2b,
            },
            Call::CreateRefund(channel) | Call::ConfirmRefund(channel) => match channel {
                pb::Channel::B2b => Rule::MustB2b,
                pb::Channel::Standard | pb::Channel::Unspecified => Rule::Open,
            },
        }
    }
}

/// A stored or requested channel code; an unknown one counts as standard.
pub fn channel(code: i32) -> pb::Channel {
    pb::Channel::try_from(code).unwrap_or(pb::Channel::Unspecified)
}

/// What the rules look at of a caller, taken before a handler consumes its
/// request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enterprise {
    service: bool,
    b2b: bool,
    order_center: bool,
}

impl Enterprise {
    pub fn of_claims(claims: &Claims) -> Enterprise {
        Enterprise {
            service: claims.is_service(),
            b2b: claims.has_flag(enterprise_flag::B2B),
            order_center: claims.has_flag(enterprise_flag::ORDER_CENTER)
                || claims.has_flag(enterprise_flag::SF),
        }
    }

    pub fn of<T>(req: &Request<T>) -> Result<Enterprise, ServiceError> {
        Ok(Enterprise::of_claims(grpc::caller(req)?))
    }

    /// Refuses `call` when this enterprise may not make it.
    pub fn admit(self, call: Call) -> Result<(), ServiceError> {
        if self.service {
            return Ok(());
        }
        let refused = match call.rule() {
            Rule::Open => None,
            Rule::MustB2b => (!self.b2b).then_some("该功能仅对 B2B 企业开放"),
            Rule::NoB2b => self.b2b.then_some("B2B 企业请在 B2B 页面办理"),
            Rule::OrderCenter => (!self.order_center).then_some("订单中心未对本企业开放"),
        };
        match refused {
            Some(message) => Err(ServiceError::new(ErrorCode::Forbidden, message)),
            None => Ok(()),
        }
    }
}

/// Refuses `call` when the caller of `req` may not make it.
pub fn admit<T>(req: &Request<T>, call: Call) -> Result<(), ServiceError> {
    Enterprise::of(req)?.admit(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(flags: &[&str]) -> Enterprise {
        let mut claims = Claims::service("gateway");
        claims.sub = "user:1".into();
        claims.flags = flags.iter().map(|f| (*f).to_owned()).collect();
        Enterprise::of_claims(&claims)
    }

    #[test]
    fn b2b_calls_only_for_b2b_enterprises_and_standard_screens_never_for_them() {
        let b2b = user(&[enterprise_flag::B2B]);
        let plain = user(&[]);
        for call in [
            Call::PayBill,
            Call::ConfirmBills,
            Call::ListMonthlyBills,
            Call::GetMonthlyBill,
            Call::ExportMonthlyBills,
            Call::ApplyInvoice(pb::Channel::B2b),
            Call::GetInvoiceApplication(pb::Channel::B2b),
            Call::ConfirmRefund(pb::Channel::B2b),
        ] {
            assert!(b2b.admit(call).is_ok(), "{call:?}");
            let refused = plain.admit(call).unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{call:?}");
        }
        for call in [
            Call::ApplyInvoice(pb::Channel::Standard),
            Call::ApplyInvoice(pb::Channel::Unspecified),
            Call::GetInvoiceApplication(pb::Channel::Standard),
        ] {
            assert!(plain.admit(call).is_ok(), "{call:?}");
            assert_eq!(b2b.admit(call).unwrap_err().code, ErrorCode::Forbidden);
        }
        let standard_refund = Call::ConfirmRefund(pb::Channel::Standard);
        assert!(plain.admit(standard_refund).is_ok() && b2b.admit(standard_refund).is_ok());
    }

    #[test]
    fn the_order_centre_is_for_its_list_or_the_sf_group_and_services_pass_everything() {
        for flags in [&[enterprise_flag::ORDER_CENTER][..], &[enterprise_flag::SF]] {
            assert!(user(flags).admit(Call::ListOrders).is_ok());
        }
        assert!(
            user(&[enterprise_flag::B2B])
                .admit(Call::CreateOrder)
                .is_err()
        );
        let service = Enterprise::of_claims(&Claims::service("energy"));
        for call in [
            Call::CreateOrder,
            Call::PayBill,
            Call::ApplyInvoice(pb::Channel::Standard),
        ] {
            assert!(service.admit(call).is_ok());
        }
    }

    #[test]
    fn an_unknown_channel_code_counts_as_standard() {
        assert_eq!(channel(2), pb::Channel::B2b);
        assert_eq!(
            Call::ApplyInvoice(channel(77)).rule(),
            Call::ApplyInvoice(pb::Channel::Standard).rule()
        );
    }
}
