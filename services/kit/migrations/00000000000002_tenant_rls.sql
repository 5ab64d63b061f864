-- Row-level security for tenant-owned tables. A service migration calls
-- `select enable_tenant_rls('table')` for each table with an enterprise_id:
-- the app role then sees and writes only the rows of the enterprise its
-- transaction names (db::begin_tenant), or every row in a service-scoped
-- transaction (db::begin_service). No setting at all means no rows.
create function enable_tenant_rls(target regclass) returns void
language plpgsql as $$
begin
    execute format('alter table %s enable row level security', target);
    execute format('alter table %s force row level security', target);
    execute format(
        'create policy tenant_isolation on %s using ('
        || 'enterprise_id::text = current_setting(''app.enterprise_id'', true) '
        || 'or current_setting(''app.scope'', true) = ''service'')',
        target);
end
$$;
