import { screen } from '@testing-library/react';
import { renderWithProviders } from '@/testing/render';
import { ImageViewer, VIEWER_MAX_SCALE, VIEWER_MIN_SCALE } from './image-viewer';

describe('image viewer (console spec §2)', () => {
  it('zooms between 0.2 and 2.5', () => {
    expect([VIEWER_MIN_SCALE, VIEWER_MAX_SCALE]).toEqual([0.2, 2.5]);
  });

  it('opens on the chosen image', () => {
    renderWithProviders(
      <ImageViewer open current={1} onClose={() => undefined} images={[{ src: '/a.png', title: '正面' }, { src: '/b.png', title: '反面' }]} />,
    );
    expect(document.querySelector('.ant-image-preview-img')?.getAttribute('src')).toBe('/b.png');
    expect(screen.getByText('反面')).toBeInTheDocument();
  });
});
