import { render } from '@testing-library/react';
import type { PermissionNode } from '../api/roles';
import { PermissionTreeField } from './permission-tree-field';

const node = (value: string, zh: string, children: PermissionNode[] = []): PermissionNode => ({
  value,
  labelZh: zh,
  labelEn: value,
  labelJa: value,
  ...(children.length ? { children } : {}),
});
const catalogue = [node('vehicle', '车辆管理', [node('car', '车辆资产'), node('driver', '司机管理')])];

describe('permission tree field', () => {
  it('shows a stored group with only some children stored as half-checked', () => {
    const { container } = render(<PermissionTreeField value={['car', 'vehicle']} catalogue={catalogue} />);
    const boxes = [...container.querySelectorAll('.ant-tree-treenode')].map((n) => ({
      title: n.textContent,
      half: !!n.querySelector('.ant-tree-checkbox-indeterminate'),
      checked: !!n.querySelector('.ant-tree-checkbox-checked'),
    }));
    expect(boxes.find((b) => b.title === '车辆管理')).toMatchObject({ half: true, checked: false });
    expect(boxes.find((b) => b.title === '车辆资产')).toMatchObject({ half: false, checked: true });
  });
});
