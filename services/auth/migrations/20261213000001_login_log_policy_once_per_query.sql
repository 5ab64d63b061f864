-- The login-log policy reads its settings once per query (scalar subqueries,
-- run once as InitPlans), as the kit's tenant policy now does: a row is
-- compared with parameters rather than parsing the settings again.
drop policy tenant_isolation on login_log;
create policy tenant_isolation on login_log using (
    (select current_setting('app.scope', true) = 'service')
    or enterprise_id = (select nullif(current_setting('app.enterprise_id', true), '')::uuid)
    or enterprise_ids @> array[(select nullif(current_setting('app.enterprise_id', true), '')::uuid)]
);
