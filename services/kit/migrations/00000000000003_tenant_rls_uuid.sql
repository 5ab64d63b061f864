-- The tenant policy compares enterprise_id as a uuid with the setting, so an
-- index on enterprise_id can serve it (comparing `enterprise_id::text` could
-- not, and ran per row for every tenant). Re-creates every tenant policy of
-- this schema made by enable_tenant_rls; later migrations use the new function.
create or replace function tenant_policy_expression() returns text
language sql immutable as $$
    select 'enterprise_id = nullif(current_setting(''app.enterprise_id'', true), '''')::uuid '
        || 'or current_setting(''app.scope'', true) = ''service'''
$$;

create or replace function enable_tenant_rls(target regclass) returns void
language plpgsql as $$
begin
    execute format('alter table %s enable row level security', target);
    execute format('alter table %s force row level security', target);
    execute format('drop policy if exists tenant_isolation on %s', target);
    execute format('create policy tenant_isolation on %s using (%s)',
                   target, tenant_policy_expression());
end
$$;

do $$
declare
    t record;
begin
    for t in select format('%I.%I', schemaname, tablename) as name
             from pg_policies
             where schemaname = current_schema() and policyname = 'tenant_isolation'
               -- Policies of their own (auth's login_log) are fixed by their service.
               and qual not like '%enterprise_ids%'
    loop
        perform enable_tenant_rls(t.name::regclass);
    end loop;
end
$$;
