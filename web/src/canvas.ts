// What every chart does first: size the canvas's backing store to its box at the device's pixel ratio
// and clear it, and read colours from the page's CSS variables.

export interface Surface {
  readonly ctx: CanvasRenderingContext2D;
  readonly width: number;
  readonly height: number;
}

/** A cleared 2D context in CSS pixels, or null while the canvas has no size (hidden). */
export function prepareCanvas(canvas: HTMLCanvasElement): Surface | null {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (width === 0 || height === 0) return null;
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  const ctx = canvas.getContext('2d');
  if (ctx === null) return null;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return { ctx, width, height };
}

export function cssVar(el: Element, name: string, fallback: string): string {
  const v = getComputedStyle(el).getPropertyValue(name).trim();
  return v === '' ? fallback : v;
}
