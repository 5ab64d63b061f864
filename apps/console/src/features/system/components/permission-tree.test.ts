import type { PermissionNode } from '../api/roles';
import { displayedChecks, indexPermissions, permissionLabel, permissionTreeData, togglePermission } from './permission-tree';

const node = (value: string, zh: string, children: PermissionNode[] = []): PermissionNode => ({
  value,
  labelZh: zh,
  labelEn: `${value} (en)`,
  labelJa: `${value} (ja)`,
  ...(children.length ? { children } : {}),
});

const catalogue: PermissionNode[] = [
  node('vehicle', '车辆管理', [node('car', '车辆资产'), node('report', '资产报表', [node('report:daily', '日报')])]),
  node('system', '系统设置', [node('org', '组织管理')]),
];
const index = indexPermissions(catalogue);

describe('role permission tree', () => {
  it('labels nodes in the current language, falling back to Chinese', () => {
    expect(permissionTreeData(catalogue, 'en-US')[0]).toMatchObject({ key: 'vehicle', title: 'vehicle (en)' });
    expect(permissionTreeData(catalogue, 'ja-JP')[1].children?.[0].title).toBe('org (ja)');
    expect(permissionTreeData(catalogue, 'zh-CN')[0].children?.[1].children?.[0]).toEqual({ key: 'report:daily', title: '日报' });
    expect(permissionLabel({ value: 'x', labelZh: '中文', labelEn: '', labelJa: '' }, 'en-US')).toBe('中文');
  });

  it('checking a leaf checks its ancestors too, so the menu group is granted', () => {
    expect(togglePermission([], 'report:daily', true, index)).toEqual(['report', 'report:daily', 'vehicle']);
  });

  it('checking a group checks its whole subtree', () => {
    expect(togglePermission(['org'], 'vehicle', true, index)).toEqual(['car', 'org', 'report', 'report:daily', 'vehicle']);
  });

  it('unchecking removes the subtree and keeps the ancestors', () => {
    const all = ['car', 'report', 'report:daily', 'vehicle'];
    expect(togglePermission(all, 'report', false, index)).toEqual(['car', 'vehicle']);
    expect(togglePermission(all, 'vehicle', false, index)).toEqual([]);
  });

  it('keeps values the catalogue does not know', () => {
    expect(togglePermission(['legacy'], 'car', true, index)).toEqual(['car', 'legacy', 'vehicle']);
  });

  it('shows a saved group with only some children ticked as half-checked', () => {
    const saved = togglePermission([], 'car', true, index);
    expect(saved).toEqual(['car', 'vehicle']);
    expect(displayedChecks(saved, index)).toEqual({ checked: ['car'], halfChecked: ['vehicle'] });
    const whole = togglePermission([], 'vehicle', true, index);
    expect(displayedChecks(whole, index)).toEqual({ checked: whole, halfChecked: [] });
  });
});
