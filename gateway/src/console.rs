//! Serving the console build like a CDN: the build's precompressed `.br` and
//! `.gz` files when the browser accepts them (else the plain file), hashed
//! `/assets/*` cached for a year as immutable, and `index.html` (also the
//! fallback of every client-side route) revalidated on each load so a new
//! release is picked up at once.

use std::path::Path;

use axum::extract::{OriginalUri, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::services::{ServeDir, ServeFile};

/// `Cache-Control` of files whose name carries their content hash.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else (index.html, favicons).
pub const REVALIDATE: &str = "no-cache";

/// The console's routes: `/assets/*` exactly as built (a missing hashed file
/// is a 404, never index.html under a year-long cache), everything else from
/// the build's root with client-side routes falling back to index.html.
pub fn router<S: Clone + Send + Sync + 'static>(dir: &Path) -> axum::Router<S> {
    let index = ServeFile::new(dir.join("index.html"))
        .precompressed_br()
        .precompressed_gzip();
    let assets = ServeDir::new(dir.join("assets"))
        .precompressed_br()
        .precompressed_gzip();
    let root = ServeDir::new(dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(index);
    axum::Router::new()
        .nest_service("/assets", assets)
        .fallback_service(root)
        .layer(axum::middleware::from_fn(cache_policy))
}

/// Sets the cache policy of a console answer by its path.
async fn cache_policy(req: Request, next: Next) -> Response {
    // Nesting strips `/assets` from the URI; the original keeps it.
    let path = req
        .extensions()
        .get::<OriginalUri>()
        .map_or_else(|| req.uri().path().to_owned(), |o| o.path().to_owned());
    let hashed = path.starts_with("/assets/");
    let mut response = next.run(req).await;
    let policy = if hashed && response.status() == StatusCode::OK {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    response
}
