-- This service's copy of org's organisation tree, for data scope: fed by
-- org's `fleetdesk.org.unit.changed` events and caught up from org's
-- snapshot (kit::org_replica). A row is replaced only by a newer version.
create table org_unit (
    id uuid primary key,
    enterprise_id uuid not null,
    parent_id uuid,
    name text not null,
    -- '/<root id>/<child id>/.../<id>/': a subtree is one path prefix.
    path text not null,
    disabled boolean not null default false,
    -- org's change counter for the unit: apply only newer versions.
    version bigint not null,
    updated_at timestamptz not null default now()
);

create index org_unit_path_idx on org_unit (enterprise_id, path text_pattern_ops);

select enable_tenant_rls('org_unit');
