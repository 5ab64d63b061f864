-- What a vehicle's terminal can stream (JT/T 1078 0x9003 → 0x1003), as the
-- device edge reported it after the terminal authenticated: one row per
-- vehicle, replaced on each report. Video is offered only for vehicles with
-- video channels; terminals without a camera never answer and have no row.
create table vehicle_camera (
    vehicle_id uuid primary key references vehicle (id),
    enterprise_id uuid not null,
    org_id uuid not null,
    -- The terminal's SIM without zero padding (the 808 and 1078 terminal id).
    phone text not null,
    video_channels smallint not null,
    audio_channels smallint not null,
    -- JT/T 1078 Table 12: 98 H.264, 99 H.265.
    video_encoding smallint not null,
    reported_at timestamptz not null
);

select enable_tenant_rls('vehicle_camera');

-- The camera tree: vehicles with video in an organisation's reach.
create index vehicle_camera_org_idx on vehicle_camera (enterprise_id, org_id)
    where video_channels > 0;
