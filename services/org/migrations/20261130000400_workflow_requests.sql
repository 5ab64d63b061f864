-- Workflow requests from other services (docs/ARCHITECTURE.md §5.3):
-- notices and approvals raised by typed events (org's `workflow`).

-- A requested notice carries the requester's key: the same key gives each
-- recipient (or the whole enterprise) one notice, however often it comes.
alter table notice add column source_key text;
-- The console path the notice points at (empty: none).
alter table notice add column link text not null default '';

create unique index notice_source_key on notice
    (enterprise_id, source_key, coalesce(recipient_id, '00000000-0000-0000-0000-000000000000'::uuid))
    where source_key is not null;

-- A member's notices, newest first (the notice centre reads them by recipient).
create index notice_recipient_idx on notice (enterprise_id, recipient_id, published_at desc);

-- A requested approval carries the requester's key: the same key raises one.
alter table approval add column request_key text;

create unique index approval_request_key on approval (enterprise_id, request_key)
    where request_key is not null;

-- Members by permission: the holders of a value through enabled roles.
create index role_permission_value_idx on role_permission (enterprise_id, permission_value);
