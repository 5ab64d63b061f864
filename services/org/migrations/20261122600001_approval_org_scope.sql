-- Data scopes reach approvals (issue 5): an approval belongs to the
-- organisation its applicant applied from, kept on the row so a later move
-- of the applicant does not change who may see it.
alter table approval add column org_id uuid references org_unit (id) on delete set null;

-- Existing rows: the applicant's current organisation. The backfill spans
-- every tenant, so it runs with the service scope the tenant policy admits.
select set_config('app.scope', 'service', true);
update approval a set org_id = m.org_id
from member m
where m.id = a.applicant_id and m.enterprise_id = a.enterprise_id and a.org_id is null;

create index approval_org_idx on approval (enterprise_id, org_id);

-- Export records reach by the requesting member's organisation.
create index export_record_requested_by_idx on export_record (enterprise_id, requested_by);
