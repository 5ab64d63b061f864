import { Image } from 'antd';

export interface ViewerImage {
  src: string;
  title?: string;
}

/** Zoom limits of the image viewer (console spec §2). */
export const VIEWER_MIN_SCALE = 0.2;
export const VIEWER_MAX_SCALE = 2.5;

/** Full-screen viewer over a list of images, opened at `current`. */
export function ImageViewer({ images, open, current = 0, onClose }: { images: ViewerImage[]; open: boolean; current?: number; onClose: () => void }) {
  return (
    <Image.PreviewGroup
      items={images.map((img) => ({ src: img.src, alt: img.title }))}
      preview={{
        open,
        current,
        minScale: VIEWER_MIN_SCALE,
        maxScale: VIEWER_MAX_SCALE,
        onOpenChange: (next) => !next && onClose(),
        imageRender: (node, info) => (
          <div className="fd-viewer">
            {node}
            {images[info.current]?.title && <div className="fd-viewer__title">{images[info.current].title}</div>}
          </div>
        ),
      }}
    />
  );
}
