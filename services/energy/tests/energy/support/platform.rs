//! The charging platform stand-in in front of energy's OCPI receiver, as
//! the operator's platform would be: given only energy's versions URL and
//! bootstrap token A, it registers through the credentials handshake; then
//! tests start sessions by card, let them charge for a while and stop them,
//! and energy holds, captures and settles them over the network. Plus
//! cards funded down the tree.

use fleetdesk_charging_standin::network::{Network, Pile};
use fleetdesk_charging_standin::{
    PARTY_ID, SessionView, Settings, StandIn, StartOutcome, StartRequest, StopCause,
};
use std::time::Duration;

use fleetdesk_energy::ocpi::{OcpiConfig, versions_url};
use fleetdesk_kit::Shutdown;
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::{Stack, Tenant};

/// The stack with charging opened for both tenants and the platform,
/// registered with energy.
pub struct Charging {
    pub stack: Stack,
    pub platform: StandIn,
    /// Energy's OCPI receiver: scheme, host and port.
    pub emsp_url: String,
    /// The bootstrap token energy was given (spent by the registration).
    pub token_a: String,
    stop: Shutdown,
}

impl Drop for Charging {
    fn drop(&mut self) {
        self.stop.trigger();
    }
}

pub async fn charging() -> Charging {
    charging_on(fleetdesk_charging_standin::network::network()).await
}

