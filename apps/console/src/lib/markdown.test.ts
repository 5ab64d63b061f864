import { parseInline, parseMarkdown } from './markdown';

describe('manual markdown', () => {
  it('reads headings, paragraphs joined across lines, and both kinds of list', () => {
    const blocks = parseMarkdown('## 登录\n\n支持三种方式，\n任选其一。\n\n- 扫码\n- 验证码\n\n1. 打开\n2. 选择\n# 结束');
    expect(blocks).toEqual([
      { kind: 'heading', level: 2, inlines: [{ kind: 'text', text: '登录' }] },
      { kind: 'paragraph', inlines: [{ kind: 'text', text: '支持三种方式， 任选其一。' }] },
      { kind: 'list', ordered: false, items: [[{ kind: 'text', text: '扫码' }], [{ kind: 'text', text: '验证码' }]] },
      { kind: 'list', ordered: true, items: [[{ kind: 'text', text: '打开' }], [{ kind: 'text', text: '选择' }]] },
      { kind: 'heading', level: 1, inlines: [{ kind: 'text', text: '结束' }] },
    ]);
  });

  it('starts a new list when bullets turn to numbers, and a paragraph after a list', () => {
    expect(parseMarkdown('- a\n1. b\ntext').map((b) => b.kind)).toEqual(['list', 'list', 'paragraph']);
  });

  it('marks bold and code runs and leaves unmatched markers as text', () => {
    expect(parseInline('点击 **切换企业** 或 `F5` 键 **')).toEqual([
      { kind: 'text', text: '点击 ' },
      { kind: 'strong', text: '切换企业' },
      { kind: 'text', text: ' 或 ' },
      { kind: 'code', text: 'F5' },
      { kind: 'text', text: ' 键 **' },
    ]);
  });

  it('gives nothing for empty or blank text and keeps #hashtags without a space as text', () => {
    expect(parseMarkdown('')).toEqual([]);
    expect(parseMarkdown(' \n\r\n ')).toEqual([]);
    expect(parseMarkdown('#tag')).toEqual([{ kind: 'paragraph', inlines: [{ kind: 'text', text: '#tag' }] }]);
  });
});
