//! Vehicle assets › usage records (carUsedRecord: carRentRecord,
//! purchaseRecord, carReplaceRecord, rentForSaleRecord): one list per kind,
//! its export, detail, create (with `Idempotency-Key`), edit, end. Money is
//! in fen (in yuan in exported files).

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{UsageKind, UsageStatus, codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, last, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::edge::time::time_field;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_usage_records, create_usage_record))
        .routes(routes!(get_usage_record, update_usage_record))
        .routes(routes!(end_usage_record))
        .routes(routes!(export_usage_records))
}

edge_enum!(
    /// Why a vehicle was replaced.
    ReplacementReason => pb::ReplacementReason { Repair, Accident, Upgrade, ContractChange, Other }
);

/// Terms of a rental (fen).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RentBody {
    pub monthly_rent_fen: i64,
    pub deposit_fen: i64,
    pub term_months: i32,
    /// Day of the month rent falls due (1-28, default 1).
    pub payment_day: i32,
    /// When the vehicle was handed back; empty while rented.
    pub return_time: String,
}

/// Terms of a purchase (fen).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PurchaseBody {
    pub price_fen: i64,
    pub purchase_tax_fen: i64,
    pub invoice_no: String,
    pub delivery_time: String,
}

/// Facts of a replacement; the record's vehicle is the new one.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplacementBody {
    pub replaced_vehicle_id: String,
    /// Filled by the server from the replaced vehicle.
    #[serde(default)]
    pub replaced_plate_number: String,
    pub reason: Option<ReplacementReason>,
    #[serde(default)]
    pub temporary: bool,
}

/// Terms of a rent-to-own contract (fen): `termMonths` instalments, of which
/// `paidPeriods` are paid and `overduePeriods` due but unpaid.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RentToOwnBody {
    pub term_months: i32,
    pub down_payment_fen: i64,
    pub monthly_payment_fen: i64,
    /// Down payment + instalments + final payment; 0 lets the server add it up.
    pub total_price_fen: i64,
    pub final_payment_fen: i64,
    pub paid_periods: i32,
    pub overdue_periods: i32,
    pub ownership_transfer_time: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageRecordBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub kind: Option<UsageKind>,
    pub status: Option<UsageStatus>,
    pub contract_no: String,
    pub counterparty: String,
    pub start_time: String,
    /// Empty for purchases.
    pub end_time: String,
    /// Set for rentals.
    pub rent: Option<RentBody>,
    pub purchase: Option<PurchaseBody>,
    pub replacement: Option<ReplacementBody>,
    pub rent_to_own: Option<RentToOwnBody>,
    pub attachments: Vec<FileRefBody>,
    pub remark: String,
    pub create_time: String,
    pub update_time: String,
}

