-- `updated_at` is kept by the database, never by hand-written now():
-- `select manage_updated_at('table')` installs a trigger that stamps it on
-- every update that changes the row.
create function set_updated_at() returns trigger
language plpgsql as $$
begin
    if new is distinct from old then
        new.updated_at := now();
    end if;
    return new;
end
$$;

create function manage_updated_at(target regclass) returns void
language plpgsql as $$
begin
    execute format(
        'create trigger set_updated_at before update on %s '
        || 'for each row execute function set_updated_at()',
        target);
end
$$;
