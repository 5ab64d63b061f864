-- Indexes behind the remaining list filters: an enterprise's applications by
-- status, and cards by kind and by holder kind (each in the list's order).
create index charging_open_application_tenant_status_idx
    on charging_open_application (enterprise_id, status, apply_time desc, id desc);
create index charging_card_kind_idx on charging_card (enterprise_id, kind, issued_at desc, id desc);
create index charging_card_holder_kind_idx
    on charging_card (enterprise_id, holder_kind, issued_at desc, id desc);
