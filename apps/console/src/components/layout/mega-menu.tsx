import { Empty } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MenuItem } from '@/lib/access';
import { MenuIcon } from './menu-icon';
import { MenuLink } from './menu-link';

interface Column {
  key: string;
  title: string;
  icon?: MenuItem['icon'];
  path?: string;
  items: MenuItem[];
}

/** Second-level entries become columns; loose leaves share one column per row. */
export function megaMenuRows(group: MenuItem): Column[][] {
  // A group with a single container child (energy → charge) shows that child's entries.
  const entries = group.children.length === 1 && group.children[0].children.length ? group.children[0].children : group.children;
  const rows = new Map<number, Column[]>();
  for (const entry of entries) {
    const row = entry.group ?? 1;
    const columns = rows.get(row) ?? [];
    if (entry.children.length) {
      columns.push({ key: entry.name, title: entry.title, icon: entry.icon, path: entry.path, items: entry.children });
    } else {
      let loose = columns.find((c) => c.key === `${group.name}-${row}`);
      if (!loose) {
        loose = { key: `${group.name}-${row}`, title: row === 1 ? group.title : 'menu.more', icon: group.icon, items: [] };
        columns.unshift(loose);
      }
      loose.items.push(entry);
    }
    rows.set(row, columns);
  }
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, columns]) => columns);
}

export function MegaMenu({ group, onNavigate }: { group: MenuItem; onNavigate: () => void }) {
  const { t } = useTranslation();
  const rows = megaMenuRows(group);
  if (!rows.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />;
  return (
    <div className="fd-mega" data-testid="mega-menu">
      {rows.map((columns, i) => (
        <div className="fd-mega__row" key={i}>
          {columns.map((column) => (
            <section className="fd-mega__col" key={column.key}>
              <h4 className="fd-mega__title">
                <MenuIcon name={column.icon} />
                <span>{t(column.title)}</span>
              </h4>
              <ul>
                {column.items.map((item) =>
                  item.children.length ? (
                    <li key={item.name} className="fd-mega__sub">
                      <span className="fd-mega__subtitle">{t(item.title)}</span>
                      <ul>
                        {item.children.map((child) => (
                          <li key={child.name}>
                            <MenuLink path={child.path} onOpen={onNavigate}>
                              {t(child.title)}
                            </MenuLink>
                          </li>
                        ))}
                      </ul>
                    </li>
                  ) : (
                    <li key={item.name}>
                      <MenuLink path={item.path} onOpen={onNavigate}>
                        {t(item.title)}
                      </MenuLink>
                    </li>
                  ),
                )}
              </ul>
            </section>
          ))}
        </div>
      ))}
    </div>
  );
}