impl From<pb::UsageRecord> for UsageRecordBody {
    fn from(r: pb::UsageRecord) -> Self {
        use pb::usage_record::Details;
        let audit = r.audit.unwrap_or_default();
        let (mut rent, mut purchase, mut replacement, mut rent_to_own) = (None, None, None, None);
        match r.details {
            Some(Details::Rent(d)) => {
                rent = Some(RentBody {
                    monthly_rent_fen: d.monthly_rent_fen,
                    deposit_fen: d.deposit_fen,
                    term_months: d.term_months,
                    payment_day: d.payment_day,
                    return_time: rfc3339(d.return_time.as_ref()),
                });
            }
            Some(Details::Purchase(d)) => {
                purchase = Some(PurchaseBody {
                    price_fen: d.price_fen,
                    purchase_tax_fen: d.purchase_tax_fen,
                    invoice_no: d.invoice_no,
                    delivery_time: rfc3339(d.delivery_time.as_ref()),
                });
            }
            Some(Details::Replacement(d)) => {
                replacement = Some(ReplacementBody {
                    replaced_vehicle_id: d.replaced_vehicle_id,
                    replaced_plate_number: d.replaced_plate_number,
                    reason: ReplacementReason::from_pb(d.reason),
                    temporary: d.temporary,
                });
            }
            Some(Details::RentToOwn(d)) => {
                rent_to_own = Some(RentToOwnBody {
                    term_months: d.term_months,
                    down_payment_fen: d.down_payment_fen,
                    monthly_payment_fen: d.monthly_payment_fen,
                    total_price_fen: d.total_price_fen,
                    final_payment_fen: d.final_payment_fen,
                    paid_periods: d.paid_periods,
                    overdue_periods: d.overdue_periods,
                    ownership_transfer_time: rfc3339(d.ownership_transfer_time.as_ref()),
                });
            }
            None => {}
        }
        UsageRecordBody {
            id: r.id,
            org_id: r.org_id,
            org_name: r.org_name,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            vin: r.vin,
            kind: UsageKind::from_pb(r.kind),
            status: UsageStatus::from_pb(r.status),
            contract_no: r.contract_no,
            counterparty: r.counterparty,
            start_time: rfc3339(r.start_time.as_ref()),
            end_time: rfc3339(r.end_time.as_ref()),
            rent,
            purchase,
            replacement,
            rent_to_own,
            attachments: r.attachments.into_iter().map(FileRefBody::from).collect(),
            remark: r.remark,
            create_time: rfc3339(audit.create_time.as_ref()),
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// Filters of a usage-record list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct UsageRecordListParams {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// The sub-page (carRentRecord, purchaseRecord, carReplaceRecord,
    /// rentForSaleRecord); every kind when absent.
    #[param(inline)]
    #[serde(default, deserialize_with = "last")]
    pub kind: Option<UsageKind>,
    /// Exact plate numbers, at most 250 (`plate=A&plate=B`).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Exact VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "vin")]
    pub vins: Vec<String>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default)]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<UsageStatus>,
    /// Part of the contract number.
    #[serde(default)]
    pub contract_no: String,
    /// Part of the counterparty.
    #[serde(default)]
    pub counterparty: String,
    /// Records running at some time in [periodStart, periodEnd) (a bare end date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub period_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub period_end: Option<Timestamp>,
    /// Records of one vehicle (its detail page).
    #[serde(default)]
    pub vehicle_id: String,
}

impl UsageRecordListParams {
    /// The filter shared by the usage-record lists and their exports.
    fn filter(self) -> pb::UsageRecordFilter {
        pb::UsageRecordFilter {
            kind: self.kind.map_or(0, i32::from),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            statuses: codes(self.statuses),
            contract_no: self.contract_no,
            counterparty: self.counterparty,
            period: time_range(self.period_start, self.period_end),
            vehicle_id: self.vehicle_id,
        }
    }
}

