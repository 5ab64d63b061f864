-- Charging on the operator's platform (OCPI, energy as the eMSP): the
-- stations and tariffs synced from the platform, real-time authorisations
-- with their holds, sessions with their meter values and CDRs, and plate
-- recognitions of the stations' cameras.

create extension if not exists pg_trgm schema public;

-- Time-of-use tariffs as the platform publishes them. Operator data shared
-- by every enterprise: no tenant policy.
create table tariff (
    id uuid primary key,
    party_id text not null,
    tariff_id text not null,
    currency text not null,
    last_updated timestamptz not null,
    synced_at timestamptz not null default now(),
    constraint tariff_key unique (party_id, tariff_id)
);

-- A tariff's day in bands, [start_minute, end_minute) Asia/Shanghai.
create table tariff_period (
    tariff_id uuid not null references tariff (id) on delete cascade,
    start_minute smallint not null check (start_minute >= 0),
    end_minute smallint not null check (end_minute > start_minute and end_minute <= 1440),
    -- PEAK 1, FLAT 2, VALLEY 3.
    period smallint not null,
    electricity_fen_per_mwh bigint not null check (electricity_fen_per_mwh >= 0),
    service_fee_fen_per_mwh bigint not null check (service_fee_fen_per_mwh >= 0),
    primary key (tariff_id, start_minute)
);

