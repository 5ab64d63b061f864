-- Tenant isolation (issue 5): every org table carrying enterprise_id is bound
-- by the tenant policy, for the app role and the owner alike.
select enable_tenant_rls('enterprise_list_entry');
select enable_tenant_rls('org_unit');
select enable_tenant_rls('role');
select enable_tenant_rls('role_permission');
select enable_tenant_rls('member');
select enable_tenant_rls('member_role');

-- A member's own data scope (DataScopeKind); null means "from the roles".
alter table member add column data_scope_kind smallint;
alter table member add column data_scope_org_ids uuid[] not null default '{}';

-- The catalogue as a tree: the group a value sits under, and its place.
alter table permission add column parent_value text;
alter table permission add column sort int not null default 0;

-- Pages (console route names) that open in a new browser tab for the
-- enterprises on the need-open-page list (console spec §2, §3): operator data.
create table need_open_page (
    name text primary key,
    created_at timestamptz not null default now()
);
