-- Remote lock (lockCarManagement): each lock or unlock command and its
-- state machine: queued (1) → sent (2) → acknowledged (7) → succeeded (3)
-- / failed (4) / timed out (8); queued commands to an offline terminal
-- expire (6), and a newer command for the vehicle cancels queued ones (5).
-- Codes follow LockCommandStatus.
create table lock_command (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation when asked, for reach.
    org_id uuid not null,
    created_by uuid,
    operator_name text not null default '',
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    vin text not null,
    -- The terminal SIM the command goes to (telematics.command.<phone>).
    phone text not null,
    -- LockAction: 1 lock, 2 unlock.
    action smallint not null,
    reason text not null,
    state smallint not null,
    failure_reason text not null default '',
    -- The 0x8500 serial number the edge wrote.
    serial bigint,
    attempts int not null default 0,
    next_attempt_at timestamptz not null default now(),
    sent_at timestamptz,
    completed_at timestamptz,
    expire_at timestamptz not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('lock_command');
select manage_updated_at('lock_command');

create index lock_command_newest_idx on lock_command (enterprise_id, created_at desc, id desc);
create index lock_command_vehicle_idx on lock_command (enterprise_id, vehicle_id, created_at desc);
create index lock_command_org_idx on lock_command (enterprise_id, org_id, created_at desc);
create index lock_command_creator_idx on lock_command (enterprise_id, created_by);
create index lock_command_plate_idx on lock_command (enterprise_id, plate_number);
-- What the delivery and timeout sweeps look at: unfinished commands only.
create index lock_command_open_idx on lock_command (next_attempt_at) where state in (1, 2, 7);
