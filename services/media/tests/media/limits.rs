//! The media port's limits: garbage and silence end a connection.

use std::time::Duration;

use fleetdesk_media::{Hub, Limits};
use rand::{Rng as _, SeedableRng as _};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::start_server;

/// Waits for the server to close `socket`.
async fn closed_by_server(socket: &mut TcpStream) -> bool {
    let mut buf = [0; 64];
    matches!(
        tokio::time::timeout(Duration::from_secs(5), socket.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn a_connection_sending_only_garbage_is_closed_and_counted() {
    let hub = Hub::new();
    let limits = Limits {
        max_garbage_bytes: 4096,
        ..Limits::default()
    };
    let server = start_server(&hub, limits).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(1078);
    let garbage: Vec<u8> = (0..64 * 1024).map(|_| rng.r#gen::<u8>()).collect();

    let mut socket = TcpStream::connect(server.addr).await.expect("connect");
    // The server may close mid-write; that is the point.
    for chunk in garbage.chunks(1024) {
        if socket.write_all(chunk).await.is_err() {
            break;
        }
    }
    assert!(closed_by_server(&mut socket).await, "still open");
    let counts = hub.counts();
    assert_eq!(counts.dropped_connections, 1);
    assert!(counts.malformed_frames > 0);
    assert_eq!(counts.frames, 0);
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_time() {
    let hub = Hub::new();
    let limits = Limits {
        idle: Duration::from_millis(200),
        ..Limits::default()
    };
    let server = start_server(&hub, limits).await;
    let mut socket = TcpStream::connect(server.addr).await.expect("connect");
    assert!(closed_by_server(&mut socket).await, "still open");
    assert_eq!(hub.counts().dropped_connections, 0, "idle is not garbage");
}
