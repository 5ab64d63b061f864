-- The viewing audit of vehicle video (issue 22): every start of watching a
-- camera, live or a recording, with who, which vehicle and channel, when and
-- for how long. The gateway records the start before it asks the device edge
-- and the end when the stream ends. Each row keeps the vehicle's organisation
-- when the viewing began (reach) and its viewer (reach "own records").

create table video_view (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id),
    channel smallint not null,
    -- VideoViewKind: 1 live, 2 playback.
    kind smallint not null,
    created_by uuid,
    viewer_name text not null default '',
    started_at timestamptz not null default now(),
    -- Null while the viewing lasts (or when its end was never heard).
    ended_at timestamptz,
    constraint video_view_channel_check check (channel between 1 and 255),
    constraint video_view_kind_check check (kind in (1, 2)),
    constraint video_view_ended_check check (ended_at is null or ended_at >= started_at)
);

select enable_tenant_rls('video_view');

-- The audit list: newest first, and its vehicle and organisation filters.
create index video_view_started_idx on video_view (enterprise_id, started_at desc, id desc);
create index video_view_vehicle_idx on video_view (enterprise_id, vehicle_id, started_at desc);
create index video_view_org_idx on video_view (enterprise_id, org_id, started_at desc);
