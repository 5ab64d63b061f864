import { allOrgIds, findOrg, orgOptions, type OrgNode } from './orgs';
import { roleQuery } from './roles';
import { userQuery } from './users';

const org = (id: string, status = 1, childs: OrgNode[] = []): OrgNode => ({ id, orgCode: id.toUpperCase(), name: `org ${id}`, parentId: '', level: 1, sort: 0, status, isCompany: false, ...(childs.length ? { childs } : {}) });
const tree = [org('a', 1, [org('b', 1, [org('c')]), org('d', 2)]), org('e')];

describe('system settings queries', () => {
  it('maps the user filters, leaving blanks and unknown statuses out', () => {
    expect(userQuery({}, 1, 20)).toEqual({ page: 1, size: 20 });
    expect(userQuery({ name: ' li ', orgId: 'o1', roleId: 'r1', status: 2 }, 2, 50)).toEqual({ page: 2, size: 50, name: 'li', orgId: 'o1', roleId: 'r1', status: 2 });
    expect(userQuery({ name: '  ', status: 7 }, 1, 20)).toEqual({ page: 1, size: 20 });
  });

  it('maps the role filter', () => {
    expect(roleQuery({ name: ' 运营 ' }, 1, 10)).toEqual({ page: 1, size: 10, name: '运营' });
    expect(roleQuery({ name: '' }, 1, 10)).toEqual({ page: 1, size: 10 });
  });

  it('offers the org tree as picker options, disabled organisations not pickable', () => {
    const options = orgOptions(tree);
    expect(options[0].children?.map((o) => o.value)).toEqual(['b', 'd']);
    expect(options[0].children?.[1].disabled).toBe(true);
    expect(options[1]).toEqual({ value: 'e', title: 'org e' });
  });

  it('leaves a moving node and its subtree out of the new-parent picker', () => {
    expect(allOrgIds(tree)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const options = orgOptions(tree, 'b');
    expect(options[0].children?.map((o) => o.value)).toEqual(['d']);
    expect(findOrg(tree, 'c')?.name).toBe('org c');
    expect(findOrg(tree, 'zz')).toBeUndefined();
  });
});
