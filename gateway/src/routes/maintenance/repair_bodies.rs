//! The repair subject's edge enums and answer bodies, shared by its two
//! route files (`repairs`: orders and records; `repair_settlement`:
//! configuration, statements and bills), mapped from the proto once.

use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::edge::enums::edge_enum;
use crate::edge::file_ref::FileRefBody;
use crate::edge::time::rfc3339;

edge_enum!(
    /// MAINTENANCE (保养), REPAIR (维修), ACCIDENT_REPAIR (事故维修), TIRE, BATTERY.
    RepairKind => pb::RepairKind { Maintenance, Repair, AccidentRepair, Tire, Battery }
);
edge_enum!(
    /// AWAITING_QUOTE → QUOTED → (AWAITING_APPROVAL →) IN_REPAIR → COMPLETED →
    /// SETTLED; CANCELLED before IN_REPAIR.
    RepairOrderStatus => pb::RepairOrderStatus {
        AwaitingQuote, Quoted, InRepair, Completed, Settled, Cancelled, AwaitingApproval
    }
);
edge_enum!(
    /// PART, LABOUR, MATERIAL (consumables), OTHER.
    RepairItemKind => pb::RepairItemKind { Part, Labour, Material, Other }
);

/// One line of a quote or of the work done. In a form `amountFen` is
/// ignored: the service computes quantity × unit price.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairItemBody {
    pub name: String,
    pub kind: Option<RepairItemKind>,
    pub part_no: String,
    pub quantity: f64,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    /// Listed but not charged.
    pub warranty: bool,
}

impl From<pb::RepairQuoteItem> for RepairItemBody {
    fn from(i: pb::RepairQuoteItem) -> Self {
        RepairItemBody {
            kind: RepairItemKind::from_pb(i.kind),
            name: i.name,
            part_no: i.part_no,
            quantity: i.quantity,
            unit_price_fen: i.unit_price_fen,
            amount_fen: i.amount_fen,
            warranty: i.warranty,
        }
    }
}

impl From<RepairItemBody> for pb::RepairQuoteItem {
    fn from(i: RepairItemBody) -> Self {
        pb::RepairQuoteItem {
            name: i.name,
            kind: i.kind.map_or(0, Into::into),
            part_no: i.part_no,
            quantity: i.quantity,
            unit_price_fen: i.unit_price_fen,
            amount_fen: 0,
            warranty: i.warranty,
        }
    }
}

/// A repair order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairOrderBody {
    pub id: String,
    /// e.g. WX202611290001.
    pub order_no: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub driver_id: String,
    pub driver_name: String,
    pub contact_name: String,
    pub contact_masked_phone: String,
    pub kind: Option<RepairKind>,
    pub status: Option<RepairOrderStatus>,
    pub fault_description: String,
    pub fault_images: Vec<FileRefBody>,
    /// Odometer at intake, metres.
    pub odometer_m: i64,
    pub shop_id: String,
    pub shop_name: String,
    pub shop_address: String,
    pub appointment_time: String,
    pub quote_items: Vec<RepairItemBody>,
    pub quote_total_fen: i64,
    pub quote_time: String,
    pub quote_remark: String,
    pub quote_reject_reason: String,
    pub confirmed_total_fen: i64,
    pub confirmed_by: String,
    pub confirm_time: String,
    /// The org approval that decided the price, once decided.
    pub approval_id: String,
    pub final_total_fen: i64,
    pub completed_time: String,
    pub completed_odometer_m: i64,
    pub completion_images: Vec<FileRefBody>,
    pub record_id: String,
    pub statement_id: String,
    pub accident_id: String,
    pub cancel_reason: String,
    pub remark: String,
    pub created_by: String,
    pub create_time: String,
}

impl From<pb::RepairOrder> for RepairOrderBody {
    fn from(o: pb::RepairOrder) -> Self {
        let audit = o.audit.unwrap_or_default();
        RepairOrderBody {
            kind: RepairKind::from_pb(o.kind),
            status: RepairOrderStatus::from_pb(o.status),
            appointment_time: rfc3339(o.appointment_time.as_ref()),
            quote_time: rfc3339(o.quote_time.as_ref()),
            confirm_time: rfc3339(o.confirm_time.as_ref()),
            completed_time: rfc3339(o.completed_time.as_ref()),
            create_time: rfc3339(audit.create_time.as_ref()),
            created_by: audit.created_by,
            fault_images: o.fault_images.into_iter().map(Into::into).collect(),
            completion_images: o.completion_images.into_iter().map(Into::into).collect(),
            quote_items: o.quote_items.into_iter().map(Into::into).collect(),
            id: o.id,
            order_no: o.order_no,
            org_id: o.org_id,
            org_name: o.org_name,
            vehicle_id: o.vehicle_id,
            plate_number: o.plate_number,
            vin: o.vin,
            driver_id: o.driver_id,
            driver_name: o.driver_name,
            contact_name: o.contact_name,
            contact_masked_phone: o.contact_masked_phone,
            fault_description: o.fault_description,
            odometer_m: o.odometer_m,
            shop_id: o.shop_id,
            shop_name: o.shop_name,
            shop_address: o.shop_address,
            quote_total_fen: o.quote_total_fen,
            quote_remark: o.quote_remark,
            quote_reject_reason: o.quote_reject_reason,
            confirmed_total_fen: o.confirmed_total_fen,
            confirmed_by: o.confirmed_by,
            approval_id: o.approval_id,
            final_total_fen: o.final_total_fen,
            completed_odometer_m: o.completed_odometer_m,
            record_id: o.record_id,
            statement_id: o.statement_id,
            accident_id: o.accident_id,
            cancel_reason: o.cancel_reason,
            remark: o.remark,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairOrderPage {
    pub list: Vec<RepairOrderBody>,
    pub total: i64,
}

/// One entry of an operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairLogBody {
    /// What changed, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

impl From<fleetdesk_proto::common::v1::OperationLogEntry> for RepairLogBody {
    fn from(e: fleetdesk_proto::common::v1::OperationLogEntry) -> Self {
        RepairLogBody {
            oper_time: rfc3339(e.operate_time.as_ref()),
            remark: e.remark,
            oper_name: e.operator_name,
        }
    }
}
