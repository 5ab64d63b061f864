//! Directory RPCs: service callers only (the edge is not a user).

use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::telematics::v1 as pb;
use tonic::Request;

use super::domain::{self, Registration};
use super::store;
use crate::context::Context;

pub async fn register(
    ctx: &Context,
    req: Request<pb::RegisterTerminalRequest>,
) -> Result<pb::RegisterTerminalResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::RegisterTerminalRequest {
        phone,
        terminal_id,
        plate_number: _,
        plate_color: _,
        maker_id,
        terminal_model: _,
    } = req.into_inner();
    let phone = domain::phone(&phone);
    let terminal_id = terminal_id.trim().to_owned();
    if phone.is_empty() {
        return Ok(refused(pb::RegisterOutcome::NoTerminal));
    }
    let mut tx = db::begin_service(&ctx.pool).await?;
    let lookup = store::lookup(&mut tx, &phone, &terminal_id).await?;
    let answer = match domain::register(&terminal_id, lookup) {
        Registration::Accepted(bound) => {
            let code = domain::new_code();
            let maker_id = domain::maker_id(&maker_id);
            store::save_code(&mut tx, &phone, &bound, maker_id, &domain::code_hash(&code)).await?;
            tracing::info!(%phone, vehicle = %bound.vehicle_id, "Terminal registered.");
            pb::RegisterTerminalResponse {
                outcome: pb::RegisterOutcome::Accepted as i32,
                auth_code: code,
            }
        }
        Registration::VehicleTaken => refused(pb::RegisterOutcome::VehicleTaken),
        Registration::TerminalTaken => refused(pb::RegisterOutcome::TerminalTaken),
        Registration::NoTerminal => refused(pb::RegisterOutcome::NoTerminal),
    };
    tx.commit().await?;
    Ok(answer)
}

fn refused(outcome: pb::RegisterOutcome) -> pb::RegisterTerminalResponse {
    tracing::info!(?outcome, "Terminal registration refused.");
    pb::RegisterTerminalResponse {
        outcome: outcome as i32,
        auth_code: String::new(),
    }
}

pub async fn authenticate(
    ctx: &Context,
    req: Request<pb::AuthenticateTerminalRequest>,
) -> Result<pb::AuthenticateTerminalResponse, ServiceError> {
    grpc::require_service(&req)?;
    let pb::AuthenticateTerminalRequest { phone, auth_code } = req.into_inner();
    let phone = domain::phone(&phone);
    let mut tx = db::begin_service(&ctx.pool).await?;
    let found = store::authenticate(&mut tx, &phone, &domain::code_hash(&auth_code)).await?;
    db::end_read(tx);
    Ok(match found {
        Some(store::Authenticated {
            enterprise_id,
            vehicle_id,
            maker_id,
        }) => pb::AuthenticateTerminalResponse {
            accepted: true,
            enterprise_id: enterprise_id.to_string(),
            vehicle_id: vehicle_id.to_string(),
            maker_id: maker_id.unwrap_or_default(),
        },
        None => {
            tracing::info!(%phone, "Terminal authentication refused.");
            pb::AuthenticateTerminalResponse::default()
        }
    })
}
