import { fileNameOfLink, isImageLink } from './file-links';

describe('file links', () => {
  it("names a signed link's file by the last segment of its key", () => {
    expect(fileNameOfLink('/api/v1/files/download?key=ent-1%2Ffeedback%2Fu%2F%E6%88%AA%E5%9B%BE.png&expires=1&sig=ab')).toBe('截图.png');
    expect(fileNameOfLink('https://cdn.example/a/b/report.xlsx')).toBe('report.xlsx');
  });

  it('takes png, jpeg, jpg, webp and gif (or an image type) for images', () => {
    for (const name of ['a.png', 'a.JPEG', 'a.jpg', 'a.webp', 'a.gif']) expect(isImageLink({ url: '/x', name })).toBe(true);
    expect(isImageLink({ url: '/x', name: 'a.pdf' })).toBe(false);
    expect(isImageLink({ url: '/api/v1/files/download?key=e%2Fa.webp' })).toBe(true);
    expect(isImageLink({ url: '/x', name: 'a', contentType: 'image/png' })).toBe(true);
  });
});
