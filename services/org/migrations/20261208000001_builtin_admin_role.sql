-- The enterprise's built-in administrator role (issue 26: an enterprise
-- could lock itself out through the API). It cannot be deleted, disabled or
-- lose a function permission or its whole-enterprise data scope, and its last
-- enabled holder cannot be disabled or lose it. One per enterprise at most.
alter table role add column builtin boolean not null default false;

-- Existing enterprises: the role the seed gives every enterprise
-- (超级管理员), else the oldest enabled role holding every permission. The
-- backfill spans every tenant, so it runs with the service scope.
select set_config('app.scope', 'service', true);
update role set builtin = true
where id in (
    select distinct on (r.enterprise_id) r.id
    from role r
    where r.status = 1
      and (r.name = '超级管理员'
           or not exists (
               select 1 from permission p
               where not exists (
                   select 1 from role_permission rp
                   where rp.role_id = r.id and rp.permission_value = p.value)))
    order by r.enterprise_id, (r.name = '超级管理员') desc, r.created_at, r.id
);

create unique index role_builtin_key on role (enterprise_id) where builtin;
