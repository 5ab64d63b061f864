//! The one pull-consumer loop against a private JetStream server: batches
//! of up to `max`, a failed batch delivered again, and a consumer that keeps
//! going after the server restarts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream;
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::events::{self, BatchHandler, DurablePull};
use fleetdesk_testkit::NatsServer;

const STREAM: &str = "PULL_TEST";
const SUBJECT: &str = "pull.test";

/// Records the payloads of each handled batch; fails the first `fail_first` batches.
#[derive(Clone, Default)]
struct Recorder {
    handled: Arc<Mutex<Vec<Vec<String>>>>,
    failed: Arc<Mutex<usize>>,
    fail_first: usize,
}

impl BatchHandler for Recorder {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        {
            let mut failed = self.failed.lock().unwrap();
            if *failed < self.fail_first {
                *failed += 1;
                anyhow::bail!("injected failure");
            }
        }
        let batch = messages
            .iter()
            .map(|m| String::from_utf8_lossy(&m.payload).into_owned())
            .collect();
        self.handled.lock().unwrap().push(batch);
        Ok(())
    }
}

impl Recorder {
    fn seen(&self) -> Vec<String> {
        let mut all: Vec<String> = self.handled.lock().unwrap().concat();
        all.sort();
        all
    }

    async fn wait_for(&self, n: usize) -> Vec<String> {
        for _ in 0..200 {
            if self.seen().len() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // A stray second delivery would show up now.
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.seen()
    }
}

fn stream_config() -> jetstream::stream::Config {
    jetstream::stream::Config {
        name: STREAM.to_owned(),
        subjects: vec![SUBJECT.to_owned()],
        ..Default::default()
    }
}

async fn publish(js: &jetstream::Context, labels: &[&str]) {
    for label in labels {
        js.publish(SUBJECT, label.to_string().into())
            .await
            .expect("publish")
            .await
            .expect("ack");
    }
}

async fn started(nats: &NatsServer, recorder: &Recorder) -> (jetstream::Context, Shutdown) {
    let client = events::connect_nats(&nats.url(), "pull-test")
        .await
        .unwrap();
    let js = events::jetstream(client);
    let pull = DurablePull::new(
        js.clone(),
        stream_config(),
        events::consumer_config("pull-test", SUBJECT),
    )
    .batches(3, Duration::from_millis(200));
    // The consumer exists before anything is published (it takes new messages only).
    pull.ensure().await.unwrap();
    let shutdown = Shutdown::new();
    tokio::spawn(pull.run(shutdown.clone(), recorder.clone()));
    (js, shutdown)
}

#[tokio::test]
async fn batches_hold_at_most_max_and_a_failed_one_comes_back_once_handled() {
    let nats = NatsServer::start().await;
    let recorder = Recorder {
        fail_first: 1,
        ..Recorder::default()
    };
    let (js, shutdown) = started(&nats, &recorder).await;

    publish(&js, &["a", "b", "c", "d", "e", "f", "g"]).await;
    let seen = recorder.wait_for(7).await;
    shutdown.trigger();

    assert_eq!(seen, ["a", "b", "c", "d", "e", "f", "g"], "each once");
    assert_eq!(*recorder.failed.lock().unwrap(), 1);
    let batches = recorder.handled.lock().unwrap().clone();
    assert!(
        batches.iter().all(|b| (1..=3).contains(&b.len())),
        "{batches:?}"
    );
    assert!(
        batches.iter().any(|b| b.len() > 1),
        "messages ready together are one batch: {batches:?}"
    );
}

#[tokio::test]
async fn the_loop_subscribes_again_after_the_server_restarts() {
    let mut nats = NatsServer::start().await;
    let recorder = Recorder::default();
    let (js, shutdown) = started(&nats, &recorder).await;
    publish(&js, &["before"]).await;
    assert_eq!(recorder.wait_for(1).await, ["before"]);

    nats.stop();
    tokio::time::sleep(Duration::from_secs(1)).await;
    nats.resume().await;
    // The client reconnects by itself; publish once it has.
    let mut published = false;
    for _ in 0..100 {
        if let Ok(ack) = js.publish(SUBJECT, "after".into()).await
            && ack.await.is_ok()
        {
            published = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(published, "the server did not come back");
    let seen = recorder.wait_for(2).await;
    shutdown.trigger();
    assert_eq!(seen, ["after", "before"]);
}
