//! GetImportTemplate: the template of the vehicle or driver import, empty
//! but for the header row the import reads. It names the subjects' columns,
//! so it sits above them (and above `imports`, which they use).

use fleetdesk_kit::import;
use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use crate::{drivers, vehicles};

/// `GetImportTemplate`: the template of an import, for a caller who may
/// use that import.
pub fn template(
    req: &Request<pb::GetImportTemplateRequest>,
) -> Result<pb::GetImportTemplateResponse, ServiceError> {
    grpc::tenant(req)?;
    let (permission, columns, file_name) =
        match pb::ImportKind::try_from(req.get_ref().kind).unwrap_or_default() {
            pb::ImportKind::Vehicles => (
                vehicles::PERMISSION,
                vehicles::import::COLUMNS,
                "车辆导入模板.xlsx",
            ),
            pb::ImportKind::Drivers => (
                drivers::PERMISSION,
                drivers::import::COLUMNS,
                "司机导入模板.xlsx",
            ),
            pb::ImportKind::Unspecified => {
                return Err(ServiceError::invalid("kind", "请选择导入类型"));
            }
        };
    grpc::require_permission(req, permission)?;
    Ok(pb::GetImportTemplateResponse {
        file_name: file_name.to_owned(),
        content: import::template(columns)?,
    })
}
