import { orgTree, type SimpleOrg } from './org-options';

const org = (orgId: string, parentId: string, name = orgId): SimpleOrg => ({ orgId, parentId, name, orgCode: orgId, level: 1 });

describe('organisation picker tree', () => {
  it('nests the flat list by parent, keeping the order, and makes orphans roots', () => {
    const tree = orgTree([org('root', ''), org('east', 'root'), org('sh', 'east'), org('west', 'root'), org('lost', 'gone')]);
    expect(tree.map((o) => o.value)).toEqual(['root', 'lost']);
    expect(tree[0].children?.map((o) => o.value)).toEqual(['east', 'west']);
    expect(tree[0].children?.[0].children?.[0]).toEqual({ value: 'sh', label: 'sh', title: 'sh' });
  });
});
