import { render } from '@testing-library/react';
import { MarkdownView } from './markdown-view';

describe('MarkdownView', () => {
  it('renders headings, lists and bold as elements', () => {
    const { container } = render(<MarkdownView source={'## 登录\n\n- **扫码**\n- 验证码'} />);
    expect(container.querySelector('h3')?.textContent).toBe('登录');
    expect(container.querySelectorAll('ul > li')).toHaveLength(2);
    expect(container.querySelector('li strong')?.textContent).toBe('扫码');
  });

  it('never injects HTML: tags in the text stay text', () => {
    const { container } = render(<MarkdownView source={'<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>'} />);
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<script>alert(1)</script>');
  });
});
