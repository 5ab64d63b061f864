-- Org's change counter for organisations (issue 9): every insert and update
-- of a unit takes the next value, so replicas in other services keep the
-- newest state whatever order events and snapshots arrive in. Taken after
-- the row lock, so a later commit of the same unit has the higher version.
create sequence org_unit_version_seq;

alter table org_unit
    add column version bigint not null default nextval('org_unit_version_seq');

create function org_unit_bump_version() returns trigger
language plpgsql as $$
begin
    new.version := nextval('org_unit_version_seq');
    return new;
end
$$;

create trigger org_unit_version before update on org_unit
    for each row execute function org_unit_bump_version();