/// [`charging`] with the platform's stations given; answers once the
/// platform has registered with energy.
pub async fn charging_on(network: Network) -> Charging {
    let token_a = Uuid::new_v4().simple().to_string();
    let ocpi = OcpiConfig {
        ocpi_addr: "127.0.0.1:0".to_owned(),
        ocpi_public_url: None,
        ocpi_token_a: Some(token_a.clone().into()),
        station_sync_secs: 600,
    };
    let stack = super::stack_with(true, Some(&ocpi)).await;
    let emsp_url = format!("http://127.0.0.1:{}", stack.ocpi_port.unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let platform = StandIn::with_network(
        Settings {
            party_id: PARTY_ID.to_owned(),
            public_url: format!("http://{}", listener.local_addr().unwrap()),
            emsp_versions_url: versions_url(&ocpi, stack.ocpi_port.unwrap()),
            token_a: token_a.clone(),
        },
        network,
    );
    let stop = Shutdown::new();
    let stopping = stop.clone();
    tokio::spawn(fleetdesk_charging_standin::serve(
        listener,
        platform.clone(),
        None,
        async move { stopping.wait().await },
    ));
    tokio::time::timeout(Duration::from_secs(30), platform.registered())
        .await
        .expect("the platform registers with energy");
    Charging {
        stack,
        platform,
        emsp_url,
        token_a,
        stop,
    }
}

impl Charging {
    /// Tops `t`'s main account up by `fen` and allocates it along `path`
    /// (organisations from the root's child down); the last account's id.
    pub async fn fund(&self, t: &Tenant, path: &[Uuid], fen: i64) -> String {
        let s = &self.stack;
        s.top_up(t, fen).await;
        let mut from = s.account_of(t, t.root).await.id;
        for org in path {
            let to = s.account_of(t, *org).await.id;
            s.client
                .clone()
                .allocate_balance(s.keyed(
                    t,
                    &Uuid::new_v4().to_string(),
                    pb::AllocateBalanceRequest {
                        from_account_id: from,
                        targets: vec![pb::AllocationTarget {
                            to_account_id: to.clone(),
                            amount_fen: fen,
                        }],
                        remark: String::new(),
                        idempotency_key: String::new(),
                    },
                ))
                .await
                .unwrap();
            from = to;
        }
        from
    }

    /// A card of `t`'s organisation at the end of `path` with `fen` on it,
    /// bound to vehicle `vehicle` or, when None, to the tenant's driver.
    pub async fn card(
        &self,
        t: &Tenant,
        path: &[Uuid],
        vehicle: Option<usize>,
        fen: i64,
    ) -> pb::ChargingCard {
        let s = &self.stack;
        let account = self.fund(t, path, fen).await;
        let org = *path.last().unwrap();
        let (holder_kind, vehicle_id, driver_id) = match vehicle {
            Some(i) => (
                pb::CardHolderKind::Vehicle,
                t.vehicles[i].0.to_string(),
                String::new(),
            ),
            None => (
                pb::CardHolderKind::Driver,
                String::new(),
                t.driver.to_string(),
            ),
        };
        let card = s
            .client
            .clone()
            .create_charging_card(
                s.req(
                    t,
                    pb::CreateChargingCardRequest {
                        card: Some(pb::ChargingCardInput {
                            org_id: org.to_string(),
                            account_id: account,
                            kind: pb::ChargingCardKind::Physical as i32,
                            card_no: format!("CN{}", &Uuid::new_v4().simple().to_string()[..12])
                                .to_uppercase(),
                            holder_kind: holder_kind as i32,
                            vehicle_id,
                            driver_id,
                            budget_period: pb::BudgetPeriod::None as i32,
                            ..Default::default()
                        }),
                    },
                ),
            )
            .await
            .unwrap()
            .into_inner()
            .card
            .unwrap();
        s.client
            .clone()
            .change_charging_card_amount(s.req(
                t,
                pb::ChangeChargingCardAmountRequest {
                    card_id: card.id.clone(),
                    kind: pb::CardAmountChangeKind::TopUp as i32,
                    amount_fen: fen,
                    remark: String::new(),
                    idempotency_key: Uuid::new_v4().to_string(),
                },
            ))
            .await
            .unwrap();
        card
    }

    /// A whole session on `card_no`: started at a station with a free pile,
    /// charged `minutes` at `power_kw` from `start_soc`, stopped at the
    /// pile; energy has settled its CDR when this returns.
    pub async fn session(
        &self,
        card_no: &str,
        minutes: i64,
        power_kw: u32,
        start_soc: u8,
    ) -> SessionView {
        self.session_billed(card_no, minutes, power_kw, start_soc, |_| {})
            .await
    }

    /// [`Charging::session`] with its CDR changed by `bill` before it is sent.
    pub async fn session_billed(
        &self,
        card_no: &str,
        minutes: i64,
        power_kw: u32,
        start_soc: u8,
        bill: impl FnOnce(&mut fleetdesk_ocpi::Cdr),
    ) -> SessionView {
        let mut last = None;
        for station in &self.platform.network().stations {
            let started = self
                .platform
                .start_session(StartRequest {
                    token_uid: card_no.to_owned(),
                    by_plate: false,
                    location_id: station.location_id.clone(),
                    evse_uid: None,
                    power_kw,
                    battery_kwh: 400,
                    start_soc,
                })
                .await;
            match started {
                Ok(StartOutcome::Charging { session }) => {
                    self.platform
                        .advance(&session.id, chrono::Duration::minutes(minutes))
                        .await
                        .unwrap();
                    self.platform
                        .stop_keeping_cdr(&session.id, StopCause::Local)
                        .await
                        .unwrap();
                    self.platform.amend_cdr(&session.id, bill).await.unwrap();
                    let ended = self.platform.resend_cdr(&session.id).await.unwrap();
                    assert!(ended.cdr_delivered, "{ended:?}");
                    return ended;
                }
                other => last = Some(format!("{other:?}")),
            }
        }
        panic!("no station started a session: {last:?}");
    }
}

/// The stand-in's stations, the first with cameras given `piles` DC piles
/// (every session of a test starts there), and that station's location id.
pub fn network_with(piles: usize) -> (Network, String) {
    let mut network = fleetdesk_charging_standin::network::network();
    let station = network
        .stations
        .iter_mut()
        .find(|s| s.plate_recognition)
        .unwrap();
    station.piles = (1..=piles)
        .map(|i| Pile {
            evse_uid: format!("{}-{i:03}", station.location_id),
            pile_no: format!("{i:03}"),
            dc: true,
            max_kw: 120,
        })
        .collect();
    let location = station.location_id.clone();
    (network, location)
}