#[utoipa::path(
    get, path = "/usage-records", tag = "vehicles",
    params(UsageRecordListParams),
    responses((status = 200, description = "Usage records within the caller's data scope, newest first", body = Envelope<Page<UsageRecordBody>>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn list_usage_records(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<UsageRecordListParams>,
) -> ApiResult<Page<UsageRecordBody>> {
    let request = pb::ListUsageRecordsRequest {
        page: Some(paging(query.page, query.size)?),
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .list_usage_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .records
            .into_iter()
            .map(UsageRecordBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/usage-records/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Usage record id")),
    responses((status = 200, description = "One usage record", body = Envelope<UsageRecordBody>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn get_usage_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<UsageRecordBody> {
    let request = pb::GetUsageRecordRequest {
        usage_record_id: id,
    };
    let answer = state
        .assets()
        .get_usage_record(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(UsageRecordBody::from(answer.record.unwrap_or_default())))
}

/// A usage record's editable fields: exactly one of `rent`, `purchase`,
/// `replacement`, `rentToOwn`, matching the kind. The vehicle and kind of a
/// record cannot change on edit.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct UsageRecordForm {
    pub vehicle_id: String,
    pub contract_no: String,
    #[serde(default)]
    pub counterparty: String,
    /// yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339.
    pub start_time: String,
    /// Required except for purchases.
    #[serde(default)]
    pub end_time: String,
    pub rent: Option<RentBody>,
    pub purchase: Option<PurchaseBody>,
    pub replacement: Option<ReplacementBody>,
    pub rent_to_own: Option<RentToOwnBody>,
    #[serde(default)]
    pub attachments: Vec<FileRefBody>,
    #[serde(default)]
    pub remark: String,
}

impl UsageRecordForm {
    fn input(self) -> Result<pb::UsageRecordInput, ApiError> {
        use pb::usage_record_input::Details;
        let given = [
            self.rent.is_some(),
            self.purchase.is_some(),
            self.replacement.is_some(),
            self.rent_to_own.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(ApiError::invalid("kind", "只能填写一种使用类型的条款"));
        }
        let details = if let Some(r) = self.rent {
            Some(Details::Rent(pb::RentDetails {
                monthly_rent_fen: r.monthly_rent_fen,
                deposit_fen: r.deposit_fen,
                term_months: r.term_months,
                payment_day: r.payment_day,
                return_time: time_field("rent.returnTime", &r.return_time)?,
            }))
        } else if let Some(p) = self.purchase {
            Some(Details::Purchase(pb::PurchaseDetails {
                price_fen: p.price_fen,
                purchase_tax_fen: p.purchase_tax_fen,
                invoice_no: p.invoice_no,
                delivery_time: time_field("purchase.deliveryTime", &p.delivery_time)?,
            }))
        } else if let Some(r) = self.replacement {
            Some(Details::Replacement(pb::ReplacementDetails {
                replaced_vehicle_id: r.replaced_vehicle_id,
                replaced_plate_number: String::new(),
                reason: r.reason.map_or(0, i32::from),
                temporary: r.temporary,
            }))
        } else if let Some(r) = self.rent_to_own {
            Some(Details::RentToOwn(pb::RentToOwnDetails {
                term_months: r.term_months,
                down_payment_fen: r.down_payment_fen,
                monthly_payment_fen: r.monthly_payment_fen,
                total_price_fen: r.total_price_fen,
                final_payment_fen: r.final_payment_fen,
                paid_periods: r.paid_periods,
                ownership_transfer_time: time_field(
                    "rentToOwn.ownershipTransferTime",
                    &r.ownership_transfer_time,
                )?,
                overdue_periods: r.overdue_periods,
            }))
        } else {
            None
        };
        Result::Ok(pb::UsageRecordInput {
            start_time: time_field("startTime", &self.start_time)?,
            end_time: time_field("endTime", &self.end_time)?,
            vehicle_id: self.vehicle_id,
            contract_no: self.contract_no,
            counterparty: self.counterparty,
            details,
            attachments: self.attachments.into_iter().map(Into::into).collect(),
            remark: self.remark,
        })
    }
}

#[utoipa::path(
    post, path = "/usage-records", tag = "vehicles",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first result and creates nothing")),
    request_body = UsageRecordForm,
    responses((status = 200, description = "The new record; a vehicle with an unfinished record answers 4009", body = Envelope<UsageRecordBody>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn create_usage_record(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<UsageRecordForm>,
) -> ApiResult<UsageRecordBody> {
    let request = pb::CreateUsageRecordRequest {
        record: Some(form.input()?),
    };
    let answer = state
        .assets()
        .create_usage_record(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(UsageRecordBody::from(answer.record.unwrap_or_default())))
}

#[utoipa::path(
    put, path = "/usage-records/{id}", tag = "vehicles",
    params(("id" = String, Path, description = "Usage record id")),
    request_body = UsageRecordForm,
    responses((status = 200, description = "The edited record; an ended one answers 4009", body = Envelope<UsageRecordBody>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn update_usage_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<UsageRecordForm>,
) -> ApiResult<UsageRecordBody> {
    let request = pb::UpdateUsageRecordRequest {
        usage_record_id: id,
        record: Some(form.input()?),
    };
    let answer = state
        .assets()
        .update_usage_record(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(UsageRecordBody::from(answer.record.unwrap_or_default())))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct EndUsageRecordForm {
    /// When the record ended; empty = now.
    pub end_time: String,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/usage-records/{id}/end", tag = "vehicles",
    params(("id" = String, Path, description = "Usage record id")),
    request_body = EndUsageRecordForm,
    responses((status = 200, description = "The ended record; an already ended one answers 4009", body = Envelope<UsageRecordBody>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn end_usage_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<EndUsageRecordForm>,
) -> ApiResult<UsageRecordBody> {
    let request = pb::EndUsageRecordRequest {
        usage_record_id: id,
        end_time: time_field("endTime", &form.end_time)?,
        remark: form.remark,
    };
    let answer = state
        .assets()
        .end_usage_record(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(UsageRecordBody::from(answer.record.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/usage-records/export", tag = "vehicles",
    params(UsageRecordListParams),
    responses((status = 200, description = "The export record of the usage records with the list's filters and data scope (paging ignored, newest first; a kind's export carries that kind's terms, amounts in yuan); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:car:used"]))
)]
async fn export_usage_records(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<UsageRecordListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportUsageRecordsRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .assets()
        .export_usage_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
