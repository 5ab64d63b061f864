-- An opened inspection row follows its vehicle (issue 23): a vehicle that
-- moves takes its row to the new organisation, and a vehicle whose body
-- category, registration or licence stamp changes before any inspection
-- was recorded has its class and due date derived again by the next
-- inspections::store::open (the schedule lives in Rust, so the trigger
-- only marks the row). Before this, an edit after the first page opened
-- the row left a due date derived from the old registration.
alter table annual_inspection add column derive_pending boolean not null default false;

-- The rows waiting for their derivation, per enterprise.
create index annual_inspection_derive_idx on annual_inspection (enterprise_id)
    where derive_pending;

create function annual_inspection_follow_vehicle() returns trigger
language plpgsql as $$
begin
    update annual_inspection a
    set org_id = new.org_id,
        derive_pending = a.derive_pending or (a.last_inspected_at is null and
            (old.category, old.register_time, old.inspection_expire_time)
            is distinct from (new.category, new.register_time, new.inspection_expire_time))
    where a.enterprise_id = new.enterprise_id and a.vehicle_id = new.id;
    return null;
end
$$;

create trigger annual_inspection_follow_vehicle
after update of org_id, category, register_time, inspection_expire_time on vehicle
for each row
when ((old.org_id, old.category, old.register_time, old.inspection_expire_time)
      is distinct from (new.org_id, new.category, new.register_time, new.inspection_expire_time))
execute function annual_inspection_follow_vehicle();
