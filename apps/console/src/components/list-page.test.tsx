import { act, renderHook } from '@testing-library/react';
import { useListState } from './list-page';

describe('useListState', () => {
  it('starts on page 1 with the default size of 20', () => {
    const { result } = renderHook(() => useListState());
    expect(result.current).toMatchObject({ filters: {}, page: 1, size: 20 });
  });

  it('keeps page and size from the pager and goes back to page 1 on a new search', () => {
    const { result } = renderHook(() => useListState());
    act(() => result.current.changePage(3, 50));
    expect(result.current).toMatchObject({ page: 3, size: 50 });
    act(() => result.current.search({ name: 'li' }));
    expect(result.current).toMatchObject({ filters: { name: 'li' }, page: 1, size: 50 });
  });
});
