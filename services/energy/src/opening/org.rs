//! Org as opening needs it: the enterprise's name and whether it is on the
//! charge blacklist, read over gRPC with this service's token acting in
//! that enterprise.

use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use crate::context::Context;

/// What opening reads of an enterprise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enterprise {
    pub name: String,
    pub charge_blacklisted: bool,
}

/// The enterprise as org knows it. Without org (a stack that did not wire
/// it) the name is empty and the blacklist unknown (false).
pub async fn enterprise(ctx: &Context, enterprise_id: Uuid) -> Result<Enterprise, ServiceError> {
    let Some((client, signer)) = &ctx.org else {
        return Ok(Enterprise::default());
    };
    let mut claims = Claims::service(crate::SCHEMA.name);
    claims.ent = Some(enterprise_id.to_string());
    let answer = client
        .clone()
        .get_enterprise(grpc::outgoing(
            pb::GetEnterpriseRequest {
                enterprise_id: enterprise_id.to_string(),
            },
            signer,
            &claims,
        ))
        .await
        .map_err(|s| ServiceError::from_status(&s))?
        .into_inner();
    Ok(Enterprise {
        name: answer.enterprise.map(|e| e.name).unwrap_or_default(),
        charge_blacklisted: answer.flags.is_some_and(|f| f.charge_blacklist),
    })
}
