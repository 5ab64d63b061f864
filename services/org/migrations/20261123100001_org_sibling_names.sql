-- Two organisations under one parent may not share a name (top-level ones
-- compare among themselves).
create unique index org_unit_sibling_name_key
    on org_unit (enterprise_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), name);
