import { addView, closeOthers, closeView, nextPathAfterClose, opensTab } from './visited-views';

describe('visited views (console spec §2)', () => {
  const a = { path: '/a', title: 'route.a' };
  const b = { path: '/b', title: 'route.b' };
  const c = { path: '/c?x=1' };

  it('adds a view once, in visiting order', () => {
    expect(addView(addView(addView([], a), b), a)).toEqual([a, b]);
  });

  it('keeps one tab for a list whose filters change, at its newest address; hidden pages get one per address', () => {
    const list = '/carManagement/assetsData/carFiles';
    const views = addView(addView([a], { path: list, title: 'route.carFileList' }), { path: `${list}?plate=粤B12345&page=2`, title: 'route.carFileList' });
    expect(views).toEqual([a, { path: `${list}?plate=粤B12345&page=2`, title: 'route.carFileList' }]);
    const log = '/carManagement/assetsData/bindingLog';
    expect(addView(addView([], { path: `${log}?vehicleId=1` }), { path: `${log}?vehicleId=2` })).toHaveLength(2);
  });

  it('closes one view or all others', () => {
    expect(closeView([a, b, c], '/b')).toEqual([a, c]);
    expect(closeOthers([a, b, c], '/b')).toEqual([b]);
  });

  it('goes to the last remaining view after closing, else home', () => {
    expect(nextPathAfterClose([a, b], '/dashboard')).toBe('/b');
    expect(nextPathAfterClose([], '/dashboard')).toBe('/dashboard');
  });

  it('does not open tabs for the listed paths', () => {
    for (const p of ['/dashboard', '/downloadRecord', '/myCoupons', '/notice', '/carFiles', '/noticeDetails', '/approve', '/approveDetails']) {
      expect(opensTab(p)).toBe(false);
    }
    expect(opensTab('/systemSetting/orgManagement')).toBe(true);
  });
});
