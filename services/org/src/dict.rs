//! Dictionaries (`getSimpleDictByType`): operator-maintained value lists
//! shared by every enterprise.

use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgPool};
use tonic::{Request, Response};

#[derive(Debug, FromRow)]
struct DictRow {
    dict_type: String,
    value: String,
    label: String,
    sort: i32,
}

/// Enabled entries of one dictionary type, in their order; every enabled
/// entry when no type is named. An unknown type is empty.
pub async fn get_simple_dict_by_type(
    pool: &PgPool,
    request: Request<pb::GetSimpleDictByTypeRequest>,
) -> Result<Response<pb::GetSimpleDictByTypeResponse>, ServiceError> {
    grpc::caller(&request)?;
    let dict_type = request.get_ref().r#type.trim();
    let rows: Vec<DictRow> = sqlx::query_as(
        "select dict_type, value, label, sort from dict_entry \
         where ($1 = '' or dict_type = $1) and status = 1 order by dict_type, sort, value",
    )
    .bind(dict_type)
    .fetch_all(pool)
    .await?;
    Ok(Response::new(pb::GetSimpleDictByTypeResponse {
        entries: rows
            .into_iter()
            .map(|r| pb::DictEntry {
                r#type: r.dict_type,
                value: r.value,
                label: r.label,
                sort: r.sort,
            })
            .collect(),
    }))
}
