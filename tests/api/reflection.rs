use std::collections::BTreeSet;

use fleetdesk_proto::org::v1::ListRolesRequest;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use prost::Message as _;
use tonic_reflection::pb::v1::ServerReflectionRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

use crate::helpers::spawn_app;

fn expected_methods(service: &str) -> BTreeSet<String> {
    let fds = prost_types::FileDescriptorSet::decode(fleetdesk_proto::FILE_DESCRIPTOR_SET).unwrap();
    methods_in(&fds.file, service)
}

fn methods_in(files: &[prost_types::FileDescriptorProto], service: &str) -> BTreeSet<String> {
    files
        .iter()
        .flat_map(|f| f.service.iter().map(move |s| (f.package(), s)))
        .filter(|(package, s)| format!("{package}.{}", s.name()) == service)
        .flat_map(|(_, s)| s.method.iter().map(|m| m.name().to_owned()))
        .collect()
}

async fn ask(
    client: &mut ServerReflectionClient<tonic::transport::Channel>,
    request: MessageRequest,
) -> MessageResponse {
    let outbound = futures::stream::iter(vec![ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    }]);
    let mut inbound = client
        .server_reflection_info(outbound)
        .await
        .unwrap()
        .into_inner();
    inbound
        .message()
        .await
        .unwrap()
        .unwrap()
        .message_response
        .unwrap()
}

#[tokio::test]
async fn reflection_lists_every_service_and_its_methods_on_each_target() {
    let app = spawn_app().await;
    let expected_services = [
        ("auth", "fleetdesk.auth.v1.AuthService"),
        ("org", "fleetdesk.org.v1.OrgService"),
        ("vehicle", "fleetdesk.vehicle.v1.AssetService"),
        ("vehicle", "fleetdesk.vehicle.v1.TelemetryService"),
        ("vehicle", "fleetdesk.vehicle.v1.RiskService"),
        ("vehicle", "fleetdesk.vehicle.v1.MaintenanceService"),
        ("energy", "fleetdesk.energy.v1.EnergyService"),
        ("finance", "fleetdesk.finance.v1.FinanceService"),
    ];
    for (target, service) in expected_services {
        let port = app
            .grpc_ports
            .iter()
            .find(|(name, _)| *name == target)
            .unwrap()
            .1;
        let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = ServerReflectionClient::new(channel);

        let MessageResponse::ListServicesResponse(list) =
            ask(&mut client, MessageRequest::ListServices(String::new())).await
        else {
            panic!("{target}: not a service list");
        };
        let names: BTreeSet<String> = list.service.into_iter().map(|s| s.name).collect();
        assert!(names.contains(service), "{target} lists {names:?}");
        assert!(
            names.contains("grpc.health.v1.Health"),
            "{target} lists {names:?}"
        );

        let MessageResponse::FileDescriptorResponse(files) = ask(
            &mut client,
            MessageRequest::FileContainingSymbol(service.to_owned()),
        )
        .await
        else {
            panic!("{target}: no descriptor");
        };
        let files: Vec<prost_types::FileDescriptorProto> = files
            .file_descriptor_proto
            .iter()
            .map(|b| prost_types::FileDescriptorProto::decode(b.as_slice()).unwrap())
            .collect();
        let methods = methods_in(&files, service);
        assert!(methods.len() >= 4, "{service} has methods: {methods:?}");
        assert_eq!(methods, expected_methods(service), "{target}");
    }
}

#[tokio::test]
async fn a_service_refuses_calls_without_an_internal_token() {
    let app = spawn_app().await;
    let port = app
        .grpc_ports
        .iter()
        .find(|(name, _)| *name == "org")
        .unwrap()
        .1;
    let mut client = OrgServiceClient::connect(format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    let status = client
        .list_roles(ListRolesRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);

    let mut forged = tonic::Request::new(ListRolesRequest::default());
    forged.metadata_mut().insert(
        "authorization",
        "Bearer eyJhbGciOiJub25lIn0.e30.".parse().unwrap(),
    );
    assert_eq!(
        client.list_roles(forged).await.unwrap_err().code(),
        tonic::Code::Unauthenticated
    );
}
