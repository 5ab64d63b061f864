import { screen } from '@testing-library/react';
import { renderWithProviders } from '@/testing/render';
import { ButtonGroup, splitButtons } from './button-group';

describe('button group (console spec §2)', () => {
  it('shows up to 3 buttons; more go under More', () => {
    expect(splitButtons([1, 2, 3])).toEqual({ visible: [1, 2, 3], more: [] });
    expect(splitButtons([1, 2, 3, 4, 5])).toEqual({ visible: [1, 2], more: [3, 4, 5] });
  });

  it('renders the More entry', () => {
    const b = (k: string) => ({ key: k, label: k, onClick: () => undefined });
    renderWithProviders(<ButtonGroup buttons={[b('查看'), b('编辑'), b('删除'), b('导出')]} />);
    expect(screen.getByText('查看')).toBeInTheDocument();
    expect(screen.getByText('编辑')).toBeInTheDocument();
    expect(screen.queryByText('删除')).toBeNull();
    expect(screen.getByText('更多')).toBeInTheDocument();
  });
});
