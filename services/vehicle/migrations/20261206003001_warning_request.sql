-- What vehicle management has asked risk to warn of (fleetdesk-maintenance::due):
-- each due item once per period, so the daily job writes no event twice.
create table warning_request (
    enterprise_id uuid not null,
    -- WarningType: 1 insurance, 2 inspection, 3 maintenance.
    kind smallint not null,
    -- The reminder, inspection or policy.
    subject_id uuid not null,
    -- Its due date (or due odometer reading).
    period text not null,
    requested_at timestamptz not null default now(),
    primary key (enterprise_id, kind, subject_id, period)
);

select enable_tenant_rls('warning_request');
