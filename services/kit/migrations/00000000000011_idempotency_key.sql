-- Idempotency-Key of creates (kit::idempotency): per enterprise and
-- operation, the hash of the first request and its encoded answer, kept for
-- the life of what it created. Written in the same transaction as the effect.
create table idempotency_key (
    enterprise_id uuid not null,
    operation text not null,
    key text not null,
    request_hash bytea not null,
    response bytea not null,
    created_at timestamptz not null default now(),
    primary key (enterprise_id, operation, key)
);

select enable_tenant_rls('idempotency_key');
