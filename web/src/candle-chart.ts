// OHLC candles on a canvas: a wick from low to high and a body from open to close per bucket, rising
// ones in the positive colour, falling ones in the negative, with the price range and the last close
// labelled.
import { cssVar, prepareCanvas } from './canvas.ts';
import type { Candle } from './market-history.ts';


export function drawCandles(canvas: HTMLCanvasElement, candles: readonly Candle[]): void {
  const surface = prepareCanvas(canvas);
  if (surface === null) return;
  const { ctx, width, height } = surface;
  const muted = cssVar(canvas, '--muted', '#8a94a6');
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = muted;
  if (candles.length === 0) {
    ctx.fillText('No trades in the last 100 minutes.', 8, height / 2);
    return;
  }
  const shown = candles.slice(-60);
  let low = Infinity;
  let high = -Infinity;
  for (const c of shown) {
    low = Math.min(low, c.low);
    high = Math.max(high, c.high);
  }
  if (high === low) {
    high += 1;
    low -= 1;
  }
  const left = 8;
  const right = 64;
  const top = 10;
  const bottom = 18;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const y = (p: number): number => top + ((high - p) / (high - low)) * plotH;
  const step = plotW / shown.length;
  const body = Math.max(1, Math.min(12, step * 0.7));
  const up = cssVar(canvas, '--pos', '#2e9d5b');
  const down = cssVar(canvas, '--neg', '#d64545');
  shown.forEach((c, i) => {
    const x = left + step * i + step / 2;
    const colour = c.close >= c.open ? up : down;
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.moveTo(x, y(c.high));
    ctx.lineTo(x, y(c.low));
    ctx.stroke();
    const a = y(Math.max(c.open, c.close));
    const b = y(Math.min(c.open, c.close));
    ctx.fillRect(x - body / 2, a, body, Math.max(1, b - a));
  });
  ctx.fillStyle = muted;
  ctx.fillText(String(high), width - right + 4, top + 8);
  ctx.fillText(String(low), width - right + 4, top + plotH);
  const last = shown[shown.length - 1] as Candle;
  ctx.fillText(`last ${last.close}`, width - right + 4, y(last.close) + 4);
  ctx.fillText(`${shown.length} × 1m`, left, height - 4);
}
