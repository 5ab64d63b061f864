//! gRPC scaffolding: a server with health, reflection and the internal-token
//! check; clients that send the token and the trace context.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::server::NamedService;
use tonic::transport::{Channel, Endpoint, Server};
use tonic::{Request, Status};

use crate::error::{ErrorCode, ServiceError};
use crate::internal_token::{Claims, TokenSigner, TokenVerifier};
use crate::shutdown::Shutdown;
use crate::telemetry;

/// The verified caller of a gRPC request, put there by [`authenticate`].
#[derive(Debug, Clone)]
pub struct Caller(pub Arc<Claims>);

/// Interceptor that refuses calls without a valid internal token.
pub fn authenticate(
    verifier: TokenVerifier,
) -> impl FnMut(Request<()>) -> Result<Request<()>, Status> + Clone + Send + Sync + 'static {
    move |req: Request<()>| check_token(&verifier, req)
}

/// Metadata carrying the internal token. Not `authorization`: HTTP/2 never
/// indexes that header's value (HPACK, as nghttp2), so a token of a
/// kilobyte or two (every permission) was Huffman-coded, sent and decoded on
/// every call; under its own name it is indexed once per connection and then
/// travels as a table index while it is reused (see `SignedToken`).
pub const TOKEN_KEY: &str = "internal-token";

fn check_token(verifier: &TokenVerifier, mut req: Request<()>) -> Result<Request<()>, Status> {
    let metadata = req.metadata();
    // `authorization: Bearer` is still accepted (grpcurl, older callers).
    let token = metadata
        .get(TOKEN_KEY)
        .and_then(|v| v.to_str().ok())
        .or_else(|| {
            metadata
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
        })
        .ok_or_else(|| ServiceError::new(ErrorCode::Unauthenticated, "缺少内部访问令牌"))?;
    let claims = verifier
        .verify(token)
        .map_err(|_| ServiceError::new(ErrorCode::Unauthenticated, "内部访问令牌无效"))?;
    req.extensions_mut().insert(Caller(claims));
    Ok(req)
}

/// [`authenticate`] as a named type, for services kit itself hosts.
#[derive(Clone, Debug)]
pub struct Authenticator(pub TokenVerifier);

impl tonic::service::Interceptor for Authenticator {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        check_token(&self.0, req)
    }
}

/// A service's export jobs API behind the token check (see `kit::export`).
pub type ExportJobGrpc = tonic::service::interceptor::InterceptedService<
    fleetdesk_proto::common::v1::export_job_service_server::ExportJobServiceServer<
        crate::export::ExportJobApi,
    >,
    Authenticator,
>;

/// The caller of a request that passed [`authenticate`].
pub fn caller<T>(req: &Request<T>) -> Result<&Claims, ServiceError> {
    req.extensions()
        .get::<Caller>()
        .map(|c| c.0.as_ref())
        .ok_or_else(ServiceError::unauthenticated)
}

/// The tenant a user call acts for; service-level calls have none.
pub fn tenant<T>(req: &Request<T>) -> Result<uuid::Uuid, ServiceError> {
    caller(req)?
        .ent
        .as_deref()
        .and_then(|e| uuid::Uuid::parse_str(e).ok())
        .ok_or_else(ServiceError::forbidden)
}

/// Refuses a caller that is not another service.
pub fn require_service<T>(req: &Request<T>) -> Result<(), ServiceError> {
    if caller(req)?.is_service() {
        Ok(())
    } else {
        Err(ServiceError::forbidden())
    }
}

/// Refuses a user caller lacking `permission`. Services pass.
pub fn require_permission<T>(req: &Request<T>, permission: &str) -> Result<(), ServiceError> {
    let claims = caller(req)?;
    if claims.is_service() || claims.has_permission(permission) {
        Ok(())
    } else {
        Err(ServiceError::forbidden())
    }
}

/// An outgoing request carrying a signed internal token and the trace context.
pub fn outgoing<T>(message: T, signer: &TokenSigner, claims: &Claims) -> Request<T> {
    outgoing_signed(message, &signer.sign(claims))
}

/// [`outgoing`] with a token signed before (see `internal_token::SignedToken`).
pub fn outgoing_signed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut()
        .insert(TOKEN_KEY, token.parse().expect("token is ascii"));
    telemetry::inject_context(req.metadata_mut());
    req
}

/// A channel that connects on first use and reconnects after failures.
pub fn lazy_channel(url: &str) -> anyhow::Result<Channel> {
    Ok(Endpoint::from_shared(url.to_owned())?
        .connect_timeout(Duration::from_secs(3))
        .timeout(Duration::from_secs(30))
        .tcp_nodelay(true)
        .connect_lazy())
}

fn request_span(req: &http::Request<()>) -> tracing::Span {
    let span = tracing::info_span!(
        "grpc",
        otel.name = %req.uri().path(),
        rpc.method = %req.uri().path(),
        trace_id = tracing::field::Empty
    );
    telemetry::adopt_remote_parent(&span, req.headers());
    telemetry::record_trace_id(&span);
    span
}

/// A tonic service a server can host: what `Router::add_service` needs.
pub trait GrpcService:
    tower::Service<
        http::Request<tonic::body::Body>,
        Error = Infallible,
        Response: axum::response::IntoResponse,
        Future: Send + 'static,
    > + NamedService
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> GrpcService for S where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Error = Infallible,
            Response: axum::response::IntoResponse,
            Future: Send + 'static,
        > + NamedService
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// The gRPC services one server target hosts (e.g. vehicle: asset,
/// telemetry, risk and maintenance), each already behind [`authenticate`].
pub struct Services {
    routes: tonic::service::Routes,
    names: Vec<&'static str>,
    /// The database the services need: health says "not serving" while it
    /// does not answer, so the gateway's `/readyz` goes red.
    database: Option<sqlx_postgres::PgPool>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("names", &self.names)
            .finish()
    }
}

