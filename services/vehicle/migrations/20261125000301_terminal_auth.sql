-- Authentication codes the terminal directory issued (JT/T 808 0x8100 →
-- 0x0102): one per terminal SIM, stored as a SHA-256 hash. A code counts
-- only while the terminal's active binding (vehicle_binding, kind 3) is the
-- one it was issued for, so unbinding revokes it at once.
create table terminal_auth (
    phone text primary key,
    terminal_id text not null,
    enterprise_id uuid not null,
    vehicle_id uuid not null references vehicle (id),
    code_hash bytea not null,
    issued_at timestamptz not null default now()
);

select enable_tenant_rls('terminal_auth');

-- Registration looks an active terminal binding up by its SIM across tenants.
create index vehicle_binding_active_sim_idx on vehicle_binding (ltrim(terminal_sim, '0'))
    where unbound_at is null and kind = 3;
