import { dataScopeBody, dataScopeError, scopeOrgMode, SCOPE_CUSTOM, SCOPE_ENTERPRISE, SCOPE_FROM_ROLES, SCOPE_ORG, SCOPE_SELF, SCOPE_SUBTREE } from './data-scope';

describe('data scope', () => {
  it('asks for one organisation for org and subtree, a set for custom, none otherwise', () => {
    expect(scopeOrgMode(SCOPE_ORG)).toBe('single');
    expect(scopeOrgMode(SCOPE_SUBTREE)).toBe('single');
    expect(scopeOrgMode(SCOPE_CUSTOM)).toBe('multiple');
    expect(scopeOrgMode(SCOPE_SELF)).toBe('none');
    expect(scopeOrgMode(SCOPE_ENTERPRISE)).toBe('none');
    expect(scopeOrgMode(undefined)).toBe('none');
  });

  it('requires a kind for roles and organisations for a custom scope', () => {
    expect(dataScopeError(undefined, true)).toBe('systemSettings.scope.required');
    expect(dataScopeError({ kind: SCOPE_FROM_ROLES }, true)).toBe('systemSettings.scope.required');
    expect(dataScopeError({ kind: SCOPE_FROM_ROLES }, false)).toBeUndefined();
    expect(dataScopeError({ kind: SCOPE_CUSTOM, orgIds: [] }, true)).toBe('systemSettings.scope.orgsRequired');
    expect(dataScopeError({ kind: SCOPE_CUSTOM, orgIds: ['a'] }, true)).toBeUndefined();
    expect(dataScopeError({ kind: SCOPE_SUBTREE, orgIds: [] }, true)).toBeUndefined();
  });

  it('sends org ids only where the kind uses them', () => {
    expect(dataScopeBody({ kind: SCOPE_SELF, orgIds: ['a'] })).toEqual({ dataScope: 1, dataScopeOrgIds: [] });
    expect(dataScopeBody({ kind: SCOPE_ORG, orgIds: ['a', 'b'] })).toEqual({ dataScope: 2, dataScopeOrgIds: ['a'] });
    expect(dataScopeBody({ kind: SCOPE_CUSTOM, orgIds: ['a', 'b', 'a', ''] })).toEqual({ dataScope: 4, dataScopeOrgIds: ['a', 'b'] });
    expect(dataScopeBody({ kind: SCOPE_ENTERPRISE })).toEqual({ dataScope: 5, dataScopeOrgIds: [] });
  });

  it('sends no kind when a user takes the scope from the roles', () => {
    expect(dataScopeBody({ kind: SCOPE_FROM_ROLES, orgIds: ['a'] })).toEqual({ dataScope: null, dataScopeOrgIds: [] });
    expect(dataScopeBody(undefined)).toEqual({ dataScope: null, dataScopeOrgIds: [] });
  });
});
