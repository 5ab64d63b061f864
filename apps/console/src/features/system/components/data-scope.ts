/**
 * Data permission scopes (console spec §2 "function and data permissions"): the kind and
 * the organisations it names, as the role and user forms edit them and as the
 * gateway takes them (`dataScope`, `dataScopeOrgIds`).
 */
export const SCOPE_SELF = 1;
export const SCOPE_ORG = 2;
export const SCOPE_SUBTREE = 3;
export const SCOPE_CUSTOM = 4;
export const SCOPE_ENTERPRISE = 5;
export const SCOPE_KINDS = [SCOPE_SELF, SCOPE_ORG, SCOPE_SUBTREE, SCOPE_CUSTOM, SCOPE_ENTERPRISE] as const;

/** A user's own scope may be absent: then their roles' scopes apply. */
export const SCOPE_FROM_ROLES = 0;

export interface DataScopeValue {
  kind?: number;
  orgIds?: string[];
}

/** org and org subtree name one organisation (none: the user's own); custom names a set. */
export function scopeOrgMode(kind: number | undefined): 'none' | 'single' | 'multiple' {
  if (kind === SCOPE_ORG || kind === SCOPE_SUBTREE) return 'single';
  if (kind === SCOPE_CUSTOM) return 'multiple';
  return 'none';
}

/** The i18n key of what is wrong with a scope, if anything. */
export function dataScopeError(value: DataScopeValue | undefined, required: boolean): string | undefined {
  const kind = value?.kind;
  if (kind === undefined || kind === SCOPE_FROM_ROLES) return required ? 'systemSettings.scope.required' : undefined;
  if (scopeOrgMode(kind) === 'multiple' && !value?.orgIds?.length) return 'systemSettings.scope.orgsRequired';
  return undefined;
}

/** The body fields: org ids only where the kind uses them, at most one for org/subtree; null kind for "from the roles". */
export function dataScopeBody(value: DataScopeValue | undefined): { dataScope: number | null; dataScopeOrgIds: string[] } {
  const kind = value?.kind;
  if (kind === undefined || kind === SCOPE_FROM_ROLES) return { dataScope: null, dataScopeOrgIds: [] };
  const ids = (value?.orgIds ?? []).filter(Boolean);
  const mode = scopeOrgMode(kind);
  return { dataScope: kind, dataScopeOrgIds: mode === 'multiple' ? [...new Set(ids)] : mode === 'single' ? ids.slice(0, 1) : [] };
}

/** A stored scope (kind 0 = from the roles) back into the form's value. */
export function dataScopeValue(kind: number, orgIds: readonly string[]): DataScopeValue {
  return { kind, orgIds: [...orgIds] };
}
