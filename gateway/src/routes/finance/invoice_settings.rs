//! What invoices are made out to and sent to: invoice titles (companyManage,
//! permission `as:invoice:company`; the apply form lists them under
//! `as:invoice`) and invoice addresses (addressManage, `as:invoice`). An
//! update replaces every field; the default one lists first.

use axum::extract::{Path, State};
use fleetdesk_proto::finance::v1 as pb;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{InvoiceAddressBody, InvoiceAreaBody, InvoiceTitleBody, InvoiceTitleType};
use crate::edge::paging::paging;
use crate::edge::query::EdgeQuery;
use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_invoice_titles, create_invoice_title))
        .routes(routes!(update_invoice_title, delete_invoice_title))
        .routes(routes!(list_invoice_addresses, create_invoice_address))
        .routes(routes!(update_invoice_address, delete_invoice_address))
}

/// Filters of the title list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceTitleListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Part of the name or tax number.
    pub keyword: Option<String>,
}

#[utoipa::path(
    get, path = "/finance/invoice-titles", tag = "finance",
    params(InvoiceTitleListParams),
    responses((status = 200, description = "Invoice titles, the default first", body = Envelope<Page<InvoiceTitleBody>>)),
    security(("token" = ["as:invoice:company", "as:invoice"]))
)]
async fn list_invoice_titles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<InvoiceTitleListParams>,
) -> ApiResult<Page<InvoiceTitleBody>> {
    let request = pb::ListInvoiceTitlesRequest {
        page: Some(paging(query.page, query.size)?),
        keyword: query.keyword.unwrap_or_default(),
    };
    let answer = state
        .finance()
        .list_invoice_titles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.titles.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// An invoice title's fields; the console checks the unified social credit
/// code (GB 32100) and asks again before keeping one that fails the check.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct InvoiceTitleForm {
    pub title_type: Option<InvoiceTitleType>,
    pub name: String,
    pub tax_number: String,
    pub registered_address: String,
    pub registered_phone: String,
    pub bank_name: String,
    pub bank_account: String,
    pub is_default: bool,
    /// The user confirmed a second time a tax number failing the GB 32100
    /// check; without it such a number is refused (4000 naming `taxNumber`).
    pub tax_number_confirmed: bool,
}

impl From<InvoiceTitleForm> for pb::InvoiceTitleInput {
    fn from(f: InvoiceTitleForm) -> Self {
        let InvoiceTitleForm {
            title_type,
            name,
            tax_number,
            registered_address,
            registered_phone,
            bank_name,
            bank_account,
            is_default,
            tax_number_confirmed: _,
        } = f;
        pb::InvoiceTitleInput {
            title_type: title_type.map_or(0, Into::into),
            name,
            tax_number: tax_number.to_uppercase(),
            registered_address,
            registered_phone,
            bank_name,
            bank_account,
            is_default,
        }
    }
}

#[utoipa::path(
    post, path = "/finance/invoice-titles", tag = "finance",
    request_body = InvoiceTitleForm,
    responses((status = 200, description = "The new title", body = Envelope<InvoiceTitleBody>)),
    security(("token" = ["as:invoice:company"]))
)]
async fn create_invoice_title(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<InvoiceTitleForm>,
) -> Result<OkWith<InvoiceTitleBody>, ApiError> {
    let request = pb::CreateInvoiceTitleRequest {
        tax_number_confirmed: form.tax_number_confirmed,
        title: Some(form.into()),
    };
    let answer = state
        .finance()
        .create_invoice_title(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "开票抬头已添加",
        data: answer.title.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    put, path = "/finance/invoice-titles/{titleId}", tag = "finance",
    params(("titleId" = String, Path, description = "Invoice title id")),
    request_body = InvoiceTitleForm,
    responses((status = 200, description = "The title with every field replaced", body = Envelope<InvoiceTitleBody>)),
    security(("token" = ["as:invoice:company"]))
)]
async fn update_invoice_title(
    State(state): State<AppState>,
    principal: Principal,
    Path(title_id): Path<String>,
    TrimmedJson(form): TrimmedJson<InvoiceTitleForm>,
) -> Result<OkWith<InvoiceTitleBody>, ApiError> {
    let request = pb::UpdateInvoiceTitleRequest {
        title_id,
        tax_number_confirmed: form.tax_number_confirmed,
        title: Some(form.into()),
    };
    let answer = state
        .finance()
        .update_invoice_title(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "开票抬头已保存",
        data: answer.title.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    delete, path = "/finance/invoice-titles/{titleId}", tag = "finance",
    params(("titleId" = String, Path, description = "Invoice title id")),
    responses((status = 200, description = "Deleted (applications keep the title as it was)", body = Envelope<Empty>)),
    security(("token" = ["as:invoice:company"]))
)]
async fn delete_invoice_title(
    State(state): State<AppState>,
    principal: Principal,
    Path(title_id): Path<String>,
) -> Result<OkWith<Empty>, ApiError> {
    state
        .finance()
        .delete_invoice_title(state.as_user(&principal, pb::DeleteInvoiceTitleRequest { title_id }))
        .await?;
    Result::Ok(OkWith {
        msg: "开票抬头已删除",
        data: Empty {},
    })
}

