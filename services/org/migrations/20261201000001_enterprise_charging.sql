-- Whether an enterprise has charging, as energy announces it
-- (`fleetdesk.energy.opening.changed`): NOT_OPENED 1, APPLYING 2, OPENED 3.
-- The enterprise flags isChargeAccount and isChargeApplying come from here;
-- a row is replaced only by a newer version of energy's state.
create table enterprise_charging (
    enterprise_id uuid primary key references enterprise (id),
    state smallint not null,
    version bigint not null,
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('enterprise_charging');
