//! The whole stack as one `fleetdesk all` process, with the simulator beside
//! it, and what drills ask of it over HTTP.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Drill, Process, eventually, free_port};
use crate::terminal::Bound;

pub const PASSWORD: &str = "Demo@12345";

pub struct Stack {
    pub process: Process,
    /// `http://127.0.0.1:<port>` of the gateway.
    pub base: String,
    /// Where terminals connect (JT/T 808).
    pub edge: String,
    pub http: reqwest::Client,
}

/// Starts `fleetdesk all` on the drill's migrated and seeded database and
/// waits until `/readyz` answers 200.
pub async fn start_all(drill: &mut Drill) -> Stack {
    let http_addr = format!("127.0.0.1:{}", free_port());
    let edge = format!("127.0.0.1:{}", free_port());
    start_replica(drill, "all", &http_addr, &edge).await
}

/// Starts one `fleetdesk all` process as `name` (its log `<name>.log`),
/// its gateway on `http_addr` and its device edge on `edge`, beside any
/// other on the drill's database and NATS (as a chart's `replicas: 2`
/// runs them); waits until `/readyz` answers 200. Starting it again on the
/// same addresses is a restarted pod.
pub async fn start_replica(drill: &mut Drill, name: &str, http_addr: &str, edge: &str) -> Stack {
    let (http_addr, edge) = (http_addr.to_owned(), edge.to_owned());
    let mut process = drill.spawn(
        name,
        &["all", "--http-addr", &http_addr],
        &[
            ("FLEETDESK_JT808_ADDR", edge.clone()),
            ("FLEETDESK_OCPI_ADDR", "127.0.0.1:0".to_owned()),
        ],
    );
    let stack_http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("http client");
    let base = format!("http://{http_addr}");
    eventually(Duration::from_secs(60), "fleetdesk all is ready", || {
        process.assert_running();
        let http = stack_http.clone();
        let url = format!("{base}/readyz");
        async move {
            let response = http.get(url).send().await.ok()?;
            (response.status() == 200).then_some(())
        }
    })
    .await;
    Stack {
        process,
        base,
        edge,
        http: stack_http,
    }
}

/// One answer of the edge API: the HTTP status and the envelope.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Stack {
    /// The token of the demo administrator of enterprise A.
    pub async fn token(&self) -> String {
        let answer = self
            .send(
                reqwest::Method::POST,
                "/api/v1/auth/login",
                None,
                Some(json!({ "loginType": 1, "username": "demo", "password": PASSWORD })),
            )
            .await
            .expect("login answered");
        assert_eq!(answer.status, 200, "login: {}", answer.body);
        answer.body["data"]["token"]
            .as_str()
            .expect("token")
            .to_owned()
    }

    /// A request; `Err` names a transport failure (no answer).
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Answer, String> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.header("token", token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(Value::Null);
        Ok(Answer { status, body })
    }

    pub async fn get(&self, path: &str, token: &str) -> Result<Answer, String> {
        self.send(reqwest::Method::GET, path, Some(token), None)
            .await
    }

    /// Whether `/readyz` answers 200 within 5 s.
    pub async fn ready(&self) -> bool {
        let probe = self
            .http
            .get(format!("{}/readyz", self.base))
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        probe.is_ok_and(|r| r.status() == 200)
    }
}

/// Simulated terminals of the first `vehicles` bound vehicles reporting
/// every second to `edge`.
pub fn simulate(drill: &mut Drill, edge: &str, vehicles: usize) -> Process {
    simulate_slice(drill, "simulator", edge, 0, vehicles)
}

/// Simulated terminals of the bound vehicles past the first `skip`, at
/// most `vehicles` of them, reporting every second to `edge` (two slices
/// split a fleet over two device edges).
pub fn simulate_slice(
    drill: &mut Drill,
    name: &str,
    edge: &str,
    skip: usize,
    vehicles: usize,
) -> Process {
    drill.spawn(
        name,
        &[
            "simulate",
            "--skip",
            &skip.to_string(),
            "--vehicles",
            &vehicles.to_string(),
            "--interval-secs",
            "1",
            "--edge-addr",
            edge,
        ],
        &[],
    )
}

/// The vehicles with a bound terminal, in the order the simulator takes
/// them (so the ones past its count are free for a probe terminal).
pub async fn bound_terminals(pool: &sqlx_postgres::PgPool) -> Vec<Bound> {
    let rows: Vec<(uuid::Uuid, String, String, String)> = sqlx::query_as(
        "select v.id, v.plate_number, b.target_id, b.terminal_sim \
         from vehicle.vehicle_binding b join vehicle.vehicle v on v.id = b.vehicle_id \
         where b.kind = 3 and b.unbound_at is null order by v.enterprise_id, v.plate_number",
    )
    .fetch_all(pool)
    .await
    .expect("read terminal bindings");
    rows.into_iter()
        .filter_map(|(vehicle_id, plate, terminal_id, sim)| {
            let phone = [sim.trim(), terminal_id.trim()]
                .into_iter()
                .find(|p| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit()))?
                .to_owned();
            Some(Bound {
                vehicle_id,
                plate,
                phone,
                terminal_id,
            })
        })
        .collect()
}
