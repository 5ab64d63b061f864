-- Invoices (ticketManagement): titles (companyManage), addresses
-- (addressManage), applications against paid bills and the invoices the
-- invoicing platform issued for them.
--
-- Titles and addresses are the enterprise's, not an organisation's: every
-- applicant of the tenant picks from the same ones. An application keeps
-- the title and address as they were when applying (snapshots), so
-- editing or deleting one never rewrites an invoice already asked for.
--
-- The money: applying adds the amount to each bill's invoiced_fen under the
-- bill's row lock (so two applications can never take the same money);
-- cancelling an application not yet issued, or reversing its invoice with
-- a red-letter one, takes it off again. The bill's invoice state follows
-- (a generated column of the bills migration).
--
-- Issuing is a table-driven queue: the worker takes applications in
-- status ISSUING whose next_attempt_at has come, `for update skip locked`,
-- and retries the platform's retryable failures later with the same
-- request number (the platform answers a repeat with the same invoice).

create table invoice_title (
    id uuid primary key,
    enterprise_id uuid not null,
    -- InvoiceTitleType: COMPANY 1, INSTITUTION 2.
    title_type smallint not null,
    name text not null,
    tax_number text not null default '',
    -- The user confirmed a tax number failing the GB 32100 check a second time.
    tax_number_unchecked boolean not null default false,
    registered_address text not null default '',
    registered_phone text not null default '',
    bank_name text not null default '',
    bank_account text not null default '',
    is_default boolean not null default false,
    created_by uuid,
    created_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default '',
    constraint invoice_title_name_key unique (enterprise_id, name)
);

select enable_tenant_rls('invoice_title');
select manage_updated_at('invoice_title');

-- One default title per enterprise.
create unique index invoice_title_default_key on invoice_title (enterprise_id) where is_default;
create index invoice_title_created_idx on invoice_title (enterprise_id, created_at desc, id desc);

create table invoice_address (
    id uuid primary key,
    enterprise_id uuid not null,
    recipient_name text not null,
    recipient_phone text not null,
    province_code text not null default '',
    province_name text not null default '',
    city_code text not null default '',
    city_name text not null default '',
    district_code text not null default '',
    district_name text not null default '',
    detail_address text not null default '',
    postal_code text not null default '',
    email text not null default '',
    is_default boolean not null default false,
    created_by uuid,
    created_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default ''
);

select enable_tenant_rls('invoice_address');
select manage_updated_at('invoice_address');

create unique index invoice_address_default_key on invoice_address (enterprise_id) where is_default;
create index invoice_address_created_idx on invoice_address (enterprise_id, created_at desc, id desc);

create table invoice_application (
    id uuid primary key,
    enterprise_id uuid not null,
    -- e.g. FP20261208-3F2A9C1B: the day applied and the id's first digits.
    application_no text not null,
    -- Channel: STANDARD 1, B2B 2.
    channel smallint not null,
    -- InvoiceType: DIGITAL_SPECIAL 1, DIGITAL_GENERAL 2, PAPER_SPECIAL 3, PAPER_GENERAL 4.
    invoice_type smallint not null,
    -- InvoiceApplicationStatus: PENDING_REVIEW 1, ISSUING 2, ISSUED 3,
    -- MAILED 4, REJECTED 5, CANCELLED 6.
    status smallint not null,
    -- The title and address as they were when applying: the answered
    -- InvoiceTitle and InvoiceAddress messages (protobuf), phone masked.
    title bytea not null,
    address bytea,
    amount_fen bigint not null check (amount_fen > 0),
    content text not null default '',
    contract_no text not null default '',
    purchase_order_no text not null default '',
    invoice_remark text not null default '',
    applicant uuid,
    applicant_name text not null default '',
    apply_time timestamptz not null default now(),
    review_time timestamptz,
    reject_reason text not null default '',
    cancel_reason text not null default '',
    -- The issuing queue: when to try next, how often tried, the last failure.
    next_attempt_at timestamptz,
    attempts int not null default 0,
    last_error text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default '',
    constraint invoice_application_no_key unique (enterprise_id, application_no)
);

select enable_tenant_rls('invoice_application');
select manage_updated_at('invoice_application');

create index invoice_application_apply_idx on invoice_application (enterprise_id, apply_time desc, id desc);
-- The issuing worker's queue (across tenants).
create index invoice_application_queue_idx on invoice_application (next_attempt_at)
    where status = 2;

create table invoice_application_bill (
    application_id uuid not null references invoice_application (id) on delete cascade,
    enterprise_id uuid not null,
    bill_id uuid not null references bill (id),
    bill_no text not null,
    kind smallint not null,
    period int not null,
    amount_fen bigint not null check (amount_fen > 0),
    primary key (application_id, bill_id)
);

select enable_tenant_rls('invoice_application_bill');

create index invoice_application_bill_idx on invoice_application_bill (enterprise_id, bill_id);

-- The invoice issued for an application (one per application: a line per bill).
create table issued_invoice (
    application_id uuid primary key references invoice_application (id) on delete cascade,
    enterprise_id uuid not null,
    -- 20 digits.
    invoice_number text not null,
    request_no text not null,
    amount_fen bigint not null,
    tax_fen bigint not null,
    total_fen bigint not null,
    tax_rate_bp int not null,
    issue_time timestamptz not null,
    -- The PDF in the object store: [{name, key, contentType, sizeBytes}].
    file jsonb not null default '[]',
    reversed boolean not null default false,
    red_invoice_number text not null default '',
    red_issue_time timestamptz,
    reverse_reason text not null default '',
    constraint issued_invoice_number_key unique (enterprise_id, invoice_number)
);

select enable_tenant_rls('issued_invoice');
