import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { routeTree } from '@/config/routes';
import enUS from '@/locales/en-US';
import jaJP from '@/locales/ja-JP';
import zhCN from '@/locales/zh-CN';
import { flatten, resolveTree } from './access';
import { currentLanguage, detectLanguage, i18n, setLanguage } from './i18n';

type Tree = { [key: string]: string | Tree };
const keysOf = (tree: Tree, prefix = ''): string[] =>
  Object.entries(tree).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keysOf(v, `${prefix}${k}.`)));
const lookup = (tree: Tree, key: string) => key.split('.').reduce<string | Tree | undefined>((node, part) => (typeof node === 'object' ? node[part] : undefined), tree);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'locales' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

describe('i18n bundles (console spec §1)', () => {
  const zhKeys = keysOf(zhCN).sort();

  it('gives en-US and ja-JP exactly the keys of zh-CN, none empty', () => {
    expect(keysOf(enUS).sort()).toEqual(zhKeys);
    expect(keysOf(jaJP).sort()).toEqual(zhKeys);
    for (const bundle of [zhCN, enUS, jaJP]) for (const k of zhKeys) expect(lookup(bundle, k), k).not.toBe('');
  });

  it('has a title for every route', () => {
    for (const route of flatten(resolveTree(routeTree))) expect(zhKeys, route.fullPath).toContain(route.meta.title);
  });

  it('has every key the source asks for', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(join(__dirname, '..'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z]+\.[a-zA-Z0-9_.]+)'/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((k) => !zhKeys.includes(k))).toEqual([]);
  });
});

describe('language choice', () => {
  it('takes storage first, then the browser, else zh-CN', () => {
    expect(detectLanguage('en-US', ['ja-JP'])).toBe('en-US');
    expect(detectLanguage(null, ['ja', 'en-GB'])).toBe('ja-JP');
    expect(detectLanguage(null, ['en-GB'])).toBe('en-US');
    expect(detectLanguage(null, ['fr-FR'])).toBe('zh-CN');
    expect(detectLanguage('xx', [])).toBe('zh-CN');
  });

  it('persists a change and loads the bundle', async () => {
    await setLanguage('en-US');
    expect(localStorage.getItem('language')).toBe('en-US');
    expect(currentLanguage()).toBe('en-US');
    expect(i18n.t('route.carManagement')).toBe('Car management');
    await setLanguage('zh-CN');
    expect(i18n.t('route.carManagement')).toBe('车辆管理');
  });
});
