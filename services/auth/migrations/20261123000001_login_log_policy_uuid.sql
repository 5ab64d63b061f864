-- The login-log policy compares as uuid, so the enterprise indexes serve it
-- (issue 9 §4): the signed-in enterprise by btree, the member enterprises
-- by the GIN index on enterprise_ids.
drop policy tenant_isolation on login_log;
create policy tenant_isolation on login_log using (
    current_setting('app.scope', true) = 'service'
    or enterprise_id = nullif(current_setting('app.enterprise_id', true), '')::uuid
    or enterprise_ids @> array[nullif(current_setting('app.enterprise_id', true), '')::uuid]
);
