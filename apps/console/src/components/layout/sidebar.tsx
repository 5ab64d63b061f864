import { SearchOutlined } from '@ant-design/icons';
import { Button, Input, Menu, type MenuProps } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { filterMenu, type MenuItem } from '@/lib/access';
import { MenuIcon } from './menu-icon';
import { useOpenMenuPath } from './menu-link';

type AntItem = Required<MenuProps>['items'][number];

function toAntItems(items: MenuItem[], t: (k: string) => string): AntItem[] {
  return items.map((item) =>
    item.children.length
      ? { key: item.path, label: t(item.title), icon: <MenuIcon name={item.icon} />, children: toAntItems(item.children, t) }
      : { key: item.path, label: t(item.title), icon: <MenuIcon name={item.icon} /> },
  );
}

function ancestorsOf(items: MenuItem[], path: string, trail: string[] = []): string[] | undefined {
  for (const item of items) {
    if (item.path === path) return trail;
    const found = ancestorsOf(item.children, path, [...trail, item.path]);
    if (found) return found;
  }
  return undefined;
}

const allKeys = (items: MenuItem[]): string[] => items.flatMap((i) => (i.children.length ? [i.path, ...allKeys(i.children)] : []));

/**
 * The sidebar menu with a title search applied on Enter or on the search button
 * (console spec §2). It shows the current group's `items`; a search looks through
 * `searchItems` (every menu the user may open) when given. `collapsed` shows icons only.
 */
export function Sidebar({ items, searchItems, collapsed, title }: { items: MenuItem[]; searchItems?: MenuItem[]; collapsed: boolean; title?: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const open = useOpenMenuPath();
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const searching = query.trim() !== '';
  const visible = useMemo(() => (searching ? filterMenu(searchItems ?? items, query, t) : items), [searching, searchItems, items, query, t]);
  const [openKeys, setOpenKeys] = useState<string[]>(() => ancestorsOf(items, location.pathname) ?? []);

  return (
    <div className={`fd-side${collapsed ? ' is-collapsed' : ''}`} data-testid="sidebar">
      {!collapsed && (
        <>
          {title && <div className="fd-side__title">{t(title)}</div>}
          <div className="fd-side__search">
            <Input
              size="small"
              allowClear
              value={draft}
              placeholder={t('shell.searchMenu')}
              onChange={(e) => {
                setDraft(e.target.value);
                if (!e.target.value) setQuery('');
              }}
              onPressEnter={() => setQuery(draft.trim())}
              aria-label={t('shell.searchMenu')}
            />
            <Button size="small" type="text" icon={<SearchOutlined />} aria-label={t('common.search')} onClick={() => setQuery(draft.trim())} />
          </div>
        </>
      )}
      <Menu
        mode="inline"
        inlineCollapsed={collapsed}
        items={toAntItems(visible, t)}
        selectedKeys={[location.pathname]}
        openKeys={searching ? allKeys(visible) : openKeys}
        onOpenChange={setOpenKeys}
        onClick={({ key }) => open(key)}
      />
      {searching && visible.length === 0 && <div className="fd-side__empty">{t('common.noData')}</div>}
    </div>
  );
}
