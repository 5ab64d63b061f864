import { groupArticles, type Article } from './help';

const article = (id: string, category: string, sort: number) => ({ id, category, sort, title: id, content: '', updateTime: '' }) as Article;

describe('operation manual', () => {
  it('groups pages by category in the order of their sort', () => {
    const groups = groupArticles([article('c', '常见问题', 3), article('a', '快速入门', 0), article('b', '车辆管理', 1), article('a2', '快速入门', 2)]);
    expect(groups.map((g) => g.category)).toEqual(['快速入门', '车辆管理', '常见问题']);
    expect(groups[0].articles.map((a) => a.id)).toEqual(['a', 'a2']);
    expect(groupArticles([])).toEqual([]);
  });
});