-- Stations (OCPI locations), shared by every enterprise like tariffs.
create table station (
    id uuid primary key,
    party_id text not null,
    location_id text not null,
    name text not null,
    operator_name text not null default '',
    province_code text not null default '',
    city_code text not null default '',
    city_name text not null default '',
    address text not null default '',
    -- WGS-84.
    lat double precision not null,
    lng double precision not null,
    -- StationStatus: OPERATING 1, MAINTENANCE 2, CLOSED 3.
    status smallint not null,
    dc_connector_count int not null default 0,
    ac_connector_count int not null default 0,
    dc_available_count int not null default 0,
    ac_available_count int not null default 0,
    max_power_kw int not null default 0,
    -- The tariff of its connectors (the first one's).
    tariff_id uuid references tariff (id),
    opening_hours text not null default '',
    parking_note text not null default '',
    supports_plate_scan boolean not null default false,
    truck_friendly boolean not null default false,
    -- OCPI `publish`: an unpublished location is shown as closed.
    published boolean not null default true,
    last_updated timestamptz not null,
    synced_at timestamptz not null default now(),
    constraint station_key unique (party_id, location_id)
);

-- ListStations: by name (no point given), per city, near a point (a box on
-- lat/lng narrows, the exact distance orders), keyword over name and address.
create index station_name_idx on station (name, id);
create index station_city_idx on station (city_code, name, id);
create index station_point_idx on station (lat, lng);
create index station_name_trgm_idx on station using gin (name public.gin_trgm_ops);
create index station_address_trgm_idx on station using gin (address public.gin_trgm_ops);

-- A station's connectors (one per OCPI EVSE here), with the EVSE's status.
create table station_connector (
    id uuid primary key,
    station_id uuid not null references station (id) on delete cascade,
    evse_uid text not null,
    connector_id text not null,
    -- The pile number painted on site (OCPI physical_reference).
    pile_no text not null,
    -- ConnectorType: DC 1, AC 2.
    connector_type smallint not null,
    power_kw int not null,
    -- EvseState: AVAILABLE 1, CHARGING 2, RESERVED 3, BLOCKED 4,
    -- INOPERATIVE 5, OUT_OF_ORDER 6, PLANNED 7, REMOVED 8, UNKNOWN 9.
    status smallint not null,
    tariff_id uuid references tariff (id),
    last_updated timestamptz not null,
    constraint station_connector_key unique (station_id, evse_uid, connector_id)
);

create index station_connector_evse_idx on station_connector (station_id, evse_uid);

-- A real-time authorisation the platform asked for and energy allowed: the
-- card's money held for the session to come. Its id is the OCPI
-- authorization_reference and becomes the session's id; a hold whose
-- session never starts is released when it expires.
create table charging_authorization (
    id uuid primary key,
    enterprise_id uuid not null,
    card_id uuid not null,
    card_ledger_account_id uuid not null,
    -- StartMethod: CARD_SWIPE 1, APP_SCAN 2, PLATE_SCAN 3.
    start_method smallint not null,
    token_uid text not null,
    party_id text not null,
    location_id text not null,
    station_id uuid,
    held_fen bigint not null check (held_fen > 0),
    -- AuthorizationStatus: OPEN 1, STARTED 2, EXPIRED 3.
    status smallint not null default 1,
    plate_scan_id uuid,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null
);

select enable_tenant_rls('charging_authorization');

-- The sweeper's work: open authorisations past their expiry.
create index charging_authorization_open_idx on charging_authorization (expires_at) where status = 1;
-- A card's budget counts its open holds.
create index charging_authorization_card_idx on charging_authorization (card_id) where status = 1;

-- A charging session (consumeRecord), from the platform's session PUT to its CDR.
create table charging_session (
    -- The authorisation's id.
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    account_id uuid not null,
    card_id uuid not null,
    card_no text not null,
    card_ledger_account_id uuid not null,
    vehicle_id uuid,
    plate_number text not null default '',
    driver_id uuid,
    driver_name text not null default '',
    station_id uuid,
    station_name text not null default '',
    city_name text not null default '',
    pile_no text not null default '',
    connector_no text not null default '',
    -- ConnectorType: DC 1, AC 2; null when the station is unknown.
    connector_type smallint,
    -- StartMethod: CARD_SWIPE 1, APP_SCAN 2, PLATE_SCAN 3.
    start_method smallint not null,
    -- The platform's party and session id (its order number).
    party_id text not null,
    session_no text not null,
    start_time timestamptz not null,
    end_time timestamptz,
    energy_wh bigint not null default 0,
    electricity_fen bigint not null default 0,
    service_fee_fen bigint not null default 0,
    parking_fee_fen bigint not null default 0,
    discount_fen bigint not null default 0,
    -- The platform's cost so far (final with the CDR).
    cost_fen bigint not null default 0,
    -- What the enterprise pays: the capture once settled (at most held);
    -- while charging, the cost so far up to what is held.
    total_fen bigint not null default 0,
    -- Cost the hold did not cover (a stop came late); never billed.
    uncollected_fen bigint not null default 0,
    refunded_fen bigint not null default 0,
    -- Moved from the card onto the session's hold so far, and how many holds.
    held_fen bigint not null default 0,
    hold_count int not null default 0,
    start_soc smallint,
    end_soc smallint,
    -- ChargingSessionStatus: CHARGING 1, SETTLED 2, ABNORMAL 3, REFUNDED 4.
    status smallint not null default 1,
    stop_reason text not null default '',
    -- A STOP_SESSION is due (the hold runs out) and when the platform accepted it.
    stop_requested_at timestamptz,
    stop_sent_at timestamptz,
    -- The platform's last_updated of the newest update applied.
    last_updated timestamptz not null,
    cdr_id text,
    settle_time timestamptz,
    -- yyyymm of the statement (the month the session ended, Asia/Shanghai).
    statement_month int,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint charging_session_key unique (party_id, session_no),
    constraint charging_session_total_check check (total_fen <= held_fen or status <> 2)
);

select enable_tenant_rls('charging_session');
select manage_updated_at('charging_session');

-- ListChargingSessions (start time required, newest first) and its export.
create index charging_session_newest_idx on charging_session (enterprise_id, start_time desc, id desc);
create index charging_session_plate_idx on charging_session (enterprise_id, plate_number, start_time desc);
create index charging_session_card_idx on charging_session (enterprise_id, card_no, start_time desc);
create index charging_session_org_idx on charging_session (enterprise_id, org_id, start_time desc);
create index charging_session_station_idx on charging_session (enterprise_id, station_id, start_time desc);
create index charging_session_driver_idx on charging_session (enterprise_id, driver_id, start_time desc)
    where driver_id is not null;
create index charging_session_no_idx on charging_session (enterprise_id, session_no);
create index charging_session_month_idx on charging_session (enterprise_id, statement_month, start_time desc)
    where statement_month is not null;
-- A card's budget: its sessions of the period.
create index charging_session_card_time_idx on charging_session (card_id, start_time desc);
-- The sweeper: stops the platform has not accepted yet.
create index charging_session_stop_due_idx on charging_session (stop_requested_at)
    where status = 1 and stop_requested_at is not null and stop_sent_at is null;

-- Meter values of a session, one per OCPI charging period: energy of the
-- period, the SOC and power at it, and the tariff band it was priced in.
create table charging_meter_value (
    session_id uuid not null references charging_session (id),
    enterprise_id uuid not null,
    period_start timestamptz not null,
    energy_wh bigint not null,
    power_w bigint,
    soc smallint,
    tariff_id text not null default '',
    primary key (session_id, period_start)
);

select enable_tenant_rls('charging_meter_value');

-- CDRs as received (the record behind a settlement and a statement).
create table charging_cdr (
    party_id text not null,
    cdr_id text not null,
    enterprise_id uuid not null,
    session_id uuid not null references charging_session (id),
    body jsonb not null,
    received_at timestamptz not null default now(),
    primary key (party_id, cdr_id)
);

select enable_tenant_rls('charging_cdr');

-- Plates the stations' cameras recognised (scanPlateRecord). A plate no
-- card of any enterprise carries stays the operator's: no enterprise, so no
-- tenant sees it.
create table plate_scan (
    id uuid primary key,
    enterprise_id uuid,
    party_id text not null,
    scan_no text not null,
    station_id uuid,
    station_name text not null default '',
    location_id text not null,
    evse_uid text not null,
    pile_no text not null default '',
    plate_number text not null,
    vehicle_id uuid,
    card_id uuid,
    card_no text not null default '',
    org_id uuid,
    scan_time timestamptz not null,
    -- PlateScanResult: STARTED 1, NOT_REGISTERED 2, CARD_UNAVAILABLE 3,
    -- INSUFFICIENT_BALANCE 4, BUDGET_EXCEEDED 5, PILE_FAILED 6; null while
    -- the pile has not asked or the session has not started yet.
    result smallint,
    authorization_id uuid,
    session_id uuid,
    created_at timestamptz not null default now(),
    constraint plate_scan_key unique (party_id, scan_no)
);

select enable_tenant_rls('plate_scan');

-- ListPlateScanRecords (scan time required, newest first) and its export.
create index plate_scan_newest_idx on plate_scan (enterprise_id, scan_time desc, id desc);
create index plate_scan_plate_idx on plate_scan (enterprise_id, plate_number, scan_time desc);
create index plate_scan_station_idx on plate_scan (enterprise_id, station_id, scan_time desc);
create index plate_scan_org_idx on plate_scan (enterprise_id, org_id, scan_time desc);
-- An authorisation by plate finds the recognition it follows; the sweeper
-- closes recognitions no session followed.
create index plate_scan_pending_idx on plate_scan (plate_number, location_id, scan_time desc)
    where result is null;

-- The token list the platform pulls (OCPI tokens, `date_from` on the card's
-- last change), across enterprises.
create index charging_card_updated_idx on charging_card (updated_at, id);
