-- Tenant isolation (issue 5). A login-log row belongs to every enterprise the
-- account was a member of at the attempt (enterprise_ids) and to the one it
-- signed in to (enterprise_id): each of them may read it. Sign-in itself
-- writes in a service-scoped transaction.
alter table login_log enable row level security;
alter table login_log force row level security;
create policy tenant_isolation on login_log using (
    current_setting('app.scope', true) = 'service'
    or enterprise_id::text = current_setting('app.enterprise_id', true)
    or current_setting('app.enterprise_id', true) = any (enterprise_ids::text[])
);

-- Sessions are found by token hash before any tenant is known: only
-- service-scoped transactions (or the session's own enterprise) see them.
select enable_tenant_rls('session');