impl Services {
    pub fn new<S: GrpcService>(service: S) -> Services {
        Services {
            routes: tonic::service::Routes::new(service),
            names: vec![S::NAME],
            database: None,
        }
    }

    /// Health follows `pool`'s database (see [`watch_database`]).
    pub fn needing(mut self, pool: sqlx_postgres::PgPool) -> Services {
        self.database = Some(pool);
        self
    }

    /// One more service on the same server.
    pub fn with<S: GrpcService>(mut self, service: S) -> Services {
        self.routes = self.routes.add_service(service);
        self.names.push(S::NAME);
        self
    }
}

/// Serves one gRPC service with health and reflection until shutdown.
pub async fn serve<S: GrpcService>(
    listener: TcpListener,
    service: S,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    serve_all(listener, Services::new(service), shutdown).await
}

/// Serves several gRPC services on one listener, with health (per service
/// and overall) and reflection naming each, until shutdown.
pub async fn serve_all(
    listener: TcpListener,
    services: Services,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let Services {
        routes,
        names,
        database,
    } = services;
    let (health_reporter, health) = tonic_health::server::health_reporter();
    for name in &names {
        health_reporter
            .set_service_status(*name, tonic_health::ServingStatus::Serving)
            .await;
    }
    health_reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
    if let Some(pool) = database {
        tokio::spawn(watch_database(
            pool,
            health_reporter.clone(),
            names.clone(),
            shutdown.clone(),
        ));
    }

    let reflection = || {
        let mut builder = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(fleetdesk_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .with_service_name("grpc.health.v1.Health");
        for name in &names {
            builder = builder.with_service_name(*name);
        }
        builder
    };
    let routes = routes
        .add_service(health)
        .add_service(reflection().build_v1()?)
        .add_service(reflection().build_v1alpha()?);

    let addr = listener.local_addr()?;
    let label = names.join(",");
    tracing::info!(services = %label, %addr, "gRPC server listening.");
    let incoming = tokio_stream_incoming(listener);
    let stopping = shutdown.clone();
    let stopped_names = names.clone();
    Server::builder()
        .trace_fn(request_span)
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming, async move {
            stopping.wait().await;
            for name in stopped_names {
                health_reporter
                    .set_service_status(name, tonic_health::ServingStatus::NotServing)
                    .await;
            }
        })
        .await?;
    tracing::info!(services = %label, "gRPC server stopped.");
    Ok(())
}

/// How often health asks the database, and how long an answer may take.
const DATABASE_PROBE: Duration = Duration::from_secs(2);

/// Keeps health "serving" only while the database answers `select 1` on a
/// connection of its own (the pool's may all be busy under load, which is
/// no outage), reconnecting after a failure.
async fn watch_database(
    pool: sqlx_postgres::PgPool,
    reporter: tonic_health::server::HealthReporter,
    names: Vec<&'static str>,
    shutdown: Shutdown,
) {
    use sqlx::Connection as _;
    let options = pool.connect_options();
    let mut conn: Option<sqlx_postgres::PgConnection> = None;
    let mut serving = true;
    loop {
        tokio::select! {
            () = tokio::time::sleep(DATABASE_PROBE) => {}
            () = shutdown.wait() => return,
        }
        let answered = tokio::time::timeout(DATABASE_PROBE, async {
            if conn.is_none() {
                conn = Some(sqlx_postgres::PgConnection::connect_with(&options).await?);
            }
            let c = conn.as_mut().expect("connected above");
            sqlx::query("select 1").execute(c).await.map(|_| ())
        })
        .await;
        let up = matches!(answered, Ok(Ok(())));
        if !up {
            conn = None;
        }
        if up == serving {
            continue;
        }
        serving = up;
        let status = if up {
            tracing::info!("PostgreSQL answers again: serving.");
            tonic_health::ServingStatus::Serving
        } else {
            tracing::warn!("PostgreSQL does not answer: not serving until it does.");
            tonic_health::ServingStatus::NotServing
        };
        for name in names.iter().copied().chain([""]) {
            reporter.set_service_status(name, status).await;
        }
    }
}

fn tokio_stream_incoming(
    listener: TcpListener,
) -> impl futures::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    futures::stream::unfold(listener, |listener| async move {
        let conn = listener.accept().await.map(|(stream, _)| {
            let _ = stream.set_nodelay(true);
            stream
        });
        Some((conn, listener))
    })
}

/// The answer of an RPC whose issue is not built yet: UNIMPLEMENTED naming the
/// method, so a caller knows what is missing rather than guessing.
pub fn not_built(method: &str) -> Status {
    Status::unimplemented(format!("{method} 尚未建设"))
}

/// Implements a gRPC service whose methods are not built yet, one line per
/// method. The proto crate generates no default stubs, so a method missing
/// from the list fails to compile: the unbuilt surface is always written down.
///
/// ```ignore
/// fleetdesk_kit::not_built! {
///     FinanceService for NotBuilt, "fleetdesk.finance.v1.FinanceService" {
///         list_orders(pb::ListOrdersRequest) -> pb::ListOrdersResponse;
///     }
/// }
/// ```
#[macro_export]
macro_rules! not_built {
    ($service:ident for $api:ty, $name:literal { $($method:ident($request:ty) -> $response:ty;)+ }) => {
        #[tonic::async_trait]
        impl $service for $api {
            $(
                async fn $method(
                    &self,
                    _request: tonic::Request<$request>,
                ) -> Result<tonic::Response<$response>, tonic::Status> {
                    Err($crate::grpc::not_built(concat!($name, "/", stringify!($method))))
                }
            )+
        }
    };
}
