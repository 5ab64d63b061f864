-- The unit's code (org's org_code), so a domain service can find an
-- organisation by the code an operator types (imports). Versions restart at
-- zero, so the next catch-up from org's snapshot (every start) rewrites each
-- unit with its code.
alter table org_unit add column code text not null default '';
select set_config('app.scope', 'service', true);
update org_unit set version = 0;
