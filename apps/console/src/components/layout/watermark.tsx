import { useEffect, useRef } from 'react';
import { WATERMARK_CHECK_MS } from '@/config/constants';

const ID = 'fd-watermark';

/** A tile with the text drawn at -20°, as a data URL. */
export function watermarkTile(text: string): string {
  const canvas = document.createElement('canvas');
  canvas.width = 260;
  canvas.height = 160;
  const ctx = canvas.getContext('2d');
  if (!ctx) return '';
  ctx.translate(130, 80);
  ctx.rotate((-20 * Math.PI) / 180);
  ctx.font = '15px sans-serif';
  ctx.fillStyle = 'rgba(15, 23, 42, 0.07)';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, 0, 0);
  return canvas.toDataURL('image/png');
}

/** Puts the tiled layer in place unless it is already there, intact and for this text. */
export function ensureWatermark(text: string, tile: () => string): HTMLElement {
  let layer = document.getElementById(ID);
  const intact = layer && layer.dataset.text === text && layer.style.display !== 'none' && layer.style.backgroundImage.includes('data:image');
  if (layer && intact) return layer;
  layer?.remove();
  layer = document.createElement('div');
  layer.id = ID;
  layer.dataset.text = text;
  layer.setAttribute('aria-hidden', 'true');
  Object.assign(layer.style, {
    position: 'fixed',
    inset: '0',
    pointerEvents: 'none',
    zIndex: '9999',
    backgroundRepeat: 'repeat',
    backgroundImage: `url(${tile()})`,
  });
  document.body.appendChild(layer);
  return layer;
}

/** Tiled watermark with the user name, re-checked every 500 ms (console spec §1). */
export function Watermark({ text }: { text: string }) {
  const tileCache = useRef<{ text: string; url: string } | null>(null);
  useEffect(() => {
    const tile = () => {
      if (tileCache.current?.text !== text) tileCache.current = { text, url: watermarkTile(text) || 'data:image/png;base64,' };
      return tileCache.current.url;
    };
    ensureWatermark(text, tile);
    const timer = setInterval(() => ensureWatermark(text, tile), WATERMARK_CHECK_MS);
    return () => {
      clearInterval(timer);
      document.getElementById(ID)?.remove();
    };
  }, [text]);
  return null;
}
