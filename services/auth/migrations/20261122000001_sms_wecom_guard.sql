-- Failure counters against guessing, one row per key: 'account:<id>',
-- 'name:<what was typed>' for unknown accounts, 'ip:<address>'. An attempt is
-- counted before its secret is checked; success clears it again.
create table sign_in_guard (
    key text primary key,
    attempts int not null,
    window_started_at timestamptz not null,
    locked_until timestamptz
);

-- SMS verification codes. Only an HMAC of the code is kept.
create table sms_code (
    id uuid primary key,
    phone text not null,
    -- SmsPurpose of the contract: 1 login, 2 reset password.
    purpose smallint not null,
    code_hmac bytea not null,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    -- Set when used, replaced by a newer code, or killed by wrong entries.
    spent_at timestamptz,
    failed_attempts int not null default 0
);

create index sms_code_live_idx on sms_code (phone, purpose, created_at desc) where spent_at is null;

-- Every SMS request that passed the limits, for counting them.
create table sms_send (
    id uuid primary key,
    phone text not null,
    ip text not null,
    sent_at timestamptz not null default now()
);

create index sms_send_phone_idx on sms_send (phone, sent_at);
create index sms_send_ip_idx on sms_send (ip, sent_at);

-- What the development sender "sent". Never written in production.
create table dev_sms_message (
    id uuid primary key,
    phone text not null,
    text text not null,
    created_at timestamptz not null default now()
);

create index dev_sms_message_phone_idx on dev_sms_message (phone, created_at desc);

-- WeCom QR states: SHA-256 of the 128-bit state, bound to one browser, used once.
create table wecom_state (
    state_hash bytea primary key,
    -- SHA-256 (hex) of the browser's binding cookie.
    browser_binding text not null,
    expires_at timestamptz not null
);

create index wecom_state_expires_idx on wecom_state (expires_at);

-- Enterprises the account belonged to at the attempt, so each enterprise sees
-- its members' attempts, failed ones included.
alter table login_log add column enterprise_ids uuid[] not null default '{}';

create index login_log_enterprise_ids_idx on login_log using gin (enterprise_ids);
