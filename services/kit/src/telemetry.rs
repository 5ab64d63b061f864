//! Logs and traces. JSON logs to stdout (plain text with
//! `FLEETDESK_LOG_FORMAT=text`); OpenTelemetry traces over OTLP when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set; W3C trace context carried in gRPC
//! metadata between the gateway and services.

use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

const DEFAULT_FILTER: &str = "info,sqlx=warn,async_nats=warn,h2=warn,tower=warn,hyper=warn";

/// Flushes traces when dropped at the end of `main`.
#[derive(Debug)]
pub struct TelemetryGuard(Option<SdkTracerProvider>);

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.0.take()
            && let Err(err) = provider.shutdown()
        {
            eprintln!("trace exporter shutdown: {err}");
        }
    }
}

/// Installs the global subscriber. Call once, first thing in `main`.
pub fn init(service_name: &str) -> anyhow::Result<TelemetryGuard> {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let text = std::env::var("FLEETDESK_LOG_FORMAT").is_ok_and(|f| f == "text");
    let fmt = if text {
        tracing_subscriber::fmt::layer().with_target(false).boxed()
    } else {
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .boxed()
    };

    let provider = match std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT") {
        Ok(endpoint) if !endpoint.is_empty() => {
            use opentelemetry_otlp::WithExportConfig as _;
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_endpoint(endpoint)
                .build()?;
            let resource = opentelemetry_sdk::Resource::builder()
                .with_service_name(service_name.to_owned())
                .build();
            Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource)
                    .build(),
            )
        }
        _ => None,
    };
    let otel = provider
        .as_ref()
        .map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer(service_name.to_owned())));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt)
        .with(otel)
        .try_init()?;
    if let Some(p) = &provider {
        opentelemetry::global::set_tracer_provider(p.clone());
    }
    Ok(TelemetryGuard(provider))
}

struct MetadataInjector<'a>(&'a mut tonic::metadata::MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(key.as_bytes()),
            tonic::metadata::MetadataValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// Writes the current span's trace context into outgoing gRPC metadata.
pub fn inject_context(metadata: &mut tonic::metadata::MetadataMap) {
    let cx = tracing::Span::current().context();
    opentelemetry::global::get_text_map_propagator(|p| {
        p.inject_context(&cx, &mut MetadataInjector(metadata))
    });
}

/// Writes the span's trace id into its `trace_id` field (declared empty at
/// creation), so JSON log lines inside it carry the id. Without an exporter
/// there is no trace and the field stays empty.
pub fn record_trace_id(span: &tracing::Span) {
    use opentelemetry::trace::TraceContextExt as _;
    let trace_id = span.context().span().span_context().trace_id();
    if trace_id != opentelemetry::trace::TraceId::INVALID {
        span.record("trace_id", tracing::field::display(trace_id));
    }
}

/// Makes `span` a child of the trace context found in incoming headers.
pub fn adopt_remote_parent(span: &tracing::Span, headers: &http::HeaderMap) {
    let parent =
        opentelemetry::global::get_text_map_propagator(|p| p.extract(&HeaderExtractor(headers)));
    // Fails only when the span is disabled; nothing to do then.
    let _ = span.set_parent(parent);
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId, TraceState,
    };

    #[test]
    fn trace_context_round_trips_through_grpc_metadata() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let trace_id = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap();
        let sc = SpanContext::new(
            trace_id,
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            true,
            TraceState::default(),
        );
        let cx = opentelemetry::Context::new().with_remote_span_context(sc);
        let mut metadata = tonic::metadata::MetadataMap::new();
        opentelemetry::global::get_text_map_propagator(|p| {
            p.inject_context(&cx, &mut MetadataInjector(&mut metadata))
        });
        let header = metadata
            .get("traceparent")
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            header,
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        );

        let headers = metadata.into_headers();
        let back = opentelemetry::global::get_text_map_propagator(|p| {
            p.extract(&HeaderExtractor(&headers))
        });
        assert_eq!(back.span().span_context().trace_id(), trace_id);
    }
}