/// Paging of the address list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceAddressListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
}

#[utoipa::path(
    get, path = "/finance/invoice-addresses", tag = "finance",
    params(InvoiceAddressListParams),
    responses((status = 200, description = "Invoice addresses, the default first", body = Envelope<Page<InvoiceAddressBody>>)),
    security(("token" = ["as:invoice"]))
)]
async fn list_invoice_addresses(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<InvoiceAddressListParams>,
) -> ApiResult<Page<InvoiceAddressBody>> {
    let request = pb::ListInvoiceAddressesRequest {
        page: Some(paging(query.page, query.size)?),
    };
    let answer = state
        .finance()
        .list_invoice_addresses(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.addresses.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// An invoice address's fields; an empty phone on update keeps the stored one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct InvoiceAddressForm {
    pub recipient_name: String,
    pub recipient_phone: String,
    pub area: InvoiceAreaBody,
    pub detail_address: String,
    pub postal_code: String,
    pub email: String,
    pub is_default: bool,
}

impl From<InvoiceAddressForm> for pb::InvoiceAddressInput {
    fn from(f: InvoiceAddressForm) -> Self {
        let InvoiceAddressForm {
            recipient_name,
            recipient_phone,
            area,
            detail_address,
            postal_code,
            email,
            is_default,
        } = f;
        pb::InvoiceAddressInput {
            recipient_name,
            recipient_phone,
            area: Some(area.into()),
            detail_address,
            postal_code,
            email,
            is_default,
        }
    }
}

#[utoipa::path(
    post, path = "/finance/invoice-addresses", tag = "finance",
    request_body = InvoiceAddressForm,
    responses((status = 200, description = "The new address", body = Envelope<InvoiceAddressBody>)),
    security(("token" = ["as:invoice"]))
)]
async fn create_invoice_address(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<InvoiceAddressForm>,
) -> Result<OkWith<InvoiceAddressBody>, ApiError> {
    let request = pb::CreateInvoiceAddressRequest {
        address: Some(form.into()),
    };
    let answer = state
        .finance()
        .create_invoice_address(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "地址已添加",
        data: answer.address.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    put, path = "/finance/invoice-addresses/{addressId}", tag = "finance",
    params(("addressId" = String, Path, description = "Invoice address id")),
    request_body = InvoiceAddressForm,
    responses((status = 200, description = "The address with every field replaced", body = Envelope<InvoiceAddressBody>)),
    security(("token" = ["as:invoice"]))
)]
async fn update_invoice_address(
    State(state): State<AppState>,
    principal: Principal,
    Path(address_id): Path<String>,
    TrimmedJson(form): TrimmedJson<InvoiceAddressForm>,
) -> Result<OkWith<InvoiceAddressBody>, ApiError> {
    let request = pb::UpdateInvoiceAddressRequest {
        address_id,
        address: Some(form.into()),
    };
    let answer = state
        .finance()
        .update_invoice_address(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "地址已保存",
        data: answer.address.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    delete, path = "/finance/invoice-addresses/{addressId}", tag = "finance",
    params(("addressId" = String, Path, description = "Invoice address id")),
    responses((status = 200, description = "Deleted", body = Envelope<Empty>)),
    security(("token" = ["as:invoice"]))
)]
async fn delete_invoice_address(
    State(state): State<AppState>,
    principal: Principal,
    Path(address_id): Path<String>,
) -> Result<OkWith<Empty>, ApiError> {
    state
        .finance()
        .delete_invoice_address(
            state.as_user(&principal, pb::DeleteInvoiceAddressRequest { address_id }),
        )
        .await?;
    Result::Ok(OkWith {
        msg: "地址已删除",
        data: Empty {},
    })
}
